/**
 * What the API description 1.1.0 adds for client developers, end to end through the local gateway
 * (docs/api.md): `GET /api/v1/usage`, the standard RateLimit fields, and conditional requests with
 * ETag, If-None-Match and 304, gzip included. Every answer is checked against docs/openapi.json.
 */
import { request } from 'node:http';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { fixtureDataset } from '../fixtures/dataset';
import { get, type TestResponse } from '../helpers/client';

const KEY = 'usage_key_0123456789abcdefghijklmnopqr';
const DATED_KEY = 'dated_key_0123456789abcdefghijklmnopqr';
const TWO_PER_MINUTE = 'two_per_minute_0123456789abcdefghijklm';
const NOW = new Date('2026-11-20T10:00:30.000Z');

const ACCOUNTS = {
  users: [
    {
      id: 'open',
      premium: true,
      keys: [
        { key: KEY, per_minute: 100, per_month: 5000 },
        { key: TWO_PER_MINUTE, per_minute: 2 },
      ],
    },
    { id: 'dated', premium: true, premium_until: '2027-03-01T00:00:00.000Z', keys: [{ key: DATED_KEY }] },
  ],
};

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ dataset: fixtureDataset(), accounts: ACCOUNTS, clock: () => NOW });
});
afterAll(() => stack.close());

const call = (path: string, key: string | null, headers?: Record<string, string>) =>
  get(stack.url, path, { key, headers });

