/**
 * Fault injection in the four family functions (issue part 4): DynamoDB throttling, timeouts,
 * 5xx, network resets and malformed items, on the quota path and on the data path. The document
 * client is mocked with aws-sdk-client-mock over an in-memory copy of the fixture's snapshot, so
 * every route first answers normally and each test breaks exactly one thing.
 *
 * What must hold: the answer is always the JSON envelope with the right code (503
 * service_unavailable with Retry-After for a failing dependency, 500 internal_error for malformed
 * data), never a stack trace, SDK message or table name; the quota fails closed (503 even when the
 * data read succeeded); nothing hangs.
 */
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { buildFunctions } from '../../../local/functions';
import { ENV, readConfig } from '../../../shared/config';
import type { ApiEvent, ApiResult } from '../../../shared/http';
import { projectSnapshot, type CompleteDataset } from '../../../shared/import/project';
import { pointerKey, QUOTA_PREFIX, viewPartition } from '../../../shared/keys';
import { setLogSink } from '../../../shared/logger';
import { parseDataset } from '../../../shared/schemas/dataset';
import { fixtureDataset } from '../../fixtures/dataset';
import { checkResponse } from '../../helpers/contract';
import { apiEvent, type EventOptions } from '../../helpers/embedded';

const ddb = mockClient(DynamoDBDocumentClient);

/** A table name and an SDK-message marker that must never reach a client. */
const TABLE = 'md-secret-table-7f3a';
const SENTINEL = 'SDK-INTERNAL-DETAIL-5e1d';
const VERSION = 'v0000000000000000001';

// ---- an in-memory table answering the commands the read path and the quota store send ----------

type Item = Record<string, unknown>;
const rowKey = (pk: unknown, sk: unknown) => `${String(pk)}\u0000${String(sk)}`;

const snapshotItems: Item[] = projectSnapshot(VERSION, parseDataset(fixtureDataset()) as CompleteDataset);
let rows: Map<string, Item>;

function resetRows() {
  rows = new Map(snapshotItems.map((item) => [rowKey(item.PK, item.SK), structuredClone(item)]));
  rows.set(rowKey(pointerKey().PK, pointerKey().SK), { ...pointerKey(), version: VERSION });
}

const compare = (a: unknown, b: unknown) => ((a as number | string) < (b as number | string) ? -1 : (a as number | string) > (b as number | string) ? 1 : 0);

/** `#a = :b`, `#a >= :b` and `#a BETWEEN :b AND :c` clauses joined by AND (the shapes the stores use). */
function matches(item: Item, expression: string, names: Record<string, string> = {}, values: Record<string, unknown> = {}): boolean {
  const attr = (token: string) => item[token.startsWith('#') ? names[token] : token];
  const clauses = expression.split(/ AND (?![^ ]+$)(?=\S+ (?:=|>=|BETWEEN) )/);
  return clauses.every((clause) => {
    const between = /^(\S+) BETWEEN (\S+) AND (\S+)$/.exec(clause);
    if (between) {
      const v = attr(between[1]);
      return v !== undefined && compare(v, values[between[2]]) >= 0 && compare(v, values[between[3]]) <= 0;
    }
    const binary = /^(\S+) (=|>=) (\S+)$/.exec(clause);
    if (!binary) throw new Error(`fake table: unsupported clause ${clause}`);
    const v = attr(binary[1]);
    if (v === undefined) return false;
    return binary[2] === '=' ? v === values[binary[3]] : compare(v, values[binary[3]]) >= 0;
  });
}

function fakeGet(input: { Key: { PK: string; SK: string } }) {
  const item = rows.get(rowKey(input.Key.PK, input.Key.SK));
  return { Item: item && structuredClone(item), $metadata: {} };
}

