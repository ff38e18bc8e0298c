/**
 * The request metrics: one EMF line per request, namespace MarketDataApi, the Route dimension
 * only, and values that match what the request did, for a 200, a 400, a 429 and a 500. The real
 * family handlers run against the embedded DynamoDB, so the DynamoDB work is counted by the real
 * client middleware.
 */
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import {
  emfDocument,
  METRICS_NAMESPACE,
  REQUEST_METRICS,
  requestMetricValues,
  routeOf,
} from '../../shared/http/metrics';
import { apiHandler } from '../../shared/http/middleware/api-handler';
import { importDataset } from '../../shared/import/importer';
import { withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import { setLogLevel, setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { apiEvent, startTestTable, type TestApi, type TestTable } from '../helpers/embedded';

type Emf = Record<string, any>;

let table: TestTable;
let platformsHandler: TestApi['platforms'];
let lines: string[] = [];

beforeAll(async () => {
  // The snapshot pointer stays cached: a warm request, as in production.
  table = await startTestTable({ SNAPSHOT_CACHE_MS: '600000', READ_CACHE_MB: '0' });
  await importDataset(fixtureDataset(), { client: table.client, tableName: table.tableName, now: () => NOW });
  platformsHandler = table.api({ clock: () => NOW }).platforms;
  setLogSink((line) => lines.push(line));
  // Warm: the pointer and every family's index loaded, as on an instance serving traffic.
  for (const family of ['exchanges', 'wallets', 'protocols'])
    await platformsHandler(apiEvent(`/api/v1/${family}`, { keyId: 'warm-up' }), {} as never);
});
beforeEach(() => {
  lines = [];
});
afterAll(async () => {
  setLogSink(() => undefined);
  await table.close();
});

const emfLines = (): Emf[] => lines.map((line) => JSON.parse(line) as Emf).filter((entry) => entry._aws !== undefined);

async function metricsOf(
  handler: (event: ApiEvent, context: never) => Promise<ApiResult>,
  event: ApiEvent,
): Promise<{ status: number; emf: Emf }> {
  lines = [];
  const result = await handler(event, {} as never);
  const emitted = emfLines();
  expect(emitted).toHaveLength(1);
  return { status: result.statusCode, emf: emitted[0] };
}

it('writes the EMF line whatever LOG_LEVEL says', async () => {
  setLogLevel('error');
  try {
    const { emf } = await metricsOf(platformsHandler, apiEvent('/api/v1/exchanges?limit=1', { keyId: 'k-quiet' }));
    expect(emf).toMatchObject({ Route: 'listExchanges', Requests: 1 });
  } finally {
    setLogLevel('info');
  }
});

it('writes one EMF line for a 200 with the route, latency and the DynamoDB work of a warm request', async () => {
  const { status, emf } = await metricsOf(platformsHandler, apiEvent('/api/v1/exchanges?limit=2', { keyId: 'k-200' }));

  expect(status).toBe(200);
  // The EMF timestamp is the function's clock, as every other time it reads.
  expect(emf._aws.Timestamp).toBe(NOW.getTime());
  expect(emf._aws.CloudWatchMetrics).toEqual([
    {
      Namespace: METRICS_NAMESPACE,
      Dimensions: [['Route']],
      Metrics: Object.entries(REQUEST_METRICS).map(([Name, Unit]) => ({ Name, Unit })),
    },
  ]);
  expect(emf).toMatchObject({
    Route: 'listExchanges',
    Requests: 1,
    Errors4xx: 0,
    Errors5xx: 0,
    QuotaRefusals: 0,
    // The quota counter and the page (its items carry the view size), in parallel.
    DynamoCalls: 2,
    RoundTrips: 1,
    ConsumedWriteCapacity: 1,
  });
  // The page Query, eventually consistent: at least half a unit.
  expect(emf.ConsumedReadCapacity).toBeGreaterThanOrEqual(0.5);
  expect(emf.Latency).toBeGreaterThan(0);
});

it('counts a 400 as a 4xx on its route, with the quota charge as its only DynamoDB work', async () => {
  const { status, emf } = await metricsOf(
    platformsHandler,
    apiEvent('/api/v1/exchanges/binance?limit=1', { keyId: 'k-400' }),
  );

  expect(status).toBe(400);
  expect(emf).toMatchObject({ Route: 'getExchange', Requests: 1, Errors4xx: 1, Errors5xx: 0, QuotaRefusals: 0 });
  expect(emf.DynamoCalls).toBeGreaterThanOrEqual(1);
  expect(emf.ConsumedWriteCapacity).toBe(1);
});

it('counts a 429 as a quota refusal (and a 4xx), after the refusal replaced the answer', async () => {
  const now = new Date('2026-11-20T10:00:10.000Z');
  const handler = table.api({ clock: () => now }).platforms;
  const event = () => apiEvent('/api/v1/wallets', { keyId: 'k-429', perMinute: 1, perMonth: 100 });
  const first = await metricsOf(handler, event());
  const refused = await metricsOf(handler, event());

  expect(first.status).toBe(200);
  expect(first.emf.QuotaRefusals).toBe(0);
  expect(refused.status).toBe(429);
  expect(refused.emf).toMatchObject({
    Route: 'listWallets',
    Requests: 1,
    Errors4xx: 1,
    Errors5xx: 0,
    QuotaRefusals: 1,
  });
  // Seen refused-to-be by this instance, it is charged first, and no data is read: the counter
  // write its condition refuses, then (the embedded DynamoDB does not return the item with the
  // failure, DynamoDB does) the read of the item that shows the minute spent.
  expect(refused.emf.DynamoCalls).toBe(2);
  expect(refused.emf.RoundTrips).toBe(2);
});

it('counts an unexpected failure as a 5xx', async () => {
  const unused = async (): Promise<never> => {
    throw new Error('not called');
  };
  const handler = apiHandler(
    'platforms',
    {
      listExchanges: async () => {
        throw new Error('boom');
      },
      getExchange: unused,
      listWallets: unused,
      getWallet: unused,
      listProtocols: unused,
      getProtocol: unused,
    },
    table.api({ clock: () => NOW }).deps,
  );
  const { status, emf } = await metricsOf(handler, apiEvent('/api/v1/exchanges', { keyId: 'k-500' }));

  expect(status).toBe(500);
  expect(emf).toMatchObject({ Route: 'listExchanges', Errors4xx: 0, Errors5xx: 1, QuotaRefusals: 0 });
});

it('answers and counts as a 5xx a buffered answer Lambda would refuse for its size, not as the 200 it was', async () => {
  const unused = async (): Promise<never> => {
    throw new Error('not called');
  };
  // 7 MB of incompressible-looking text would pass Lambda's 6 MB; a gzip client gets it coded, within it.
  const body = JSON.stringify({ data: 'x'.repeat(7 * 1024 * 1024) });
  const handler = apiHandler(
    'platforms',
    {
      listExchanges: async () => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body }),
      getExchange: unused,
      listWallets: unused,
      getWallet: unused,
      listProtocols: unused,
      getProtocol: unused,
    },
    table.api({ clock: () => NOW }).deps,
  );
  const plain = apiEvent('/api/v1/exchanges', { keyId: 'k-too-large' });
  lines = [];
  const refused = await handler(plain, {} as never);
  const emitted = lines.map((line) => JSON.parse(line) as Emf);
  expect(refused.statusCode).toBe(500);
  expect(JSON.parse(refused.body).error.code).toBe('internal_error');
  expect(refused.headers?.['X-RateLimit-Remaining'] ?? refused.headers?.['x-ratelimit-remaining']).toBeDefined();
  expect(emitted.filter((e) => e._aws)).toEqual([expect.objectContaining({ Errors5xx: 1, Errors4xx: 0 })]);
  expect(emitted.filter((e) => e.level === 'error').map((e) => e.message)).toEqual([
    'answer over the buffered response limit',
  ]);

  const coded = await metricsOf(handler, {
    ...plain,
    headers: { ...plain.headers, 'Accept-Encoding': 'gzip' },
    multiValueHeaders: { ...plain.multiValueHeaders, 'Accept-Encoding': ['gzip'] },
  });
  expect(coded.status).toBe(200);
  expect(coded.emf).toMatchObject({ Errors5xx: 0 });
});