/** Raw bytes and headers of an answer, without decoding (to see what went over the wire). */
function raw(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${stack.url}${path}`, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

const number = (res: TestResponse, header: string) => Number(res.headers[header]);

describe('GET /api/v1/usage', () => {
  it('gives the plan, limits and both budgets, this request included, as its usage headers do', async () => {
    const first = await call('/api/v1/usage', KEY);
    const second = await call('/api/v1/usage', KEY);

    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      plan: 'premium',
      premium_until: null,
      limits: { per_minute: 100, per_month: 5000 },
      minute: { used: 1, remaining: 99, reset_at: '2026-11-20T10:01:00.000Z' },
      month: { used: 1, remaining: 4999, reset_at: '2026-12-01T00:00:00.000Z' },
    });
    expect(second.body.minute).toMatchObject({ used: 2, remaining: 98 });
    for (const res of [first, second]) {
      expect(res.body.minute.remaining).toBe(number(res, 'x-ratelimit-remaining'));
      expect(res.body.month.remaining).toBe(number(res, 'x-quota-remaining'));
      expect(Date.parse(res.body.minute.reset_at) / 1000).toBe(number(res, 'x-ratelimit-reset'));
      expect(Date.parse(res.body.month.reset_at) / 1000).toBe(number(res, 'x-quota-reset'));
      expect(res.headers.etag).toBeUndefined();
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('gives the end of a dated subscription', async () => {
    const res = await call('/api/v1/usage', DATED_KEY);
    expect(res.body).toMatchObject({
      premium_until: '2027-03-01T00:00:00.000Z',
      limits: { per_minute: 60, per_month: 100000 },
    });
  });

  it('needs a key like any data endpoint, and refuses a query parameter after charging it', async () => {
    expect((await call('/api/v1/usage', null)).status).toBe(401);
    const before = await call('/api/v1/usage', KEY);
    const bad = await call('/api/v1/usage?x=1', KEY);
    const after = await call('/api/v1/usage', KEY);
    expect(bad.status).toBe(400);
    expect(after.body.minute.used).toBe(before.body.minute.used + 2);
  });
});

describe('RateLimit fields', () => {
  it('come beside the X-* headers on 200 and 429, with the same numbers, readable by browsers', async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await call('/api/v1/wallets?limit=1', TWO_PER_MINUTE));

    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    for (const res of answers) {
      expect(res.headers['ratelimit-policy']).toBe(`"minute";q=2;w=60, "month";q=${res.headers['x-quota-limit']}`);
      const [, minuteLeft, minuteReset, monthLeft] =
        /^"minute";r=(\d+);t=(\d+), "month";r=(\d+);t=\d+$/.exec(res.headers.ratelimit) ?? [];
      expect(Number(minuteLeft)).toBe(number(res, 'x-ratelimit-remaining'));
      expect(Number(monthLeft)).toBe(number(res, 'x-quota-remaining'));
      expect(Number(minuteReset)).toBe(30);
      const exposed = res.headers['access-control-expose-headers'].split(',');
      expect(exposed).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'ETag']));
    }
    expect(answers[2].headers['retry-after']).toBe('30');
  });

  it('are not sent before authentication', async () => {
    const res = await call('/api/v1/wallets', null);
    expect(res.status).toBe(401);
    expect(res.headers.ratelimit).toBeUndefined();
    expect(res.headers['ratelimit-policy']).toBeUndefined();
  });
});

describe('conditional requests', () => {
  it('tag lists and details with a strong ETag that follows the body', async () => {
    const list = await call('/api/v1/exchanges?limit=2', KEY);
    const again = await call('/api/v1/exchanges?limit=2', KEY);
    const other = await call('/api/v1/exchanges?limit=1', KEY);
    const detail = await call('/api/v1/exchanges/binance', KEY);

    expect(list.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(again.headers.etag).toBe(list.headers.etag);
    expect(other.headers.etag).not.toBe(list.headers.etag);
    expect(detail.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(list.headers['cache-control']).toBe('private, no-cache');
  });

  it('answers a matching If-None-Match with 304, no body, the ETag and usage headers, and charges it', async () => {
    const first = await call('/api/v1/earn?limit=5', KEY);
    const etag = first.headers.etag;

    const notModified = await call('/api/v1/earn?limit=5', KEY, { 'If-None-Match': etag });

    expect(notModified.status).toBe(304);
    expect(notModified.raw).toBe('');
    expect(notModified.headers.etag).toBe(etag);
    expect(notModified.headers['cache-control']).toBe('private, no-cache');
    expect(notModified.headers['content-type']).toBeUndefined();
    expect(number(notModified, 'x-ratelimit-remaining')).toBe(number(first, 'x-ratelimit-remaining') - 1);
    expect(number(notModified, 'x-quota-remaining')).toBe(number(first, 'x-quota-remaining') - 1);
    expect(notModified.headers.ratelimit).toMatch(/^"minute";r=\d+;t=\d+, "month";r=\d+;t=\d+$/);
  });

  it.each([
    ['a list of tags holding it', (tag: string) => `"other", ${tag}`, 304],
    ['its weak form', (tag: string) => `W/${tag}`, 304],
    ['*', () => '*', 304],
    ['another tag', () => '"not-this-one"', 200],
    ['a malformed value', () => 'garbage', 200],
  ])('compares If-None-Match %s as RFC 9110 does', async (_, value, status) => {
    const { headers } = await call('/api/v1/currencies/bitcoin', KEY);
    const res = await call('/api/v1/currencies/bitcoin', KEY, { 'If-None-Match': value(headers.etag) });
    expect(res.status).toBe(status);
  });

  it('gives history no ETag and answers it in full whatever If-None-Match says', async () => {
    const res = await call('/api/v1/earn/1/history?period=24h', KEY, { 'If-None-Match': '*' });
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('never turns a refusal or an error into a 304', async () => {
    const notFound = await call('/api/v1/exchanges/nope', KEY, { 'If-None-Match': '*' });
    expect(notFound.status).toBe(404);
    const refused = await call('/api/v1/wallets', TWO_PER_MINUTE, { 'If-None-Match': '*' });
    expect(refused.status).toBe(429);
  });

  it('tags each coding of a body with its own strong ETag, and answers each 304 without a body', async () => {
    const plain = await raw('/api/v1/earn?limit=200', { Authorization: `Bearer ${KEY}` });
    const gzip = await raw('/api/v1/earn?limit=200', { Authorization: `Bearer ${KEY}`, 'Accept-Encoding': 'gzip' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    // An offer list has a CSV representation too: it varies on Accept as well (docs/api.md, "CSV").
    expect(plain.headers.vary).toBe('Accept, Accept-Encoding');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.vary).toBe('Accept, Accept-Encoding');
    // The gzip bytes are another representation: another strong tag (RFC 9110 §8.8.3), of the same body.
    expect(gzip.headers.etag).toBe(String(plain.headers.etag).replace(/"$/, '-gzip"'));

    for (const [encoding, etag] of [
      ['gzip', gzip.headers.etag],
      ['identity', plain.headers.etag],
    ]) {
      const notModified = await raw('/api/v1/earn?limit=200', {
        Authorization: `Bearer ${KEY}`,
        'Accept-Encoding': String(encoding),
        'If-None-Match': String(etag),
      });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.etag).toBe(etag);
      expect(notModified.bytes).toBe(0);
      expect(notModified.headers['content-encoding']).toBeUndefined();
      expect(notModified.headers['content-length']).toBeUndefined();
    }
    // A tag of the other coding names another representation: the full answer.
    const other = await raw('/api/v1/earn?limit=200', {
      Authorization: `Bearer ${KEY}`,
      'Accept-Encoding': 'gzip',
      'If-None-Match': String(plain.headers.etag),
    });
    expect(other.status).toBe(200);
  });

  it('lets browsers send If-None-Match (preflight)', async () => {
    const preflight = await get(stack.url, '/api/v1/earn', { method: 'OPTIONS' });
    expect(preflight.headers['access-control-allow-headers'].split(',')).toContain('If-None-Match');
  });
});
