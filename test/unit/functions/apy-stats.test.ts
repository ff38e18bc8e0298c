/**
 * `include=apy_stats` and the figure sorts (CONTRACT §13, docs/api.md "APY figures") through the
 * real handlers with a mocked DynamoDB holding versions the real projection and codecs wrote: each
 * route adds `apy_stats` last to every earn and borrow offer in JSON (and the lists in CSV), reads
 * nothing more for it, and answers byte for byte (ETag included) as before without `include`; a
 * version imported without figures answers them null as of its publication.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { currenciesHandler } from '../../../functions/currencies/currencies-handler';
import { offersHandler } from '../../../functions/offers/offers-handler';
import { apiEvent } from '../../../local/events';
import { segmentsHash } from '../../../shared/data/items/content';
import { encodeBlock } from '../../../shared/data/items/document-block';
import { encodeIndex } from '../../../shared/data/items/index-segment';
import { type Key, pointerKey, QUOTA_ATTRIBUTES } from '../../../shared/data/keys';
import type { ApyStats } from '../../../shared/domain/apy-stats';
import { createApiDeps } from '../../../shared/http/api-deps';
import type { ApiEvent, ApiResult } from '../../../shared/http/http';
import { parseDataset } from '../../../shared/import/dataset';
import { type Projection, platformResolver, projectCatalog, projectOffers } from '../../../shared/import/project';
import { readConfig } from '../../../shared/platform/config';
import { fixtureDataset } from '../../fixtures/dataset';
import { compareExact } from '../../helpers/exact-decimal';
import { ASSETS, borrowRecord, earnRecord } from '../../helpers/records';

const TABLE = 'unit-table';
const ddb = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2026-11-20T10:00:10.000Z');
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const AS_OF = '2026-11-20T10:00:00.000Z';
const PUBLISHED = { old: '2026-11-19T09:00:00.000Z', now: '2026-11-20T09:00:00.000Z' };

const dataset = parseDataset({
  currencies: fixtureDataset().currencies,
  earn_offers: Array.from({ length: 12 }, (_, i) => earnRecord(i + 1, `${4 + (i % 3)}.5`, { asset: ASSETS[i % 3] })),
  borrow_offers: Array.from({ length: 6 }, (_, i) => borrowRecord(i + 1, `${i}.25`, { asset: ASSETS[i % 3] })),
});

/** Figures for some offers (a mean of `4.x`, a deviation decreasing with the id; every third offer has none). */
const stats = (id: number): ApyStats => ({
  as_of: AS_OF,
  change_1d: id % 2 ? `-0.${id}` : null,
  change_7d: `${id % 5}.5`,
  change_30d: null,
  mean_7d: `4.${id}00000`,
  mean_30d: id % 4 === 0 ? null : `${3 + (id % 3)}.${String(id).padStart(6, '0')}`,
  stddev_30d: id % 4 === 0 ? null : `0.${String(100 - id).padStart(6, '0')}`,
  points_30d: id % 4 === 0 ? 3 : 30,
});
const figuresOf = (records: readonly { id: number }[]) =>
  new Map(records.filter((r) => r.id % 3 !== 0).map((r) => [r.id, stats(r.id)]));

const resolve = platformResolver({ exchanges: [], wallets: [], protocols: [] });
const projections: Record<string, Projection> = {
  currencies: projectCatalog('currencies', dataset.currencies!),
  earnOld: projectOffers('earn', dataset.earn_offers!.slice(1), resolve),
  earn: projectOffers('earn', dataset.earn_offers!, resolve, figuresOf(dataset.earn_offers!)),
  borrow: projectOffers('borrow', dataset.borrow_offers!, resolve, figuresOf(dataset.borrow_offers!)),
};

