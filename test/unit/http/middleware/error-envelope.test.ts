/** Errors become the envelope, handed to @middy/http-error-handler in the shape it renders. */
import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from '../../../../shared/http/http';
import {
  errorEnvelope,
  HttpErrorResponse,
  INTERNAL_ERROR_BODY,
} from '../../../../shared/http/middleware/error-envelope';
import { ServiceUnavailableError, SnapshotExpiredError, ValidationError } from '../../../../shared/platform/errors';
import { setLogSink } from '../../../../shared/platform/logger';

/** The two middlewares as the family functions stack them, around a handler that throws. */
const throwing = (error: unknown) =>
  middy<ApiEvent, ApiResult>(async () => {
    throw error;
  })
    .use(httpErrorHandler({ logger: false, fallbackMessage: INTERNAL_ERROR_BODY }))
    .use(errorEnvelope({ retryAfterSeconds: 7 }));

const call = (error: unknown) => throwing(error)({} as ApiEvent, {} as Context);

describe('errorEnvelope', () => {
  beforeAll(() => setLogSink(() => undefined));

  it('hands the error handler an exposed Error with status, headers and the envelope as message', async () => {
    let seen: unknown;
    const spy: middy.MiddlewareObj<ApiEvent, ApiResult> = { onError: async (request) => void (seen = request.error) };
    await middy<ApiEvent, ApiResult>(async () => {
      throw new ValidationError(['limit must be an integer']);
    })
      .use(spy)
      .use(errorEnvelope({ retryAfterSeconds: 7 }))({} as ApiEvent, {} as Context)
      .catch(() => undefined);

    expect(seen).toBeInstanceOf(Error);
    expect(seen).toBeInstanceOf(HttpErrorResponse);
    expect(seen).toMatchObject({
      statusCode: 400,
      expose: true,
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
    });
    expect(JSON.parse((seen as Error).message)).toEqual({
      error: {
        code: 'validation_error',
        message: 'The request parameters are invalid.',
        details: { message: ['limit must be an integer'] },
      },
    });
  });

  it('answers with the envelope and the error headers, as JSON', async () => {
    const res = await call(new ServiceUnavailableError(7, new Error('table x unreachable')));
    expect(res.statusCode).toBe(503);
    expect(res.headers).toEqual({ 'Content-Type': 'application/json', 'Retry-After': '7' });
    expect(JSON.parse(res.body).error.code).toBe('service_unavailable');
    expect(res.body).not.toContain('table x');
  });

  it('turns anything else into a 500 internal_error without its message or stack', async () => {
    const res = await call(new TypeError('secret detail'));
    expect(res.statusCode).toBe(500);
    expect(res.headers?.['Content-Type']).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({
      error: { code: 'internal_error', message: 'An unexpected error occurred.', details: null },
    });
  });

  it.each(['snapshot', 'since'] as const)(
    'answers a %s that is gone with 410 snapshot_expired, naming the parameter',
    async (parameter) => {
      const res = await call(new SnapshotExpiredError(parameter));
      expect(res.statusCode).toBe(410);
      const body = JSON.parse(res.body);
      expect(body).toEqual({
        error: {
          code: 'snapshot_expired',
          message: expect.stringContaining(`\`${parameter}\``),
          details: { parameter },
        },
      });
    },
  );
});
