/**
 * The local stack end to end over HTTP: route matching, the authorizer, quotas and handlers in the
 * order of docs/api.md ("Quotas and headers"), with the demo accounts (data/demo-accounts.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { bundlesUnderTest, clockUnderTest } from '../helpers/bundles';
import { get } from '../helpers/client';

const accounts = JSON.parse(readFileSync(join(__dirname, '../../data/demo-accounts.json'), 'utf8'));
const keyOf = (user: string, revoked = false) =>
  accounts.users
    .find((u: { id: string }) => u.id === user)
    .keys.find((k: { revoked?: boolean }) => Boolean(k.revoked) === revoked).key as string;

const DEMO = keyOf('demo');
const USAGE = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-quota-limit',
  'x-quota-remaining',
  'x-quota-reset',
];

/** The stack's clock: the fixture's instant, or the process clock the bundles read. */
const clock = clockUnderTest(NOW);
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    dataset: fixtureDataset(),
    accounts,
    bundles: bundlesUnderTest(),
    clock,
  });
});
afterAll(() => stack.close());

const call = (path: string, key?: string | null, headers?: Record<string, string>, method?: string) =>
  get(stack.url, path, { key, headers, method });

it('serves the functions it was asked for: the synthesized bundles with LOCAL_BUNDLES, else the sources', () => {
  expect(stack.bundledStack === undefined).toBe(bundlesUnderTest() === undefined);
});

describe('before authentication', () => {
  it.each([
    ['GET', '/api/v1/nothing'],
    ['GET', '/api/v2/exchanges'],
    ['GET', '/api/v1/exchanges/binance/extra'],
    ['POST', '/api/v1/exchanges'],
    ['DELETE', '/api/v1/earn/1'],
  ])('%s %s is 404 not_found without a key and without usage headers', async (method, path) => {
    const res = await call(path, null, undefined, method);
    expect(res.status).toBe(404);
    if (method === 'GET') expect(res.body.error.code).toBe('not_found');
    for (const header of USAGE) expect(res.headers[header]).toBeUndefined();
  });
});

describe('authentication', () => {
  it.each([
    ['no Authorization header', undefined],
    ['another scheme', { Authorization: `Basic ${DEMO}` }],
    ['a malformed key', { Authorization: 'Bearer short' }],
    ['an unknown key', { Authorization: `Bearer ${'x'.repeat(40)}` }],
    ['a revoked key', { Authorization: `Bearer ${keyOf('demo', true)}` }],
  ])('%s is 401 invalid_api_key, no budget, no usage headers', async (_, headers) => {
    const res = await call('/api/v1/exchanges', null, headers);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_api_key');
    for (const header of USAGE) expect(res.headers[header]).toBeUndefined();
  });

  it.each(['free', 'lapsed'])('a key of user %s (no active premium) is 403 subscription_required', async (user) => {
    const res = await call('/api/v1/exchanges', keyOf(user));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('subscription_required');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('accepts the scheme word in any case, with usage headers on the answer', async () => {
    const res = await call('/api/v1/exchanges?limit=1', null, { Authorization: `bEaReR ${DEMO}` });
    expect(res.status).toBe(200);
    for (const header of USAGE) expect(res.headers[header]).toMatch(/^\d+$/);
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});

describe('after authentication', () => {
  it('redirects a former slug with the request path and query', async () => {
    const res = await call('/api/v1/exchanges/bybit-old?limit=1', DEMO);
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/api/v1/exchanges/bybit?limit=1');
    expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  });

  it.each(['exchanges', 'wallets', 'protocols', 'currencies'])(
    'refuses a %s slug over 256 characters by name (400), and looks up one of 256 (404)',
    async (family) => {
      const long = await call(`/api/v1/${family}/${'a'.repeat(257)}?limit=0`, DEMO);
      expect(long.status).toBe(400);
      expect(long.body.error).toMatchObject({
        code: 'validation_error',
        details: { message: ['slug must not be longer than 256 characters'] },
      });
      expect(long.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
      // Code points, as the description's maxLength counts them: 256 of them in 512 UTF-16 units.
      const astral = await call(`/api/v1/${family}/${encodeURIComponent('🙂'.repeat(256))}`, DEMO);
      expect(astral.status).toBe(404);
      expect((await call(`/api/v1/${family}/${'a'.repeat(256)}`, DEMO)).status).toBe(404);
    },
  );

  it('answers collateral history 404 whatever the id and query', async () => {
    const res = await call('/api/v1/collateral/not-a-number/history?period=nope', DEMO);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('refuses the fourth request of a minute on a key limited to 3, with Retry-After', async () => {
    const limited = keyOf('limited');
    // Start well inside a UTC minute so that the four requests share one window.
    const intoMinute = clock().getTime() % 60_000;
    if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call('/api/v1/wallets?limit=1', limited));

    expect(new Set(answers.map((a) => a.headers['x-ratelimit-reset'])).size).toBe(1);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    expect(answers[3].body.error).toMatchObject({ code: 'rate_limit_exceeded', details: { limit: 3 } });
    expect(Number(answers[3].headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('headers of every answer', () => {
  it.each([
    ['an unknown route (404 before authentication)', '/api/v1/nothing', null, 404],
    ['no key (401)', '/api/v1/exchanges', null, 401],
    ['a key without a subscription (403)', '/api/v1/exchanges', keyOf('free'), 403],
    ['a validation error of a function (400)', '/api/v1/exchanges?limit=0', DEMO, 400],
    ['an unknown slug (404 of a function)', '/api/v1/exchanges/nope', DEMO, 404],
    ['a small list (200, not compressed)', '/api/v1/wallets?limit=1', DEMO, 200],
    ['a history (200 without a validator)', '/api/v1/earn/1/history?period=24h', DEMO, 200],
  ])('%s: Cache-Control, Vary: Accept-Encoding and the one JSON content type', async (_case, path, key, status) => {
    const res = await call(path, key);
    expect(res.status).toBe(status);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe(
      status === 200 && !path.includes('/history') ? 'private, no-cache' : 'no-store',
    );
    // A history answer has a CSV representation too (docs/api.md, "CSV"): it varies on Accept as well.
    expect(res.headers.vary).toBe(
      path.includes('/history') && status === 200 ? 'Accept, Accept-Encoding' : 'Accept-Encoding',
    );
  });
});