it('keeps the DynamoDB work of concurrent requests apart', async () => {
  lines = [];
  await Promise.all([
    platformsHandler(apiEvent('/api/v1/exchanges?limit=1', { keyId: 'k-a' }), {} as never),
    platformsHandler(apiEvent('/api/v1/exchanges/binance', { keyId: 'k-b' }), {} as never),
    platformsHandler(apiEvent('/api/v1/protocols?limit=1', { keyId: 'k-c' }), {} as never),
  ]);
  const byRoute = Object.fromEntries(emfLines().map((emf) => [emf.Route, emf.DynamoCalls]));
  expect(byRoute).toEqual({ listExchanges: 2, getExchange: 2, listProtocols: 2 });
});

it('also reports the calls to a scope the caller opened around each request (the benchmark)', async () => {
  const [list, detail] = await Promise.all([
    withRequestAccounting(() => platformsHandler(apiEvent('/api/v1/exchanges?limit=1', { keyId: 'k-d' }), {} as never)),
    withRequestAccounting(() => platformsHandler(apiEvent('/api/v1/exchanges/binance', { keyId: 'k-e' }), {} as never)),
  ]);
  expect(list.accounting.calls.map((c) => c.command).sort()).toEqual(['GetItem', 'UpdateItem']);
  expect(detail.accounting.calls.map((c) => c.command).sort()).toEqual(['GetItem', 'UpdateItem']);
});

