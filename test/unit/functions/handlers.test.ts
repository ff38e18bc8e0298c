/**
 * Handlers built by their factories with a mocked DynamoDB and a fixed clock: which items each
 * request reads (the pointer, a version's index segments once per instance, the blocks of the
 * page's documents by key), how the page is shaped from them, and how quota outcomes shape the
 * answer. The mocked table holds items built by the real projection and codecs from small records.
 */
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { offersHandler } from '../../../functions/offers/offers-handler';
import { platformsHandler } from '../../../functions/platforms/platforms-handler';
import { apiEvent } from '../../../local/events';
import { type CatalogIndex, indexOf, type OfferIndex } from '../../../shared/data/family-index';
import { segmentsHash } from '../../../shared/data/items/content';
import { encodeBlock } from '../../../shared/data/items/document-block';
import { encodeIndex } from '../../../shared/data/items/index-segment';
import { indexSegmentKey, type Key, pointerKey, QUOTA_ATTRIBUTES, quotaKey } from '../../../shared/data/keys';
import { createApiDeps } from '../../../shared/http/api-deps';
import type { ApiEvent, ApiResult } from '../../../shared/http/http';
import { parseDataset } from '../../../shared/import/dataset';
import { type Projection, platformResolver, projectCatalog, projectOffers } from '../../../shared/import/project';
import { readConfig } from '../../../shared/platform/config';
import { setLogSink } from '../../../shared/platform/logger';
import { compareExact, plainDecimal } from '../../helpers/exact-decimal';
import { ASSETS, borrowRecord, earnRecord, exchangeRecord } from '../../helpers/records';

/** Call a handler directly. */
async function invoke(handler: (event: ApiEvent, context: never) => Promise<ApiResult>, event: ApiEvent) {
  const result = await handler(event, {} as never);
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  return {
    status: result.statusCode,
    headers,
    raw: result.body,
    body: result.body ? JSON.parse(result.body) : undefined,
  };
}

const TABLE = 'unit-table';
const ddb = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2026-11-20T10:00:10.000Z');
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));

// ---- the stored data: 300 exchanges, earn and borrow offers, projected and encoded as an import does

const APYS = [
  '4.5',
  '4.50',
  '4.499999999999999999999',
  '4.500000000000000000001',
  '150',
  '0.0000001',
  '0.00000009',
  '4.75',
  '12',
  '0',
  '3.25',
];
const WEEKLY = (i: number) => (i % 17 === 0 ? null : (i * 7919) % 1000);
const dataset = parseDataset({
  exchanges: [
    ...Array.from({ length: 298 }, (_, i) => exchangeRecord(`ex-${String(i).padStart(3, '0')}`, WEEKLY(i))),
    exchangeRecord('a', 5),
    exchangeRecord('new', 6, { previous_slugs: ['old'] }),
  ],
  earn_offers: Array.from({ length: 90 }, (_, i) =>
    earnRecord(i + 1, APYS[(i * 5) % APYS.length], { asset: ASSETS[i % 3] }),
  ),
  borrow_offers: Array.from({ length: 40 }, (_, i) => borrowRecord(i + 1, APYS[(i * 3) % APYS.length])),
});
const resolve = platformResolver({ exchanges: dataset.exchanges!, wallets: [], protocols: [] });
const projections = {
  exchanges: projectCatalog('exchanges', dataset.exchanges!),
  earn: projectOffers('earn', dataset.earn_offers!, resolve),
  borrow: projectOffers('borrow', dataset.borrow_offers!, resolve),
};
const VERSION = { exchanges: 'vx1', earn: 've1', borrow: 'vb1' } as const;

const table = new Map<string, Record<string, unknown>>();
const keyOf = ({ PK, SK }: Key) => `${PK}\u0000${SK}`;
const put = (item: Record<string, unknown> & Key) => table.set(keyOf(item), item);
const families: Record<string, unknown> = {};
for (const [family, name] of [
  ['exchanges', 'exchanges'],
  ['earn', 'earn_offers'],
  ['borrow', 'borrow_offers'],
] as const) {
  const { index, blocks }: Projection = projections[family];
  const segments = encodeIndex(VERSION[family], index);
  segments.forEach(put);
  for (const block of blocks) put(encodeBlock(block.hash, block.docs));
  families[name] = {
    version: VERSION[family],
    segments: segments.length,
    indexHash: segmentsHash(segments),
    publishedAt: '2026-11-20T09:00:00.000Z',
  };
}
put({ ...pointerKey(), families, retired: [] });

