/**
 * The local gateway refuses what API Gateway refuses before any function runs: an Authorization
 * value outside the TOKEN authorizer's identity validation expression is a 401 with the Bearer
 * challenge, and the authorizer is never invoked for it; a request the HTTP parser refuses is
 * API Gateway's DEFAULT_4XX in the error envelope; a path matches routes as sent, never
 * normalised into another route.
 */
import { request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { createGateway, type FamilyHandler, LAMBDA_RESPONSE_LIMIT_BYTES } from '../../local/gateway';
import { GATEWAY_RESPONSES, gatewayResponseBody } from '../../shared/http/gateway-responses';
import type { ApiResult } from '../../shared/http/http';
import { contractProblems } from '../helpers/contract';

/** The gateway's clock: the request time and the authorizer cache's expiry. */
const NOW = new Date('2026-11-20T10:00:00.000Z');
const KEY = 'k'.repeat(40);
const REFUSED_KEY = 'r'.repeat(40);

let server: Server;
let base: string;
let authorizerCalls: string[];
let invoked: string[];

const allow = (token: string): APIGatewayAuthorizerResult => ({
  principalId: token.slice(-4),
  policyDocument: {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }],
  },
  context: { keyId: 'key-1' },
});

const ok: FamilyHandler = async () => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json' },
  body: '{"data":[]}',
});

