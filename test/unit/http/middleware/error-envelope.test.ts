/** Errors become the envelope: the middleware writes the answer itself, the envelope serialized once. */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from '../../../../shared/http/http';
import { errorEnvelope } from '../../../../shared/http/middleware/error-envelope';
import { ServiceUnavailableError, SnapshotExpiredError, ValidationError } from '../../../../shared/platform/errors';
import { setLogSink } from '../../../../shared/platform/logger';

/** The middleware around a handler that throws. */
const throwing = (error: unknown) =>
  middy<ApiEvent, ApiResult>(async () => {
    throw error;
  }).use(errorEnvelope({ retryAfterSeconds: 7 }));

const call = (error: unknown) => throwing(error)({} as ApiEvent, {} as Context);

describe('errorEnvelope', () => {
  beforeAll(() => setLogSink(() => undefined));

  it('answers a typed error with its status, the JSON content type and the envelope as body', async () => {
    const res = await call(new ValidationError(['limit must be an integer']));
    expect(res.statusCode).toBe(400);
    expect(res.headers).toEqual({ 'Content-Type': 'application/json; charset=utf-8' });
    expect(JSON.parse(res.body)).toEqual({
      error: {
        code: 'validation_error',
        message: 'The request parameters are invalid.',
        details: { message: ['limit must be an integer'] },
      },
    });
  });

  it('leaves an answer an earlier onError step wrote as it is', async () => {
    const written: ApiResult = { statusCode: 304, headers: {}, body: '' };
    const res = await middy<ApiEvent, ApiResult>(async () => {
      throw new TypeError('not reached by the client');
    })
      .use(errorEnvelope({ retryAfterSeconds: 7 }))
      .use({ onError: async (request) => void (request.response = written) })({} as ApiEvent, {} as Context);
    expect(res).toBe(written);
  });

  it('answers with the envelope and the error headers, as JSON', async () => {
    const res = await call(new ServiceUnavailableError(7, new Error('table x unreachable')));
    expect(res.statusCode).toBe(503);
    expect(res.headers).toEqual({ 'Content-Type': 'application/json; charset=utf-8', 'Retry-After': '7' });
    expect(JSON.parse(res.body).error.code).toBe('service_unavailable');
    expect(res.body).not.toContain('table x');
  });

  it('turns anything else into a 500 internal_error without its message or stack', async () => {
    const res = await call(new TypeError('secret detail'));
    expect(res.statusCode).toBe(500);
    expect(res.headers?.['Content-Type']).toBe('application/json; charset=utf-8');
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