const exchanges = indexOf(VERSION.exchanges, projections.exchanges.index) as CatalogIndex;
const earnIndex = indexOf(VERSION.earn, projections.earn.index) as OfferIndex;
const borrowIndex = indexOf(VERSION.borrow, projections.borrow.index) as OfferIndex;
const docOf = (projection: Projection, block: string, slot: number) =>
  projection.blocks.find((b) => b.hash === block)!.docs[slot];

// ---- the handlers, on an instance of their own per test --------------------------------------------

let platforms: ReturnType<typeof platformsHandler>;
let offers: ReturnType<typeof offersHandler>;

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).callsFake(async (input: { Key: Key }) => ({ Item: table.get(keyOf(input.Key)) }));
  ddb.on(BatchGetCommand).callsFake(async (input: { RequestItems: Record<string, { Keys: Key[] }> }) => ({
    Responses: { [TABLE]: input.RequestItems[TABLE].Keys.flatMap((key) => table.get(keyOf(key)) ?? []) },
  }));
  // The key's counter item after the charge: the first unit of the month and of the minute.
  ddb.on(UpdateCommand).resolves({
    Attributes: {
      [QUOTA_ATTRIBUTES.monthCount]: 1,
      [QUOTA_ATTRIBUTES.minute]: 202611201000,
      [QUOTA_ATTRIBUTES.minuteCount]: 1,
    },
  });
  const deps = createApiDeps(
    readConfig({ TABLE_NAME: TABLE, SNAPSHOT_CACHE_MS: '0', READ_CACHE_MB: '0' }),
    { client, counterClient: client },
    () => NOW,
  );
  platforms = platformsHandler(deps);
  offers = offersHandler(deps);
});

/** The document blocks the requests so far read, by hash (GetItem of one, BatchGetItem of several). */
function blocksRead(): string[] {
  const gets = ddb.commandCalls(GetCommand).map((c) => c.args[0].input.Key!.PK as string);
  const batches = ddb
    .commandCalls(BatchGetCommand)
    .flatMap((c) => Object.values(c.args[0].input.RequestItems!).flatMap((r) => r.Keys!.map((k) => k.PK as string)));
  return [...gets, ...batches].filter((pk) => pk.startsWith('DOC#')).map((pk) => pk.slice('DOC#'.length));
}
const segmentReads = (version: string) =>
  ddb.commandCalls(GetCommand).filter((c) => c.args[0].input.Key!.PK === indexSegmentKey(version, 0).PK).length;
const distinct = (values: string[]) => [...new Set(values)].sort();