function fakeQuery(input: {
  IndexName?: string;
  KeyConditionExpression: string;
  FilterExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
  Limit?: number;
}) {
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const sortKey = input.IndexName ? `${input.IndexName}SK` : 'SK';
  let items = [...rows.values()].filter((item) => matches(item, input.KeyConditionExpression, names, values));
  items.sort((a, b) => compare(a[sortKey], b[sortKey]));
  if (input.Limit) items = items.slice(0, input.Limit);
  if (input.FilterExpression) items = items.filter((item) => matches(item, input.FilterExpression!, names, values));
  return { Items: items.map((item) => structuredClone(item)), $metadata: {} };
}

const counters = new Map<string, number>();
function fakeUpdate(input: { Key: { PK: string }; ExpressionAttributeValues: Record<string, number> }) {
  const values = input.ExpressionAttributeValues;
  const current = counters.get(input.Key.PK);
  if (values[':limit'] !== undefined && current !== undefined && current >= values[':limit']) {
    throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
  }
  const next = (current ?? 0) + (values[':one'] ?? values[':minus'] ?? 0);
  counters.set(input.Key.PK, next);
  return { Attributes: { count: next }, $metadata: {} };
}

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
    Object.assign(new Error(`${SENTINEL}: @smithy/node-http-handler - a request to ${TABLE} has exceeded the configured 2000 ms requestTimeout.`), {
      name: 'TimeoutError',
      code: 'ETIMEDOUT',
    }),
  InternalServerError: () =>
    new InternalServerError({ message: `${SENTINEL}: internal server error on ${TABLE}`, $metadata: { httpStatusCode: 500, requestId: 'REQ3', attempts: 3 } }),
  ECONNRESET: () => Object.assign(new Error(`${SENTINEL}: read ECONNRESET (${TABLE})`), { code: 'ECONNRESET', errno: -104, syscall: 'read' }),
};
const FAULT_NAMES = Object.keys(FAULTS);

/** What the fake table does instead of answering, per kind of request. */
interface Breakage {
  /** The two quota counters (UpdateCommand). */
  quota?: () => Error;
  /** Only the monthly counter. */
  monthlyQuota?: () => Error;
  /** The snapshot pointer read. */
  pointer?: () => Error;
  /** Every other read: records, view sizes, list views, history chunks. */
  reads?: () => Error;
  /** Rewrite an answer (malformed items). */
  get?: (input: { Key: { PK: string; SK: string } }, out: { Item?: Item }) => { Item?: Item };
  query?: (input: { IndexName?: string }, out: { Items: Item[] }) => { Items: Item[] };
  update?: (out: { Attributes: Item }) => { Attributes: Item };
}
let broken: Breakage;

const isPointer = (key: { PK: string; SK: string }) => key.PK === pointerKey().PK && key.SK === pointerKey().SK;