const table = new Map<string, Record<string, unknown>>();
const keyOf = ({ PK, SK }: Key) => `${PK}\u0000${SK}`;
const put = (item: Record<string, unknown> & Key) => table.set(keyOf(item), item);
/** The projection stored as version `version`: its state in the pointer. */
function store(version: string, projection: Projection, publishedAt: string) {
  const segments = encodeIndex(version, projection.index);
  segments.forEach(put);
  for (const block of projection.blocks) put(encodeBlock(block.hash, block.docs));
  return {
    version,
    segments: segments.length,
    indexHash: segmentsHash(segments),
    publishedAt,
  };
}
const oldEarn = store('veOld', projections.earnOld, PUBLISHED.old);
put({
  ...pointerKey(),
  families: {
    currencies: store('vc', projections.currencies, PUBLISHED.now),
    earn_offers: store('ve', projections.earn, PUBLISHED.now),
    borrow_offers: store('vb', projections.borrow, PUBLISHED.now),
  },
  retired: [
    {
      family: 'earn',
      version: 'veOld',
      at: PUBLISHED.now,
      segments: oldEarn.segments,
      indexHash: oldEarn.indexHash,
      publishedAt: PUBLISHED.old,
    },
  ],
});

async function invoke(handler: (event: ApiEvent, context: never) => Promise<ApiResult>, event: ApiEvent) {
  const result = await handler(event, {} as never);
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  return { status: result.statusCode, headers, raw: result.body ?? '' };
}

/** The same versions as an import without figures wrote them (the 1.2 index): `run` reads them. */
async function servedAsIn12<T>(run: () => Promise<T>): Promise<T> {
  const kept = new Map(table);
  const pointer = structuredClone(table.get(keyOf(pointerKey()))!) as {
    families: Record<string, { indexHash: string }>;
  };
  for (const [family, version, name] of [
    ['earn', 've', 'earn_offers'],
    ['borrow', 'vb', 'borrow_offers'],
  ] as const) {
    const records = family === 'earn' ? dataset.earn_offers! : dataset.borrow_offers!;
    const segments = encodeIndex(version, projectOffers(family, records, resolve).index);
    segments.forEach(put);
    pointer.families[name].indexHash = segmentsHash(segments);
  }
  put({ ...pointer, ...pointerKey() });
  try {
    return await run();
  } finally {
    table.clear();
    for (const [key, item] of kept) table.set(key, item);
  }
}

const deps = () =>
  createApiDeps(
    readConfig({ TABLE_NAME: TABLE, SNAPSHOT_CACHE_MS: '0', READ_CACHE_MB: '0' }),
    { client, counterClient: client },
    () => NOW,
  );

let offers: ReturnType<typeof offersHandler>;
let currencies: ReturnType<typeof currenciesHandler>;
beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).callsFake(async (input: { Key: Key }) => ({ Item: table.get(keyOf(input.Key)) }));
  ddb.on(BatchGetCommand).callsFake(async (input: { RequestItems: Record<string, { Keys: Key[] }> }) => ({
    Responses: { [TABLE]: input.RequestItems[TABLE].Keys.flatMap((key) => table.get(keyOf(key)) ?? []) },
  }));
  ddb.on(UpdateCommand).resolves({
    Attributes: {
      [QUOTA_ATTRIBUTES.monthCount]: 1,
      [QUOTA_ATTRIBUTES.minute]: 202611201000,
      [QUOTA_ATTRIBUTES.minuteCount]: 1,
    },
  });
  offers = offersHandler(deps());
  currencies = currenciesHandler(deps());
});

const reads = () => ddb.commandCalls(GetCommand).length + ddb.commandCalls(BatchGetCommand).length;
/** The expected `apy_stats` of an offer: its figures, or every one null as of `publishedAt` when it has none. */
const expectedStats = (id: number): ApyStats =>
  id % 3 !== 0
    ? stats(id)
    : {
        as_of: AS_OF,
        change_1d: null,
        change_7d: null,
        change_30d: null,
        mean_7d: null,
        mean_30d: null,
        stddev_30d: null,
        points_30d: 0,
      };