describe('platform list', () => {
  /** The exchanges by weekly visits descending, null last, ties by slug (docs/api.md), independently of the index. */
  const listed = [...dataset.exchanges!]
    .sort((a, b) => {
      const [x, y] = [a.stats.weekly_visits, b.stats.weekly_visits];
      if (x === null || y === null) return x === y ? (a.slug < b.slug ? -1 : 1) : x === null ? 1 : -1;
      return y - x || (a.slug < b.slug ? -1 : 1);
    })
    .map((e) => e.slug);

  it('at a deep offset reads only the blocks of its page; a second request reads no index segment', async () => {
    const first = await invoke(platforms, apiEvent('/api/v1/exchanges?limit=3&offset=250'));
    const firstBlocks = blocksRead();
    ddb.resetHistory();
    const second = await invoke(platforms, apiEvent('/api/v1/exchanges?limit=2&offset=120'));

    expect(first.status).toBe(200);
    expect(first.body.data.map((e: { slug: string }) => e.slug)).toEqual(listed.slice(250, 253));
    expect(first.body.pagination).toEqual({
      total: 300,
      offset: 250,
      limit: 3,
      has_more: true,
      snapshot: expect.any(String),
    });
    expect(second.body.data.map((e: { slug: string }) => e.slug)).toEqual(listed.slice(120, 122));
    // Each request reads the blocks that hold its documents, and nothing else of the list.
    const blocksOf = (slugs: string[]) => distinct(slugs.map((slug) => exchanges.ref(exchanges.entry(slug)!).block));
    expect(distinct(firstBlocks)).toEqual(blocksOf(listed.slice(250, 253)));
    expect(firstBlocks).toHaveLength(blocksOf(listed.slice(250, 253)).length);
    expect(distinct(blocksRead())).toEqual(blocksOf(listed.slice(120, 122)));
    // The documents are served byte for byte as the blocks hold them.
    const refs = listed.slice(250, 253).map((slug) => exchanges.ref(exchanges.entry(slug)!));
    const docs = refs.map((r) => docOf(projections.exchanges, r.block, r.slot));
    expect(first.raw).toBe(`{"data":[${docs.join(',')}],"pagination":${JSON.stringify(first.body.pagination)}}`);
    // The second request read no segment of the index: the instance kept it.
    expect(segmentReads(VERSION.exchanges)).toBe(0);
  });

  it('reads the index once across two requests of one instance', async () => {
    await invoke(platforms, apiEvent('/api/v1/exchanges?limit=1'));
    await invoke(platforms, apiEvent('/api/v1/exchanges?limit=1&offset=299'));

    expect(segmentReads(VERSION.exchanges)).toBe(1);
  });

  it('answers 404 for an unknown slug and 301 for a former one, reading no document', async () => {
    const missing = await invoke(platforms, apiEvent('/api/v1/exchanges/nope'));
    const moved = await invoke(platforms, apiEvent('/api/v1/exchanges/old'));

    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe('/api/v1/exchanges/new');
    expect(blocksRead()).toEqual([]);
  });

  it('answers a detail from its one block', async () => {
    const res = await invoke(platforms, apiEvent('/api/v1/exchanges/a'));

    const ref = exchanges.ref(exchanges.entry('a')!);
    expect(res.status).toBe(200);
    expect(res.raw).toBe(docOf(projections.exchanges, ref.block, ref.slot));
    expect(blocksRead()).toEqual([ref.block]);
  });
});