describe('values', () => {
  const work = {
    calls: 3,
    roundTrips: 1,
    readCapacity: 1.5,
    writeCapacity: 2,
    cacheHits: 2,
    cacheMisses: 1,
    cacheBytes: 900,
    indexLoads: 1,
    indexDeltas: 0,
  };

  it('classifies statuses', () => {
    expect(requestMetricValues(200, 12.345, work)).toEqual({
      Requests: 1,
      Latency: 12.35,
      ConsumedReadCapacity: 1.5,
      ConsumedWriteCapacity: 2,
      DynamoCalls: 3,
      RoundTrips: 1,
      Errors4xx: 0,
      Errors5xx: 0,
      QuotaRefusals: 0,
      CacheHits: 2,
      CacheMisses: 1,
      CacheBytes: 900,
      IndexLoads: 1,
    });
    expect(requestMetricValues(404, 1, work)).toMatchObject({ Errors4xx: 1, Errors5xx: 0, QuotaRefusals: 0 });
    expect(requestMetricValues(429, 1, work)).toMatchObject({ Errors4xx: 1, QuotaRefusals: 1 });
    expect(requestMetricValues(503, 1, work)).toMatchObject({ Errors4xx: 0, Errors5xx: 1 });
  });

  it('puts the dimension and every value at the root of the EMF document', () => {
    const doc = emfDocument('getEarnHistory', requestMetricValues(200, 1, work), 1_700_000_000_000);
    expect(doc).toMatchObject({
      Route: 'getEarnHistory',
      Requests: 1,
      DynamoCalls: 3,
      _aws: { Timestamp: 1_700_000_000_000 },
    });
  });

  it('names the route by its operationId, from the API Gateway resource', () => {
    expect(routeOf({ resource: '/api/v1/earn/{id}/history' } as ApiEvent)).toBe('getEarnHistory');
    expect(routeOf({ resource: '/nope' } as ApiEvent)).toBe('unknown');
  });
});

describe('the snapshot cache', () => {
  it('answers a repeated request without a data read (only the quota write), and reports hits and bytes', async () => {
    const cached = table.api({ clock: () => NOW, env: { SNAPSHOT_CACHE_MS: '600000', READ_CACHE_MB: '8' } }).platforms;
    const path = '/api/v1/exchanges?limit=3';
    const first = await metricsOf(cached, apiEvent(path, { keyId: 'k-cache' }));
    const again = await metricsOf(cached, apiEvent(path, { keyId: 'k-cache' }));

    expect(first.status).toBe(200);
    expect(first.emf).toMatchObject({ CacheHits: 0, CacheMisses: 1 });
    expect(first.emf.ConsumedReadCapacity).toBeGreaterThan(0);
    expect(again.status).toBe(200);
    // The page (with the view size) comes from the instance; the counter write remains.
    expect(again.emf).toMatchObject({
      CacheHits: 1,
      CacheMisses: 0,
      DynamoCalls: 1,
      ConsumedReadCapacity: 0,
      ConsumedWriteCapacity: 1,
    });
    expect(again.emf.CacheBytes).toBeGreaterThan(0);
  });

  it('serves the same bytes from the cache as from DynamoDB', async () => {
    const cached = table.api({ clock: () => NOW, env: { READ_CACHE_MB: '8' } }).offers;
    const uncached = table.api({ clock: () => NOW, env: { READ_CACHE_MB: '0' } }).offers;
    const path = '/api/v1/earn?platform_type=exchange&asset=bitcoin&sort=tvl_desc&limit=2&offset=1';
    const warm = await cached(apiEvent(path), {} as never);
    const fromCache = await cached(apiEvent(path), {} as never);
    const fromTable = await uncached(apiEvent(path), {} as never);

    expect(warm.statusCode).toBe(200);
    expect(fromCache.body).toBe(fromTable.body);
  });
});