beforeAll(async () => {
  server = createGateway({
    handlers: { platforms: ok, currencies: ok, offers: ok, history: ok, search: ok, usage: ok, webhooks: ok, mcp: ok },
    authorizer: async ({ authorizationToken }) => {
      authorizerCalls.push(authorizationToken);
      if (authorizationToken.includes(REFUSED_KEY)) throw new Error('Unauthorized');
      return allow(authorizationToken);
    },
    onInvoke: (_fn, event) => invoked.push(event.path),
    clock: () => NOW,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
beforeEach(() => {
  authorizerCalls = [];
  invoked = [];
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = (authorization?: string) =>
  fetch(`${base}/api/v1/exchanges`, { headers: authorization === undefined ? {} : { Authorization: authorization } });

describe('local gateway: identity validation', () => {
  it.each([
    ['no Authorization header', undefined],
    ['another scheme', `Basic ${KEY}`],
    ['a short key', 'Bearer short'],
    ['the scheme glued to the key', `Bearer${KEY}`],
    ['a key with padding', `Bearer ${KEY}==`],
    ['two tokens', `Bearer ${KEY} ${KEY}`],
    ['a key of 129 characters', `Bearer ${'a'.repeat(129)}`],
  ])('answers %s 401 with the Bearer challenge without invoking the authorizer', async (_case, authorization) => {
    const res = await call(authorization);

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    expect(authorizerCalls).toEqual([]);
  });

  it('passes a well-formed value to the authorizer, and its refusal is the same 401', async () => {
    const res = await call(`bEaReR   ${REFUSED_KEY}`);

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(authorizerCalls).toEqual([`bEaReR   ${REFUSED_KEY}`]);
  });

  it('serves a well-formed, accepted key without a challenge', async () => {
    const res = await call(`Bearer ${KEY}`);

    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(authorizerCalls).toHaveLength(1);
  });
});

describe('local gateway: its time comes from its clock', () => {
  // A clock the test moves: no real time passes.
  const clock = { now: NOW };
  let cached: Server;
  let cachedBase = '';
  const calls: string[] = [];
  const times: number[] = [];

  beforeAll(async () => {
    const timed: FamilyHandler = async (event) => {
      times.push(event.requestContext.requestTimeEpoch);
      return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"data":[]}' };
    };
    cached = createGateway({
      handlers: {
        platforms: timed,
        currencies: timed,
        offers: timed,
        history: timed,
        search: timed,
        usage: timed,
        webhooks: timed,
        mcp: timed,
      },
      authorizer: async ({ authorizationToken }) => {
        calls.push(authorizationToken);
        return allow(authorizationToken);
      },
      authCacheTtlMs: 60_000,
      clock: () => clock.now,
    });
    await new Promise<void>((resolve) => cached.listen(0, '127.0.0.1', resolve));
    cachedBase = `http://127.0.0.1:${(cached.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => cached.close(() => resolve())));

  it("stamps each request with the clock's time and keeps an authorizer answer for the TTL by it", async () => {
    const get = () => fetch(`${cachedBase}/api/v1/exchanges`, { headers: { Authorization: `Bearer ${KEY}` } });
    const at = (ms: number) => {
      clock.now = new Date(NOW.getTime() + ms);
    };

    at(0);
    await get();
    at(59_999);
    await get();
    at(60_000);
    await get();

    expect(calls).toHaveLength(2);
    expect(times).toEqual([NOW.getTime(), NOW.getTime() + 59_999, NOW.getTime() + 60_000]);
  });
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Bytes written to the gateway as they are (no client library checks or normalises them). */
function rawRequest(bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

/** A GET (or `method`) with the path sent literally (fetch's URL parser would resolve dot segments first). */
function getPath(path: string, method = 'GET'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        path,
        method,
        headers: { Authorization: `Bearer ${KEY}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const expectEnvelope = (answer: RawAnswer, status: number, code: string) => {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(answer.headers['access-control-allow-origin']).toBe('*');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  expect(JSON.parse(answer.body).error).toMatchObject({ code });
};

describe('local gateway: requests the HTTP parser refuses', () => {
  it('answers a 100 KB query string with the DEFAULT_4XX envelope, not an empty 431', async () => {
    const answer = await rawRequest(
      `GET /api/v1/exchanges?q=${'a'.repeat(100 * 1024)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
    );

    expectEnvelope(answer, 400, 'validation_error');
    expect(JSON.parse(answer.body).error.details.message).toEqual([
      'the request was rejected by the gateway before reaching the API',
    ]);
    expect(authorizerCalls).toEqual([]);
  });

  it('answers a NUL byte in a header value with the envelope', async () => {
    const answer = await rawRequest(
      `GET /api/v1/exchanges HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nX-Odd: a\u0000b\r\n\r\n`,
    );

    expectEnvelope(answer, 400, 'validation_error');
    expect(invoked).toEqual([]);
  });

  it('still serves a well-formed request on a raw connection', async () => {
    const answer = await rawRequest(
      `GET /api/v1/exchanges HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
    );

    expect(answer.status).toBe(200);
    expect(invoked).toEqual(['/api/v1/exchanges']);
  });
});

describe('local gateway: paths are matched as sent', () => {
  it.each([
    ['a network-path reference', '//evil.com/api/v1/earn'],
    ['a doubled slash inside the path', '/api/v1//earn'],
    ['encoded dot segments', '/api/v1/exchanges/%2E%2E/exchanges'],
    ['lower-case encoded dot segments', '/api/v1/earn/%2e%2e/%2e%2e/v1/earn'],
    ['literal dot segments', '/api/v1/exchanges/../exchanges'],
  ])('answers %s with the 404 envelope without invoking a function', async (_case, path) => {
    const answer = await getPath(path);

    expectEnvelope(answer, 404, 'not_found');
    expect(authorizerCalls).toEqual([]);
    expect(invoked).toEqual([]);
  });

  it('gives the function the path as sent, percent-escapes included', async () => {
    const answer = await getPath('/api/v1/exchanges/bin%61nce?limit=1');

    expect(answer.status).toBe(200);
    expect(invoked).toEqual(['/api/v1/exchanges/bin%61nce']);
  });
});

describe('local gateway: a method the MCP endpoint does not take', () => {
  it.each(['GET', 'DELETE', 'PUT', 'PATCH'])(
    'answers %s /mcp 405 with Allow: POST and the envelope, before the authorizer',
    async (method) => {
      const answer = await getPath('/mcp', method);

      expectEnvelope(answer, 405, 'method_not_allowed');
      expect(answer.headers.allow).toBe('POST');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(JSON.parse(answer.body)).toEqual({
        error: { code: 'method_not_allowed', message: 'This path takes POST only.', details: null },
      });
      expect(contractProblems({ method, path: '/mcp', ...answer, body: JSON.parse(answer.body) })).toEqual([]);
      expect(authorizerCalls).toEqual([]);
      expect(invoked).toEqual([]);
    },
  );

  it('answers HEAD /mcp 405 without a body, and still serves POST and the preflight', async () => {
    const head = await getPath('/mcp', 'HEAD');
    expect([head.status, head.headers.allow, head.body]).toEqual([405, 'POST', '']);

    const preflight = await getPath('/mcp', 'OPTIONS');
    expect(preflight.status).toBe(204);
    const post = await getPath('/mcp', 'POST');
    expect(post.status).toBe(200);
    expect(invoked).toEqual(['/mcp']);
  });

  it('leaves an unknown method on another path the 404 of CONTRACT §1', async () => {
    const answer = await getPath('/api/v1/exchanges', 'DELETE');

    expectEnvelope(answer, 404, 'not_found');
    expect(answer.headers.allow).toBeUndefined();
    expect(authorizerCalls).toEqual([]);
  });
});

describe('local gateway: the Lambda response limit and coded answers', () => {
  let sized: Server;
  let sizedBase: string;
  /** A function answering a JSON string of `size` characters, gzip-coded when `coded` is set, as the functions code large answers. */
  const sizedAnswer: FamilyHandler = async (event): Promise<ApiResult> => {
    const size = Number(event.queryStringParameters?.size ?? 0);
    const body = JSON.stringify('x'.repeat(Math.max(0, size - 2)));
    if (event.queryStringParameters?.coded) {
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/json; charset=utf-8', 'Content-Encoding': 'gzip' },
        body: gzipSync(body).toString('base64'),
        isBase64Encoded: true,
      };
    }
    return { statusCode: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body };
  };

  beforeAll(async () => {
    sized = createGateway({
      handlers: {
        platforms: sizedAnswer,
        currencies: sizedAnswer,
        offers: sizedAnswer,
        history: sizedAnswer,
        search: sizedAnswer,
        usage: sizedAnswer,
        webhooks: sizedAnswer,
        mcp: sizedAnswer,
      },
      authorizer: async ({ authorizationToken }) => allow(authorizationToken),
      clock: () => NOW,
    });
    await new Promise<void>((resolve) => sized.listen(0, '127.0.0.1', resolve));
    sizedBase = `http://127.0.0.1:${(sized.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => sized.close(() => resolve())));

  const fetchSized = (query: string, encoding = 'identity') =>
    fetch(`${sizedBase}/api/v1/exchanges?${query}`, {
      headers: { Authorization: `Bearer ${KEY}`, 'Accept-Encoding': encoding },
    });

  it('serves a response just under 6 MB and answers one over it as API Gateway does for a failed invocation', async () => {
    // The proxy result's JSON around the body: {"statusCode":200,"headers":{…},"body":…}.
    const envelope = JSON.stringify({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      body: '',
    }).length;
    const under = await fetchSized(`size=${LAMBDA_RESPONSE_LIMIT_BYTES - envelope - 100}`);
    expect(under.status).toBe(200);
    expect((await under.text()).length).toBe(LAMBDA_RESPONSE_LIMIT_BYTES - envelope - 100);

    const over = await fetchSized(`size=${LAMBDA_RESPONSE_LIMIT_BYTES}`);
    expect(over.status).toBe(GATEWAY_RESPONSES.DEFAULT_5XX.statusCode);
    expect(over.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(over.headers.get('cache-control')).toBe('no-store');
    expect(await over.json()).toEqual(JSON.parse(gatewayResponseBody(GATEWAY_RESPONSES.DEFAULT_5XX)));
  });

  it('counts a coded body as its base64 text, and passes a coded answer on without coding it again', async () => {
    // 20 MB of JSON that compresses to a few KB: far under the limit once coded.
    const coded = await fetchSized(`size=${20 * 1024 * 1024}&coded=1`, 'gzip');
    expect(coded.status).toBe(200);
    expect(coded.headers.get('content-encoding')).toBe('gzip');
    expect((await coded.text()).length).toBe(20 * 1024 * 1024);
  });
});