function installTable() {
  ddb.on(GetCommand).callsFake(async (input) => {
    if (isPointer(input.Key) && broken.pointer) throw broken.pointer();
    if (!isPointer(input.Key) && broken.reads) throw broken.reads();
    const out = fakeGet(input);
    return broken.get ? broken.get(input, out) : out;
  });
  ddb.on(QueryCommand).callsFake(async (input) => {
    if (broken.reads) throw broken.reads();
    const out = fakeQuery(input);
    return broken.query ? broken.query(input, out) : out;
  });
  ddb.on(UpdateCommand).callsFake(async (input) => {
    if (!String(input.Key.PK).startsWith(QUOTA_PREFIX)) throw new Error('unexpected update');
    if (broken.quota) throw broken.quota();
    if (broken.monthlyQuota && /#MON#/.test(input.Key.PK)) throw broken.monthlyQuota();
    const out = fakeUpdate(input);
    return broken.update ? broken.update(out) : out;
  });
}

// ---- the routes ----------------------------------------------------------------------------------

type Handler = (event: ApiEvent, context: never) => Promise<ApiResult>;
const mockedClient = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const config = readConfig({ [ENV.tableName]: TABLE, [ENV.snapshotCacheMs]: '0', [ENV.retryAfterSeconds]: '2' });
const HANDLERS: Record<string, Handler> = { ...buildFunctions(config, { client: mockedClient, counterClient: mockedClient }).handlers };

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
    const result = await Promise.race([HANDLERS[fn](apiEvent(path, { perMinute: 1000, perMonth: 100_000, ...caller }), {} as never), deadline]);
    const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
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
  expect(`${path} -> ${answer.status} ${answer.raw.slice(0, 400)}`).toMatch(new RegExp(`^\\S+ -> ${status} \\{"error":`));
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

beforeEach(() => {
  ddb.reset();
  resetRows();
  counters.clear();
  broken = {};
  installTable();
  logLines = [];
  setLogSink((line) => logLines.push(line));
});

afterAll(() => {
  setLogSink((line) => process.stdout.write(`${line}\n`));
  ddb.restore();
});

describe('the fake table is faithful enough: every route answers normally when nothing is broken', () => {
  it.each(ROUTES.map((r) => [r.path, r] as const))('%s', async (_, route) => {
    const answer = await call(route.fn, route.path);
    expect({ status: answer.status, raw: answer.raw.slice(0, 300) }).toEqual({ status: route.healthy, raw: expect.any(String) });
    expect(answer.headers['x-ratelimit-limit']).toBe('1000');
    if (route.healthy === 200) expect(answer.body).toBeDefined();
    checkResponse({ method: 'GET', path: route.path, status: answer.status, headers: answer.headers, body: answer.body });
  });

  it('the list routes read non-empty pages (the faults below hit real reads)', async () => {
    for (const path of ['/api/v1/exchanges?limit=2&offset=1', '/api/v1/currencies', '/api/v1/earn?min_apy=4&sort=apy_asc']) {
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

  it.each(cases)('%s when the record and view reads (Get/Query) fail with %s', async (path, fault, route) => {
    broken.reads = FAULTS[fault];
    const answer = await call(route.fn, path);
    expectServiceUnavailable(answer, path);
    // The request was charged and says so (CONTRACT §6: usage headers on every authenticated answer).
    expect(answer.headers['x-ratelimit-limit']).toBe('1000');
    expect(answer.headers['x-quota-remaining']).toMatch(/^[0-9]+$/);
  });

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

  it.each(cases)('%s is 503 when the counters fail with %s, although the data read succeeded', async (path, fault, route) => {
    broken.quota = FAULTS[fault];
    const answer = await call(route.fn, path);
    expectServiceUnavailable(answer, path);
    if (route.healthy !== 404) {
      // The read ran (concurrently with the charge) and succeeded: the refusal is the quota's alone.
      const reads = [...ddb.commandCalls(GetCommand), ...ddb.commandCalls(QueryCommand)];
      expect(reads.length).toBeGreaterThan(0);
      for (const read of reads) await expect(read.returnValue).resolves.toBeDefined();
    }
  });

  it.each(FAULT_NAMES)('is 503 when only the monthly counter fails with %s', async (fault) => {
    broken.monthlyQuota = FAULTS[fault];
    expectServiceUnavailable(await call('offers', '/api/v1/earn'), '/api/v1/earn');
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
    expectEnvelope(answer, '/api/v1/wallets/trezor', 429, 'rate_limit_exceeded', { reset_at: expect.any(String), limit: 1 });
    expect(answer.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  });

  it('a refusal whose monthly unit cannot be given back is still a 429 with its headers', async () => {
    const minute = /#MIN#/;
    let first = true;
    ddb.on(UpdateCommand).callsFake(async (input) => {
      if (minute.test(input.Key.PK)) throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
      if (input.ExpressionAttributeValues[':minus'] !== undefined) throw FAULTS.ThrottlingException();
      const out = { Attributes: { count: first ? 5 : 6 }, $metadata: {} };
      first = false;
      return out;
    });
    const answer = await call('offers', '/api/v1/borrow/1');
    expect(answer.status).toBe(429);
    expect((answer.body as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    expect(answer.headers['x-ratelimit-remaining']).toBe('0');
    expect(answer.raw).not.toContain(SENTINEL);
  });
});

describe('malformed items: 500 internal_error, never a broken or empty 200', () => {
  const withoutDoc = (item: Item | undefined) => {
    if (!item) return item;
    const { doc: _doc, ...rest } = item;
    return rest;
  };

  it('a list Query returns an item without `doc`', async () => {
    broken.query = (_, out) => ({ ...out, Items: out.Items.map((item, i) => (i === 0 ? withoutDoc(item)! : item)) });
    expectEnvelope(await call('platforms', '/api/v1/exchanges'), '/api/v1/exchanges', 500, 'internal_error');
  });

  it('an offer detail Get returns an item without `doc`', async () => {
    broken.get = (input, out) => (input.Key.SK === 'ITEM' ? { ...out, Item: withoutDoc(out.Item) } : out);
    expectEnvelope(await call('offers', '/api/v1/earn/1'), '/api/v1/earn/1', 500, 'internal_error');
  });

  it('a platform detail Get returns an item without `doc`', async () => {
    broken.get = (input, out) => (input.Key.SK === 'ITEM' ? { ...out, Item: withoutDoc(out.Item) } : out);
    expectEnvelope(await call('platforms', '/api/v1/exchanges/binance'), '/api/v1/exchanges/binance', 500, 'internal_error');
  });

  it('a currency detail Get returns an item without `doc`', async () => {
    broken.get = (input, out) => (input.Key.SK === 'ITEM' ? { ...out, Item: withoutDoc(out.Item) } : out);
    expectEnvelope(await call('currencies', '/api/v1/currencies/bitcoin'), '/api/v1/currencies/bitcoin', 500, 'internal_error');
  });

  it.each([
    ['a number', 42],
    ['a map', { S: VERSION }],
    ['an empty string', ''],
  ])('the snapshot pointer holds a version that is %s', async (_, version) => {
    rows.set(rowKey(pointerKey().PK, pointerKey().SK), { ...pointerKey(), version });
    expectEnvelope(await call('currencies', '/api/v1/currencies'), '/api/v1/currencies', 500, 'internal_error');
  });

  it('a list view size (`n`) that is not a number', async () => {
    const meta = rowKey(viewPartition(VERSION, 'wallets'), 'META');
    rows.set(meta, { ...rows.get(meta), n: 'many' });
    expectEnvelope(await call('platforms', '/api/v1/wallets'), '/api/v1/wallets', 500, 'internal_error');
  });

  it('a history chunk whose points are not valid JSON', async () => {
    broken.query = (_, out) => ({ ...out, Items: out.Items.map((item) => (typeof item.pts === 'string' ? { ...item, pts: '[[1763600000000,"4.1",nu' } : item)) });
    const path = '/api/v1/earn/1/history?period=1w';
    expectEnvelope(await call('history', path), path, 500, 'internal_error');
  });

  it('a history chunk whose points are not an array of points', async () => {
    broken.query = (_, out) => ({ ...out, Items: out.Items.map((item) => (typeof item.pts === 'string' ? { ...item, pts: '{"points":1}' } : item)) });
    const path = '/api/v1/borrow/1/history?period=all';
    expectEnvelope(await call('history', path), path, 500, 'internal_error');
  });

  it('a quota counter update that returns no count does not serve the request', async () => {
    broken.update = (out) => ({ ...out, Attributes: {} });
    const answer = await call('platforms', '/api/v1/exchanges');
    expectEnvelope(answer, '/api/v1/exchanges', 500, 'internal_error');
  });

  it('the 500 is logged, and the client sees only the envelope', async () => {
    broken.query = (_, out) => ({ ...out, Items: out.Items.map((item) => (typeof item.pts === 'string' ? { ...item, pts: 'not json' } : item)) });
    await call('history', '/api/v1/earn/1/history?period=1w');
    expect(logLines.some((l) => l.includes('unhandled error'))).toBe(true);
  });
});
