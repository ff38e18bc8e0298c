/**
 * `GET /api/v1/status` in the key-free docs function (functions/docs/docs-handler.ts): the body of
 * its status source at the request time, never stored, strict about its (empty) query, and the
 * envelope when the read fails (503 for a dependency, 500 otherwise), as API Gateway invokes it.
 */
import { docsHandler } from '../../../../functions/docs/docs-handler';
import type { ApiEvent } from '../../../../shared/http/http';
import { setLogSink } from '../../../../shared/platform/logger';

const NOW = new Date('2026-11-20T10:00:10.000Z');
const BODY = {
  families: {
    earn: {
      snapshot: 'v2',
      published_at: '2026-11-20T10:00:00.000Z',
      refreshed_at: '2026-11-20T10:00:00.000Z',
      max_age_seconds: 3600,
      stale: false,
    },
  },
};

const event = (query: Record<string, string[]> | null = null): ApiEvent =>
  ({
    resource: '/api/v1/status',
    path: '/prod/api/v1/status',
    httpMethod: 'GET',
    pathParameters: null,
    multiValueQueryStringParameters: query,
    queryStringParameters: query && Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v[v.length - 1]])),
    requestContext: { requestId: 'req-status' },
  }) as unknown as ApiEvent;

beforeAll(() => setLogSink(() => undefined));

describe('GET /api/v1/status', () => {
  it('answers the status at the request time, as JSON that no cache keeps, with CORS and the request id', async () => {
    const asked: number[] = [];
    const handler = docsHandler({
      status: async (nowMs) => {
        asked.push(nowMs);
        return BODY;
      },
      clock: () => NOW,
      retryAfterSeconds: 2,
    });
    const res = await handler(event());
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual(BODY);
    expect(asked).toEqual([NOW.getTime()]);
    expect(res.headers).toMatchObject({
      'Content-Type': 'application/json; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Request-Id': 'req-status',
      'Access-Control-Allow-Origin': '*',
    });
  });

  it('refuses a query parameter as every route does, without reading', async () => {
    const handler = docsHandler({
      status: () => Promise.reject(new Error('must not be read')),
      clock: () => NOW,
      retryAfterSeconds: 2,
    });
    const res = await handler(event({ family: ['earn'] }));
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        code: 'validation_error',
        message: expect.any(String),
        details: { message: ['property family should not exist'] },
      },
    });
  });

  it('answers a failed read of the pointer 503 with Retry-After, never the SDK message', async () => {
    const outage = Object.assign(new Error('table market-data-prod unreachable'), { name: 'TimeoutError' });
    const handler = docsHandler({ status: () => Promise.reject(outage), clock: () => NOW, retryAfterSeconds: 2 });
    const res = await handler(event());
    expect(res.statusCode).toBe(503);
    expect(res.headers).toMatchObject({
      'Retry-After': '2',
      'Cache-Control': 'no-store',
      'X-Request-Id': 'req-status',
    });
    expect(JSON.parse(res.body).error.code).toBe('service_unavailable');
    expect(res.body).not.toContain('market-data-prod');
  });

  it('answers anything else that fails 500 internal_error', async () => {
    const handler = docsHandler({
      status: () => Promise.reject(new TypeError('bug')),
      clock: () => NOW,
      retryAfterSeconds: 2,
    });
    const res = await handler(event());
    expect([res.statusCode, JSON.parse(res.body).error.code]).toEqual([500, 'internal_error']);
  });
});
