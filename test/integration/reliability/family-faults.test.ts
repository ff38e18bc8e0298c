/**
 * Fault injection in the four family functions: DynamoDB throttling, timeouts, 5xx, network
 * resets and malformed items, on the quota path and on the data path. The functions run on the
 * embedded DynamoDB holding the fixture dataset; each test breaks exactly one thing by injecting a
 * fault into the real clients (test/helpers/faults.ts): a call that fails, or an answer rewritten.
 *
 * What must hold: the answer is always the JSON envelope with the right code (503
 * service_unavailable with Retry-After for a failing dependency, 500 internal_error for malformed
 * data), never a stack trace, SDK message or table name; the quota fails closed (503 even when the
 * data read succeeded); nothing hangs.
 */
import { deflateRawSync, gzipSync } from 'node:zlib';
import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { pointerKey, QUOTA_PREFIX } from '../../../shared/data/keys';
import { TABLE_PARTITION_KEY, TABLE_SORT_KEY, TTL_ATTRIBUTE } from '../../../shared/data/table';
import type { ApiEvent, ApiResult } from '../../../shared/http/http';
import { importDataset } from '../../../shared/import/importer';
import { setLogSink } from '../../../shared/platform/logger';
import { fixtureDataset } from '../../fixtures/dataset';
import { checkResponse } from '../../helpers/contract';
import { apiEvent, type EventOptions, startTestTable, type TestApi, type TestTable } from '../../helpers/embedded';
import { type Call, injectFaults } from '../../helpers/faults';

/** A table name and an SDK-message marker that must never reach a client. */
const TABLE = 'md-secret-table-7f3a';
const SENTINEL = 'SDK-INTERNAL-DETAIL-5e1d';
const NOW = new Date('2026-11-20T10:00:10.000Z');

type Item = Record<string, unknown>;

/** Attributes that place an item (the table's keys, TTL): everything else is content. */
const PLACEMENT = new Set([TABLE_PARTITION_KEY.name, TABLE_SORT_KEY.name, TTL_ATTRIBUTE]);
const contentOf = (item: Item) => Object.keys(item).filter((name) => !PLACEMENT.has(name));
const sameKey = (a: { PK?: unknown; SK?: unknown } | undefined, b: { PK: string; SK: string }) =>
  a?.PK === b.PK && a?.SK === b.SK;
// ---- faults --------------------------------------------------------------------------------------

/** What a failing DynamoDB throws, as the SDK and Node shape it; every message carries secrets. */
const FAULTS: Record<string, () => Error> = {
  ProvisionedThroughputExceededException: () =>
    new ProvisionedThroughputExceededException({
      message: `${SENTINEL}: the level of configured provisioned throughput for the table ${TABLE} was exceeded`,
      $metadata: { httpStatusCode: 400, requestId: 'REQ1', attempts: 3, totalRetryDelay: 450 },
    }),
  ThrottlingException: () =>
    new ThrottlingException({
      message: `${SENTINEL}: throughput exceeds the current capacity of your table ${TABLE}`,
      $metadata: { httpStatusCode: 400, requestId: 'REQ2', attempts: 3 },
    }),
  TimeoutError: () =>
    Object.assign(
      new Error(
        `${SENTINEL}: @smithy/node-http-handler - a request to ${TABLE} has exceeded the configured 2000 ms requestTimeout.`,
      ),
      {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      },
    ),
  InternalServerError: () =>
    new InternalServerError({
      message: `${SENTINEL}: internal server error on ${TABLE}`,
      $metadata: { httpStatusCode: 500, requestId: 'REQ3', attempts: 3 },
    }),
  ECONNRESET: () =>
    Object.assign(new Error(`${SENTINEL}: read ECONNRESET (${TABLE})`), {
      code: 'ECONNRESET',
      errno: -104,
      syscall: 'read',
    }),
};
const FAULT_NAMES = Object.keys(FAULTS);

/** What breaks, per kind of call; undefined: the table answers. */
interface Breakage {
  /** The quota counters (their writes, and the read after a write's condition failed). */
  quota?: () => Error;
  /** The snapshot pointer read. */
  pointer?: () => Error;
  /** Every other read: records, view sizes, list views, history. */
  reads?: () => Error;
  /** Rewrite an answer (malformed items). */
  get?: (call: Call, out: { Item?: Item }) => { Item?: Item };
  query?: (call: Call, out: { Items: Item[] }) => { Items: Item[] };
  /** Rewrite every item a BatchGetItem returns (a page's document blocks). */
  batch?: (item: Item) => Item;
  update?: (out: { Attributes?: Item }) => { Attributes?: Item };
}
let broken: Breakage;