/** Each route's path with and without include, the handler, and where its earn or borrow offers are in the JSON. */
const ROUTES: [string, string, 'offers' | 'currencies', (body: any) => { family: 'earn' | 'borrow'; offer: any }[]][] =
  [
    [
      'earn list',
      '/api/v1/earn?limit=5&offset=1',
      'offers',
      (b) => b.data.map((offer: any) => ({ family: 'earn', offer })),
    ],
    [
      'borrow list',
      '/api/v1/borrow?sort=apy_desc',
      'offers',
      (b) => b.data.map((offer: any) => ({ family: 'borrow', offer })),
    ],
    ['earn detail', '/api/v1/earn/3', 'offers', (b) => [{ family: 'earn', offer: b }]],
    ['borrow detail', '/api/v1/borrow/2', 'offers', (b) => [{ family: 'borrow', offer: b }]],
    [
      'earn changes',
      '/api/v1/earn/changes?since=veOld',
      'offers',
      (b) => b.data.filter((row: any) => row.offer).map((row: any) => ({ family: 'earn', offer: row.offer })),
    ],
    [
      'currency detail',
      '/api/v1/currencies/tether',
      'currencies',
      (b) => [
        ...b.earn_offers.map((offer: any) => ({ family: 'earn', offer })),
        ...b.borrow_offers.map((offer: any) => ({ family: 'borrow', offer })),
      ],
    ],
  ];

describe.each(ROUTES)('%s', (_, path, fn, offersIn) => {
  const handler = () => (fn === 'offers' ? offers : currencies);
  const withInclude = `${path}${path.includes('?') ? '&' : '?'}include=apy_stats`;

  it('adds apy_stats last to each earn and borrow offer, reading nothing more; the rest of each offer unchanged', async () => {
    await invoke(handler(), apiEvent(path));
    // The instance has read the indexes: what a warm request reads without and with include.
    const start = reads();
    const plain = await invoke(handler(), apiEvent(path));
    const plainReads = reads() - start;
    const included = await invoke(handler(), apiEvent(withInclude));
    expect(included.status).toBe(200);
    expect(reads() - start - plainReads).toBe(plainReads);

    const before = offersIn(JSON.parse(plain.raw));
    const after = offersIn(JSON.parse(included.raw));
    expect(after.length).toBeGreaterThan(0);
    expect(after.length).toBe(before.length);
    after.forEach(({ offer }, i) => {
      const keys = Object.keys(offer);
      expect(keys.at(-1)).toBe('apy_stats');
      expect(offer.apy_stats).toEqual(expectedStats(offer.id));
      const { apy_stats: _stats, ...rest } = offer;
      expect(rest).toEqual(before[i].offer);
      // Spliced into the stored document: the offer's own text byte for byte, then the figures.
      expect(included.raw).toContain(`${JSON.stringify(rest).slice(0, -1)},"apy_stats":`);
    });
    // Only earn and borrow offers carry figures.
    if (fn === 'currencies')
      for (const o of JSON.parse(included.raw).collateral_offers) expect(o).not.toHaveProperty('apy_stats');
  });

  it('without include answers byte for byte as a version without figures (1.2) does, ETag included; another ETag with it', async () => {
    const first = await invoke(handler(), apiEvent(path));
    const included = await invoke(handler(), apiEvent(withInclude));
    const before = await servedAsIn12(() =>
      invoke(fn === 'offers' ? offersHandler(deps()) : currenciesHandler(deps()), apiEvent(path)),
    );
    expect(first.status).toBe(200);
    expect(first.raw).not.toContain('apy_stats');
    expect(first.raw).toBe(before.raw);
    expect(first.headers.etag).toBe(before.headers.etag);
    expect(first.headers['last-modified']).toBe(before.headers['last-modified']);
    expect(included.headers.etag).not.toBe(first.headers.etag);
  });
});