describe('offer list with min_apy', () => {
  /** The offers whose APY is at least `min` as exact decimals, in the mode's order, ties by id. */
  function expected(records: Record<string, any>[], field: string, min: string, direction: 1 | -1) {
    return records
      .filter((o) => compareExact(o[field], plainDecimal(min)) >= 0)
      .sort((a, b) => direction * compareExact(a[field], b[field]) || a.id - b.id)
      .map((o) => o.id as number);
  }
  const earnAbove = (min: string, direction: 1 | -1) => expected(dataset.earn_offers!, 'apy', min, direction);

  it.each<[string, string, 1 | -1, number, number]>([
    ['apy_desc', '4.5', -1, 0, 5],
    ['apy_desc', '4.5', -1, 20, 7],
    ['apy_asc', '4.5', 1, 3, 4],
    ['apy_asc', '0.0000001', 1, 40, 200],
  ])(
    '%s from %s: the page and the total of the matching offers, reading the page’s blocks only',
    async (sort, min, direction, offset, limit) => {
      const res = await invoke(
        offers,
        apiEvent(`/api/v1/earn?min_apy=${min}&sort=${sort}&offset=${offset}&limit=${limit}`),
      );

      const all = earnAbove(min, direction);
      const page = all.slice(offset, offset + limit);
      expect(res.status).toBe(200);
      expect(res.body.data.map((o: { id: number }) => o.id)).toEqual(page);
      expect(res.body.pagination).toEqual({
        total: all.length,
        offset,
        limit,
        has_more: offset + page.length < all.length,
        snapshot: expect.any(String),
      });
      expect(page.length).toBeGreaterThan(0);
      expect(distinct(blocksRead())).toEqual(distinct(page.map((id) => earnIndex.ref(earnIndex.entry(id)!).block)));
    },
  );

  it('borrow defaults to apy_asc on net_borrow_apy', async () => {
    const res = await invoke(offers, apiEvent('/api/v1/borrow?min_apy=4.5&offset=1&limit=3'));

    const all = expected(dataset.borrow_offers!, 'net_borrow_apy', '4.5', 1);
    expect(res.body.data.map((o: { id: number }) => o.id)).toEqual(all.slice(1, 4));
    expect(res.body.pagination).toEqual({
      total: all.length,
      offset: 1,
      limit: 3,
      has_more: all.length > 4,
      snapshot: expect.any(String),
    });
    expect(distinct(blocksRead())).toEqual(
      distinct(all.slice(1, 4).map((id) => borrowIndex.ref(borrowIndex.entry(id)!).block)),
    );
  });

  it('above every offer: total 0, no document read', async () => {
    const res = await invoke(offers, apiEvent('/api/v1/earn?min_apy=1e9'));

    expect(res.body).toEqual({
      data: [],
      pagination: { total: 0, offset: 0, limit: 50, has_more: false, snapshot: expect.any(String) },
    });
    expect(blocksRead()).toEqual([]);
  });

  it.each([
    ['1e-7', '0.0000001'],
    ['1.5E+2', '150'],
    ['4.75e0', '4.75'],
    ['45e-1', '4.5'],
  ])('min_apy=%s selects as the exact decimal %s', async (minApy, decimal) => {
    const res = await invoke(offers, apiEvent(`/api/v1/earn?min_apy=${encodeURIComponent(minApy)}&limit=200`));

    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { id: number }) => o.id)).toEqual(earnAbove(decimal, -1));
  });

  it('reads nothing for a min_apy past 32 characters', async () => {
    const res = await invoke(offers, apiEvent(`/api/v1/earn?min_apy=1e-${'0'.repeat(40)}1`));
    expect(res.status).toBe(400);
    expect(res.body.error.details.message).toEqual(['min_apy must not be longer than 32 characters']);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(0);
  });
});

describe('quota outcomes', () => {
  it('refuses per minute from the item DynamoDB returns with the failed condition: one write, nothing given back, the data read hidden', async () => {
    // The key's counter item: 3 of 3 this minute, 4 this month (the failed write's ALL_OLD item, in wire form).
    const item = { count: { N: '4' }, minute: { N: '202611201000' }, minuteCount: { N: '3' } };
    ddb
      .on(UpdateCommand, { Key: quotaKey('k1', '202611') })
      .rejects(
        new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: item }),
      );

    const res = await invoke(platforms, apiEvent('/api/v1/exchanges/a', { keyId: 'k1', perMinute: 3, perMonth: 10 }));

    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limit_exceeded');
    expect(res.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'x-quota-remaining': '6' });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(ddb.commandCalls(GetCommand, { Key: quotaKey('k1', '202611') })).toHaveLength(0);
  });

  it('fails closed with 503 when the counters cannot be reached, even if the data read worked', async () => {
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }));

    const res = await invoke(platforms, apiEvent('/api/v1/exchanges/a'));

    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.headers['retry-after']).toBe('1');
    expect(res.raw).not.toMatch(/socket hang up|unit-table/);
  });

  it('logs the failure with the request id and key id, never the key', async () => {
    const lines: string[] = [];
    setLogSink((line) => lines.push(line));
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }));
    const event = apiEvent('/api/v1/exchanges/a', { keyId: 'k-logged' });

    await invoke(platforms, event);
    setLogSink(() => undefined);

    const failure = lines.map((line) => JSON.parse(line)).find((entry) => entry.message === 'quota charge failed');
    expect(failure).toMatchObject({
      level: 'error',
      keyId: 'k-logged',
      requestId: event.requestContext.requestId,
      route: '/api/v1/exchanges/{slug}',
    });
  });

  it('answers 401 without charging when the authorizer context is missing', async () => {
    const res = await invoke(platforms, apiEvent('/api/v1/exchanges', { keyId: null }));
    expect(res.status).toBe(401);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});