const commandOf = (call: Call) => call.command.replace(/Command$/, '');
const isPointerRead = (call: Call) => commandOf(call) === 'GetItem' && sameKey(call.input.Key, pointerKey());
const isCounterCall = (call: Call) =>
  typeof call.input.Key?.PK === 'string' && call.input.Key.PK.startsWith(QUOTA_PREFIX);

function fault(call: Call): Error | undefined {
  if (isCounterCall(call)) return broken.quota?.();
  if (isPointerRead(call)) return broken.pointer?.();
  return broken.reads?.();
}

function rewrite(call: Call, output: Record<string, any>): Record<string, any> {
  const command = commandOf(call);
  if (command === 'GetItem' && broken.get) return broken.get(call, output);
  if (command === 'Query' && broken.query) return broken.query(call, output as { Items: Item[] });
  if (command === 'BatchGetItem' && broken.batch) {
    const responses = output.Responses as Record<string, Item[]>;
    return {
      ...output,
      Responses: Object.fromEntries(Object.entries(responses).map(([name, items]) => [name, items.map(broken.batch!)])),
    };
  }
  if (command === 'UpdateItem' && broken.update) return broken.update(output);
  return output;
}

// ---- the routes ----------------------------------------------------------------------------------

type Handler = (event: ApiEvent, context: never) => Promise<ApiResult>;
let table: TestTable;
let HANDLERS: Record<'platforms' | 'currencies' | 'offers' | 'history', Handler>;

/** One request per read shape of each family, with its answer on a healthy table. */
const ROUTES: { fn: keyof typeof HANDLERS; path: string; healthy: number }[] = [
  { fn: 'platforms', path: '/api/v1/exchanges?limit=2&offset=1', healthy: 200 },
  { fn: 'platforms', path: '/api/v1/wallets/trezor', healthy: 200 },
  { fn: 'platforms', path: '/api/v1/protocols/makerdao', healthy: 301 },
  { fn: 'currencies', path: '/api/v1/currencies', healthy: 200 },
  { fn: 'currencies', path: '/api/v1/currencies/bitcoin', healthy: 200 },
  { fn: 'offers', path: '/api/v1/earn?min_apy=4&sort=apy_asc', healthy: 200 },
  { fn: 'offers', path: '/api/v1/borrow/1', healthy: 200 },
  { fn: 'offers', path: '/api/v1/collateral?asset=bitcoin&platform=binance', healthy: 200 },
  { fn: 'history', path: '/api/v1/earn/1/history?period=1w', healthy: 200 },
  { fn: 'history', path: '/api/v1/borrow/1/history?period=all', healthy: 200 },
  { fn: 'history', path: '/api/v1/collateral/1/history', healthy: 404 },
];
/** Routes that read data (collateral history answers 404 without a read). */
const DATA_ROUTES = ROUTES.filter((r) => r.healthy !== 404);
/** Routes that read stored items besides the pointer (a former slug's 301 comes from the loaded index). */
const ITEM_ROUTES = DATA_ROUTES.filter((r) => r.healthy === 200);

interface Answer {
  status: number;
  headers: Record<string, string>;
  raw: string;
  body: unknown;
}

const HANG_LIMIT_MS = 5_000;