describe('the CSV of lists', () => {
  it.each([
    ['earn', '/api/v1/earn?sort=apy_mean_30d_desc&limit=4'],
    ['borrow', '/api/v1/borrow?sort=apy_stddev_30d_asc&limit=4'],
  ] as const)('%s: the apy_stats columns last with include, as the JSON; none without', async (_, path) => {
    const csv = (p: string) => {
      const event = apiEvent(p);
      return invoke(offers, {
        ...event,
        headers: { ...event.headers, Accept: 'text/csv' },
        multiValueHeaders: { ...event.multiValueHeaders, Accept: ['text/csv'] },
      });
    };
    const plain = await csv(path);
    const included = await csv(`${path}&include=apy_stats`);
    const json = JSON.parse((await invoke(offers, apiEvent(`${path}&include=apy_stats`))).raw).data;
    const [header, ...rows] = included.raw.trimEnd().split('\r\n');
    const figureColumns = [
      'as_of',
      'change_1d',
      'change_7d',
      'change_30d',
      'mean_7d',
      'mean_30d',
      'stddev_30d',
      'points_30d',
    ].map((c) => `apy_stats.${c}`);
    expect(header.split(',').slice(-8)).toEqual(figureColumns);
    expect(plain.raw.split('\r\n')[0]).toBe(header.split(',').slice(0, -8).join(','));
    expect(plain.raw).not.toContain('apy_stats');
    rows.forEach((row, i) => {
      const s = json[i].apy_stats;
      expect(row.split(',').slice(-8)).toEqual(
        [s.as_of, s.change_1d, s.change_7d, s.change_30d, s.mean_7d, s.mean_30d, s.stddev_30d, s.points_30d].map((v) =>
          v === null ? '' : String(v),
        ),
      );
      expect(row.split(',').slice(0, -8).join(',')).toBe(plain.raw.split('\r\n')[i + 1]);
    });
    expect(rows).toHaveLength(4);
  });
});

describe('the figure sorts and filters through the handler', () => {
  const ids = async (path: string) => JSON.parse((await invoke(offers, apiEvent(path))).raw);

  it('sort by the 30-day mean, null last, filtered by the deviation, with an exact total and paging', async () => {
    const expected = dataset
      .earn_offers!.map((r) => ({ id: r.id, s: expectedStats(r.id) }))
      .filter(({ s }) => s.stddev_30d !== null && compareExact(s.stddev_30d, '0.095') <= 0)
      .sort((a, b) => compareExact(b.s.mean_30d!, a.s.mean_30d!) || a.id - b.id)
      .map((o) => o.id);
    const body = await ids('/api/v1/earn?sort=apy_mean_30d_desc&max_apy_stddev_30d=0.095&limit=2&offset=1');
    expect(body.pagination.total).toBe(expected.length);
    expect(body.data.map((o: { id: number }) => o.id)).toEqual(expected.slice(1, 3));
  });

  it('takes a negative min_apy_mean_30d (CONTRACT §13): every offer with a mean matches a bound below zero', async () => {
    const withMean = dataset.borrow_offers!.filter((r) => expectedStats(r.id).mean_30d !== null).map((r) => r.id);
    const body = await ids('/api/v1/borrow?min_apy_mean_30d=-0.5&sort=apy_mean_30d_desc&limit=50');
    expect(body.pagination.total).toBe(withMean.length);
    expect(body.data.map((o: { id: number }) => o.id).sort((a: number, b: number) => a - b)).toEqual(withMean);
  });

  it('a version without figures (pinned by snapshot) answers every figure null as of its publication and sorts by id', async () => {
    const body = await ids('/api/v1/earn?snapshot=veOld&sort=apy_change_7d_desc&include=apy_stats&limit=3');
    expect(body.data.map((o: { id: number }) => o.id)).toEqual([2, 3, 4]);
    for (const o of body.data) expect(o.apy_stats).toEqual({ ...expectedStats(3), as_of: PUBLISHED.old });
    const none = await ids('/api/v1/earn?snapshot=veOld&min_apy_mean_30d=0');
    expect(none.pagination.total).toBe(0);
  });

  it('refuses include on collateral and an unknown include value, naming include', async () => {
    for (const path of [
      '/api/v1/collateral?include=apy_stats',
      '/api/v1/earn/1?include=stats',
      '/api/v1/currencies?include=apy_stats',
    ]) {
      const res = await invoke(path.includes('currencies') ? currencies : offers, apiEvent(path));
      expect(res.status).toBe(400);
      expect(JSON.parse(res.raw).error.details.message[0]).toMatch(/include/);
    }
  });
});