/** Invoke the family function with a proxy event; fail (not hang) if it does not answer. */
async function call(fn: keyof typeof HANDLERS, path: string, caller: EventOptions = {}): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${path}: no answer within ${HANG_LIMIT_MS} ms`)), HANG_LIMIT_MS);
  });
  try {
    const result = await Promise.race([
      HANDLERS[fn](apiEvent(path, { perMinute: 1000, perMonth: 100_000, ...caller }), {} as never),
      deadline,
    ]);
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    const raw = result.body ?? '';
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    return { status: result.statusCode, headers, raw, body };
  } finally {
    clearTimeout(timer);
  }
}

/** The error envelope with exactly the code and status given, and nothing that should stay inside. */
function expectEnvelope(answer: Answer, path: string, status: number, code: string, details: unknown = null) {
  // One line with the path, the status and the body, so a failure shows what was answered.
  expect(`${path} -> ${answer.status} ${answer.raw.slice(0, 400)}`).toMatch(
    new RegExp(`^\\S+ -> ${status} \\{"error":`),
  );
  expect(answer.body).toEqual({ error: { code, message: expect.any(String), details } });
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  checkResponse({ method: 'GET', path, status: answer.status, headers: answer.headers, body: answer.body });
  const everything = `${answer.raw}\n${JSON.stringify(answer.headers)}`;
  expect(everything).not.toContain(SENTINEL);
  expect(everything).not.toContain(TABLE);
  for (const leak of [/\bat .+:\d+:\d+/, /node_modules/, /\.ts\b/, /Exception/, /ECONNRESET|ETIMEDOUT/, /\$metadata/]) {
    expect(everything).not.toMatch(leak);
  }
}

function expectServiceUnavailable(answer: Answer, path: string) {
  expectEnvelope(answer, path, 503, 'service_unavailable');
  expect(answer.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
}

let logLines: string[];
let injected: { remove: () => void };
/** The reads of the current test that reached the table and succeeded. */
let succeededReads: number;

beforeAll(async () => {
  setLogSink(() => undefined);
  table = await startTestTable({
    TABLE_NAME: TABLE,
    SNAPSHOT_CACHE_MS: '0',
    RETRY_AFTER_SECONDS: '2',
    READ_CACHE_MB: '0',
  });
  await importDataset(fixtureDataset(), { client: table.client, tableName: table.tableName, now: () => NOW });
  const api: TestApi = table.api({ clock: () => NOW });
  HANDLERS = { platforms: api.platforms, currencies: api.currencies, offers: api.offers, history: api.history };
});

beforeEach(() => {
  broken = {};
  succeededReads = 0;
  injected = injectFaults(table.clients(), fault, (call, output) => {
    if (commandOf(call) !== 'UpdateItem') succeededReads++;
    return rewrite(call, output);
  });
  logLines = [];
  setLogSink((line) => logLines.push(line));
});

afterEach(() => injected.remove());

afterAll(async () => {
  setLogSink(() => undefined);
  await table.close();
});

describe('with nothing broken, every route answers normally', () => {
  it.each(ROUTES.map((r) => [r.path, r] as const))('%s', async (_, route) => {
    const answer = await call(route.fn, route.path);
    expect({ status: answer.status, raw: answer.raw.slice(0, 300) }).toEqual({
      status: route.healthy,
      raw: expect.any(String),
    });
    expect(answer.headers['x-ratelimit-limit']).toBe('1000');
    if (route.healthy === 200) expect(answer.body).toBeDefined();
    checkResponse({
      method: 'GET',
      path: route.path,
      status: answer.status,
      headers: answer.headers,
      body: answer.body,
    });
  });

  it('the list routes read non-empty pages (the faults below hit real reads)', async () => {
    for (const path of [
      '/api/v1/exchanges?limit=2&offset=1',
      '/api/v1/currencies',
      '/api/v1/earn?min_apy=4&sort=apy_asc',
    ]) {
      const fn = path.includes('exchanges') ? 'platforms' : path.includes('currencies') ? 'currencies' : 'offers';
      const answer = await call(fn, path);
      expect((answer.body as { data: unknown[] }).data.length).toBeGreaterThan(0);
    }
  });
});

describe('data path: a failing DynamoDB read gives 503 service_unavailable with Retry-After', () => {
  const cases = DATA_ROUTES.flatMap((route) => FAULT_NAMES.map((fault) => [route.path, fault, route] as const));

  it.each(cases)('%s when the snapshot pointer read fails with %s', async (path, fault, route) => {
    broken.pointer = FAULTS[fault];
    const answer = await call(route.fn, path);
    expectServiceUnavailable(answer, path);
    expect(answer.headers['retry-after']).toBe('2');
  });

  const itemCases = ITEM_ROUTES.flatMap((route) => FAULT_NAMES.map((fault) => [route.path, fault, route] as const));

  it.each(itemCases)('%s when the document and history reads fail with %s', async (path, fault, route) => {
    broken.reads = FAULTS[fault];
    const answer = await call(route.fn, path);
    expectServiceUnavailable(answer, path);
    // The request was charged and says so (usage headers on every authenticated answer: docs/api.md, "Quotas and headers").
    expect(answer.headers['x-ratelimit-limit']).toBe('1000');
    expect(answer.headers['x-quota-remaining']).toMatch(/^[0-9]+$/);
  });

  it.each(FAULT_NAMES)(
    'a cold instance whose index read fails with %s answers 503, and the next request loads it',
    async (fault) => {
      const cold = table.api({ clock: () => NOW }).offers;
      broken.reads = FAULTS[fault];
      const path = '/api/v1/collateral?asset=bitcoin';
      const failed = await cold(apiEvent(path, { perMinute: 1000, perMonth: 100_000 }), {} as never);
      expect(failed.statusCode).toBe(503);
      broken.reads = undefined;
      expect((await cold(apiEvent(path, { perMinute: 1000, perMonth: 100_000 }), {} as never)).statusCode).toBe(200);
    },
  );

  it('logs the failure by name and message only: no stack', async () => {
    broken.reads = FAULTS.InternalServerError;
    await call('platforms', '/api/v1/exchanges');
    const line = logLines.find((l) => l.includes('dependency failure'));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/\bat .+:\d+:\d+/);
  });
});

describe('quota path: the usage counters fail closed', () => {
  const cases = ROUTES.flatMap((route) => FAULT_NAMES.map((fault) => [route.path, fault, route] as const));

  it.each(cases)(
    '%s is 503 when the counters fail with %s, although the data read succeeded',
    async (path, fault, route) => {
      broken.quota = FAULTS[fault];
      const answer = await call(route.fn, path);
      expectServiceUnavailable(answer, path);
      if (route.healthy !== 404) {
        // The read ran (concurrently with the charge) and succeeded: the refusal is the quota's alone.
        expect(succeededReads).toBeGreaterThan(0);
      }
    },
  );

  it.each(FAULT_NAMES)('is 503 when the counter write after a missed guess fails with %s', async (fault) => {
    // Charged by another function this minute: the offers instance, which has not seen the key,
    // expects a new minute; its write's condition fails, and the write the item calls for fails.
    const caller = { keyId: `k_missed_${fault}`, perMinute: 10 };
    expect((await call('platforms', '/api/v1/wallets/trezor', caller)).status).toBe(200);
    let counterWrites = 0;
    injected.remove();
    injected = injectFaults(table.clients(), (c) =>
      isCounterCall(c) && commandOf(c) === 'UpdateItem' && ++counterWrites > 1 ? FAULTS[fault]() : undefined,
    );
    expectServiceUnavailable(await call('offers', '/api/v1/earn', caller), '/api/v1/earn');
    // The guess, then the write the item called for (and its retries, for a throttle).
    expect(counterWrites).toBeGreaterThanOrEqual(2);
  });

  it.each(FAULT_NAMES)('is 503 when both the counters and the data fail with %s', async (fault) => {
    broken.quota = FAULTS[fault];
    broken.reads = FAULTS[fault];
    broken.pointer = FAULTS[fault];
    expectServiceUnavailable(await call('currencies', '/api/v1/currencies/bitcoin'), '/api/v1/currencies/bitcoin');
  });

  it('a per-minute refusal still wins over a data failure (429, not 503)', async () => {
    const caller = { keyId: 'k_limited', perMinute: 1 };
    expect((await call('platforms', '/api/v1/wallets/trezor', caller)).status).toBe(200);
    broken.reads = FAULTS.TimeoutError;
    const answer = await call('platforms', '/api/v1/wallets/trezor', caller);
    expectEnvelope(answer, '/api/v1/wallets/trezor', 429, 'rate_limit_exceeded', {
      reset_at: expect.any(String),
      limit: 1,
    });
    expect(answer.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  });
});

describe('malformed items: 500 internal_error, never a broken or empty 200', () => {
  /** The item without its content (its document): only the attributes that place it. */
  const withoutDoc = (item: Item | undefined) =>
    item ? Object.fromEntries(Object.entries(item).filter(([name]) => PLACEMENT.has(name))) : item;
  /** The item with every content attribute replaced. */
  const corrupt = (item: Item, value: () => unknown): Item => ({
    ...item,
    ...Object.fromEntries(contentOf(item).map((name) => [name, value()])),
  });

  const isBlock = (item: Item | undefined) => typeof item?.PK === 'string' && item.PK.startsWith('DOC#');

  it("a list's document blocks come back without their content", async () => {
    broken.get = (_, out) => (isBlock(out.Item) ? { ...out, Item: withoutDoc(out.Item) } : out);
    broken.batch = (item) => (isBlock(item) ? withoutDoc(item)! : item);
    expectEnvelope(await call('platforms', '/api/v1/exchanges'), '/api/v1/exchanges', 500, 'internal_error');
  });

  it('an offer detail Get returns an item without its document', async () => {
    broken.get = (c, out) => (isPointerRead(c) ? out : { ...out, Item: withoutDoc(out.Item) });
    expectEnvelope(await call('offers', '/api/v1/earn/1'), '/api/v1/earn/1', 500, 'internal_error');
  });

  it('a platform detail Get returns an item without its document', async () => {
    broken.get = (c, out) => (isPointerRead(c) ? out : { ...out, Item: withoutDoc(out.Item) });
    expectEnvelope(
      await call('platforms', '/api/v1/exchanges/binance'),
      '/api/v1/exchanges/binance',
      500,
      'internal_error',
    );
  });

  it('a currency detail Get returns an item without its document', async () => {
    broken.get = (c, out) => (isPointerRead(c) ? out : { ...out, Item: withoutDoc(out.Item) });
    expectEnvelope(
      await call('currencies', '/api/v1/currencies/bitcoin'),
      '/api/v1/currencies/bitcoin',
      500,
      'internal_error',
    );
  });

  it.each([
    ['a number', 42],
    ['a map', { S: 'v1' }],
    ['an empty string', ''],
  ])('the snapshot pointer holds a version that is %s', async (_, version) => {
    broken.get = (c, out) => (isPointerRead(c) && out.Item ? { ...out, Item: corrupt(out.Item, () => version) } : out);
    expectEnvelope(await call('currencies', '/api/v1/currencies'), '/api/v1/currencies', 500, 'internal_error');
  });

  it('a stored document that is not JSON (a block of the right shape, its text broken)', async () => {
    const broke = (item: Item) =>
      isBlock(item) ? { ...item, z: deflateRawSync('{"slug":"binance","name":"Bin') } : item;
    broken.get = (_, out) => (out.Item ? { ...out, Item: broke(out.Item) } : out);
    broken.batch = broke;
    const answer = await call('platforms', '/api/v1/exchanges/binance');
    expectEnvelope(answer, '/api/v1/exchanges/binance', 500, 'internal_error');
    expect(answer.headers.etag).toBeUndefined();
  });

  it('an index segment that does not decode, on a cold instance', async () => {
    const cold = table.api({ clock: () => NOW }).platforms;
    broken.get = (_, out) =>
      // A version's whole index (`V#<version>#INDEX`).
      typeof out.Item?.PK === 'string' && out.Item.PK.endsWith('#INDEX')
        ? { ...out, Item: { ...out.Item, z: gzipSync('{"kind":"catalog"}') } }
        : out;
    const answer = await cold(apiEvent('/api/v1/wallets', { perMinute: 1000, perMonth: 100_000 }), {} as never);
    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(answer.body ?? '')).toEqual({
      error: { code: 'internal_error', message: expect.any(String), details: null },
    });
  });

  it('history items whose content is not valid JSON', async () => {
    broken.query = (_, out) => ({
      ...out,
      Items: out.Items.map((item) => corrupt(item, () => '[[1763600000000,"4.1",nu')),
    });
    const path = '/api/v1/earn/1/history?period=1w';
    expectEnvelope(await call('history', path), path, 500, 'internal_error');
  });

  it('history items whose content is not points', async () => {
    broken.query = (_, out) => ({ ...out, Items: out.Items.map((item) => corrupt(item, () => '{"points":1}')) });
    const path = '/api/v1/borrow/1/history?period=all';
    expectEnvelope(await call('history', path), path, 500, 'internal_error');
  });

  it('a quota counter update that returns no count does not serve the request', async () => {
    broken.update = (out) => ({ ...out, Attributes: {} });
    const answer = await call('platforms', '/api/v1/exchanges');
    expectEnvelope(answer, '/api/v1/exchanges', 500, 'internal_error');
  });

  it('the 500 is logged, and the client sees only the envelope', async () => {
    broken.query = (_, out) => ({ ...out, Items: out.Items.map((item) => corrupt(item, () => 'not json')) });
    await call('history', '/api/v1/earn/1/history?period=1w');
    expect(logLines.some((l) => l.includes('unhandled error'))).toBe(true);
  });
});
