/**
 * Import under failure (docs/adr/0006-live-data.md), on the embedded DynamoDB through the real
 * handlers:
 *
 * 1. dataset A is served;
 * 2. an import of B loses its connection midway through its batch writes: it rejects, B is
 *    partly written, and the API still serves A entirely (every list page, total, detail and
 *    history, answer for answer);
 * 3. an import of D writes everything but fails at the publishing write: A is still served;
 * 4. B re-run on a healthy client completes: B is served exactly as a fresh table holding only B
 *    serves it, the versions of A it replaced are kept (a reader's cached pointer may name them),
 *    and D's abandoned version is deleted;
 * 5. an import of C after the readers' cache and margin deletes A's replaced versions and keeps
 *    the ones C replaced;
 * 6. re-running C is a no-op (`unchanged: true`, nothing written or deleted);
 * 7. while another import holds the lease, an import is refused before writing anything;
 * 8. an invalid file is refused as a whole, with its errors by place, before anything is written.
 *
 * The failures are real: a document client on the same embedded DynamoDB whose `send` starts
 * failing like a dropped connection after a number of calls of one kind.
 */
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ImportBusyError, LeaseStore } from '../../shared/data/import-lease';
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import { type FunctionName, matchRoute } from '../../shared/http/routes';
import { DataFileError } from '../../shared/import/dataset';
import { type ImportResult, importDataset, readPointer, retireAfter } from '../../shared/import/importer';
import { TAKEOVER_GRACE_MS } from '../../shared/import/lease-holder';
import { MAX_SNAPSHOT_CACHE_MS } from '../../shared/platform/config';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestTable, versionOfPartition } from '../helpers/embedded';
import { flakyClient as flakyOn } from '../helpers/faults';

// ---- the datasets --------------------------------------------------------------------------------

const A = fixtureDataset();

/** B: a renamed, a removed and a new exchange, changed and new offers, a longer history. */
function datasetB(): any {
  const b: any = fixtureDataset();
  b.exchanges.find((e: any) => e.slug === 'kraken').name = 'Kraken Pro';
  b.exchanges = b.exchanges.filter((e: any) => e.slug !== 'okx');
  b.exchanges.push({
    ...b.exchanges[0],
    slug: 'bitstamp',
    name: 'Bitstamp',
    url: 'https://bitstamp.example',
    stats: { ...b.exchanges[0].stats, weekly_visits: 700 },
  });
  b.currencies.find((c: any) => c.slug === 'ethereum').stats.usd_price = '3100.5';
  const earn3 = b.earn_offers.find((o: any) => o.id === 3);
  Object.assign(earn3, { apy: '13.5', estimated_apy: '13.5' });
  b.earn_offers = b.earn_offers.filter((o: any) => o.id !== 9);
  b.earn_offers.push({ ...b.earn_offers[0], id: 10, compositeKey: 'earn:10', apy: '6.25', estimated_apy: '6.25' });
  b.borrow_history[0].points.push({ timestamp: '2026-11-20T08:00:00.000Z', apy: '4.4' });
  return b;
}
const B = datasetB();

/** D: abandoned at its pointer flip. */
const D: any = fixtureDataset();
D.wallets.find((w: any) => w.slug === 'zengo').name = 'ZenGo';

/** C: B with one more change. */
const C: any = datasetB();
C.protocols.find((p: any) => p.slug === 'curve').stats.tvl = '123';

/** The import's clock: each step a little later, as imports arrive. */
let time = NOW.getTime();
const at = (ms: number) => () => new Date(ms);

// ---- what the API serves -------------------------------------------------------------------------

type Handler = (event: ApiEvent, context: never) => Promise<ApiResult>;
/** The table whose functions answer `call` (a fresh one while a reference view is taken). */
let serving: TestTable;
const functionsOf = new WeakMap<TestTable, Record<FunctionName, Handler>>();
function handlers(): Record<FunctionName, Handler> {
  if (!functionsOf.has(serving)) functionsOf.set(serving, { ...serving.api({ clock: () => NOW }) });
  return functionsOf.get(serving)!;
}

async function call(path: string): Promise<{ status: number; body: any; location?: string }> {
  const route = matchRoute('GET', new URL(path, 'http://test').pathname)!;
  const res = await invoke(
    handlers()[route.route.fn],
    apiEvent(path, { keyId: 'k-import-test', perMinute: 1_000_000, perMonth: 100_000_000 }),
  );
  return { status: res.status, body: res.body, ...(res.headers.location ? { location: res.headers.location } : {}) };
}

const CATALOG = ['exchanges', 'wallets', 'protocols', 'currencies'] as const;
const OFFERS = ['earn', 'borrow', 'collateral'] as const;
const EVERY = [A, B, C, D];

/** Every request whose answer depends on the data: lists (all pages), details, redirects, history. */
function viewPaths(): string[] {
  const paths = new Set<string>();
  for (const family of [...CATALOG, ...OFFERS]) paths.add(`/api/v1/${family}?limit=200`);
  for (const family of CATALOG) paths.add(`/api/v1/${family}?limit=2&offset=1`);
  for (const query of [
    'earn?asset=bitcoin&sort=tvl_desc',
    'earn?min_apy=5',
    'borrow?platform=aave',
    'collateral?platform_type=exchange&asset=bitcoin',
  ]) {
    paths.add(`/api/v1/${query}`);
  }
  for (const dataset of EVERY) {
    for (const family of CATALOG) {
      for (const record of dataset[family] as { slug: string; previous_slugs?: string[] }[]) {
        for (const slug of [record.slug, ...(record.previous_slugs ?? [])]) paths.add(`/api/v1/${family}/${slug}`);
      }
    }
    for (const family of OFFERS)
      for (const offer of dataset[`${family}_offers`] as { id: number }[]) paths.add(`/api/v1/${family}/${offer.id}`);
    for (const family of ['earn', 'borrow'] as const) {
      for (const offer of dataset[`${family}_offers`] as { id: number }[])
        paths.add(`/api/v1/${family}/${offer.id}/history?period=all`);
    }
  }
  return [...paths].sort();
}

type View = Record<string, { status: number; body: any; location?: string }>;

/** The answer to every view path; history answers without the request time (`to`, and `from` of an empty series). */
async function servedView(): Promise<View> {
  const view: View = {};
  for (const path of viewPaths()) {
    const answer = await call(path);
    // An earn or borrow version's identity includes the time its figures were computed
    // (docs/adr/0015-apy-figures.md): a fresh table computes them at its own import.
    if (/^\/api\/v1\/(earn|borrow)\?/.test(path) && answer.body?.pagination) delete answer.body.pagination.snapshot;
    if (answer.body && typeof answer.body === 'object' && 'to' in answer.body) {
      delete answer.body.to;
      if (answer.body.point_count === 0) delete answer.body.from;
    }
    view[path] = answer;
  }
  return view;
}

// ---- the table -----------------------------------------------------------------------------------

let table: TestTable;

/** Item counts per version (other items: pointer, history, keys, quota counters, under ''). */
async function itemsByVersion(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const item of await table.items()) {
    const version = versionOfPartition(item.PK as string) ?? '';
    counts[version] = (counts[version] ?? 0) + 1;
  }
  return counts;
}

const snapshotVersions = async () =>
  Object.keys(await itemsByVersion())
    .filter((v) => v !== '')
    .sort();

/** A client on the same table whose calls of one kind fail after `healthy` of them (test/helpers/faults.ts). */
const flakyClient = (kind: typeof BatchWriteCommand | typeof PutCommand, healthy: number) =>
  flakyOn(table.endpoint, kind, healthy);

// ---- the reference views -------------------------------------------------------------------------

/** How a fresh table holding only `dataset` serves it. */
async function referenceView(dataset: unknown): Promise<View> {
  const fresh = await startTestTable();
  serving = fresh;
  try {
    await importDataset(dataset, { client: fresh.client, tableName: fresh.tableName, now: at(time) });
    return await servedView();
  } finally {
    await fresh.close();
  }
}

let viewOfB: View;
let viewOfC: View;
let viewOfA: View;
let resultA: ImportResult;

beforeAll(async () => {
  setLogSink(() => undefined);
  viewOfB = await referenceView(B);
  viewOfC = await referenceView(C);
  table = await startTestTable();
  serving = table;
  resultA = await importDataset(A, { client: table.client, tableName: table.tableName, now: at(time) });
}, 120_000);

/** The versions the pointer names (served) and keeps for cached readers (retired). */
async function pointerVersions(): Promise<{ served: string[]; retired: string[] }> {
  const pointer = await readPointer(table.client, table.tableName);
  const served = Object.values(pointer?.families ?? {}).flatMap((f) => (f?.version ? [f.version] : []));
  return { served: [...new Set(served)].sort(), retired: (pointer?.retired ?? []).map((r) => r.version).sort() };
}
const servedFamilies = async () => (await readPointer(table.client, table.tableName))?.families;

afterAll(async () => {
  await table?.close();
  setLogSink(() => undefined);
});

// ---- the story -----------------------------------------------------------------------------------

let servedA: Awaited<ReturnType<typeof pointerVersions>>;
let abandoned: string[];

it('serves dataset A', async () => {
  viewOfA = await servedView();
  servedA = await pointerVersions();
  expect(resultA).toMatchObject({
    unchanged: false,
    published: ['exchanges', 'wallets', 'protocols', 'currencies', 'earn', 'borrow', 'collateral'],
  });
  expect(viewOfA['/api/v1/exchanges?limit=200'].body.data.map((e: { slug: string }) => e.slug)).toEqual([
    'binance',
    'bybit',
    'coinbase',
    'kraken',
    'okx',
  ]);
  expect(viewOfA['/api/v1/exchanges/kraken'].body.name).toBe('Kraken');
  expect(viewOfA['/api/v1/exchanges/bitstamp'].status).toBe(404);
  expect(viewOfA['/api/v1/borrow/1/history?period=all'].body.point_count).toBeGreaterThan(0);
  // The datasets differ where the test needs them to.
  expect(viewOfB).not.toEqual(viewOfA);
  expect(viewOfC).not.toEqual(viewOfB);
  // Every stored version is served: nothing else is in the table.
  expect(await snapshotVersions()).toEqual(servedA.served);
});

it('an import of B that loses its connection midway rejects, and A is still served entirely', async () => {
  const flaky = flakyClient(BatchWriteCommand, 3);
  const before = await servedFamilies();
  try {
    time += 1_000;
    await expect(
      importDataset(B, { client: flaky.client, tableName: table.tableName, concurrency: 2, now: at(time) }),
    ).rejects.toThrow(/ECONNRESET/);
    await flaky.settled();
  } finally {
    flaky.close();
  }
  // B is partly written, not published.
  expect((await snapshotVersions()).length).toBeGreaterThan(servedA.served.length);
  expect(await servedFamilies()).toEqual(before);
  expect(await servedView()).toEqual(viewOfA);
});

it('an import of D that writes everything but fails at the publishing write leaves A served', async () => {
  const flaky = flakyClient(PutCommand, 0);
  const before = await servedFamilies();
  const stored = await snapshotVersions();
  try {
    time += 1_000;
    await expect(importDataset(D, { client: flaky.client, tableName: table.tableName, now: at(time) })).rejects.toThrow(
      /ECONNRESET/,
    );
    await flaky.settled();
  } finally {
    flaky.close();
  }
  abandoned = (await snapshotVersions()).filter((v) => !stored.includes(v));
  expect(abandoned.length).toBeGreaterThan(0); // the renamed wallet and the offers that render it
  expect(await servedFamilies()).toEqual(before);
  expect(await servedView()).toEqual(viewOfA);
});

it('re-running B completes it: served as a fresh table serves it, A’s replaced versions kept for cached readers, D’s abandoned version deleted', async () => {
  time += 1_000;
  const result = await importDataset(B, { client: table.client, tableName: table.tableName, now: at(time) });
  expect(result.unchanged).toBe(false);
  // B changes exchanges (a renamed one: offers render it), currencies, earn and borrow history.
  expect(result.published).toEqual(['exchanges', 'currencies', 'earn', 'borrow', 'collateral']);
  expect(result.itemsDeleted).toBeGreaterThan(0);

  const { served, retired } = await pointerVersions();
  expect(retired).toEqual(servedA.served.filter((v) => !served.includes(v)).sort());
  expect(await snapshotVersions()).toEqual([...new Set([...served, ...retired])].sort());
  for (const version of abandoned) expect(await snapshotVersions()).not.toContain(version);

  const view = await servedView();
  expect(view).toEqual(viewOfB);
  expect(view['/api/v1/exchanges/kraken'].body.name).toBe('Kraken Pro');
  expect(view['/api/v1/exchanges/okx'].status).toBe(404);
  expect(view['/api/v1/earn/10'].status).toBe(200);
});

it('an import of C after the retention, the longest readers’ cache a stage may set and the margin deletes A’s replaced versions and keeps what C replaced', async () => {
  const before = await pointerVersions();
  // The command line does not know the stage's pointer cache: it keeps versions for the longest.
  time += retireAfter(MAX_SNAPSHOT_CACHE_MS) + 1;
  const result = await importDataset(C, { client: table.client, tableName: table.tableName, now: at(time) });
  expect(result.published).toEqual(['protocols']);
  const { served, retired } = await pointerVersions();
  expect(retired).toEqual(before.served.filter((v) => !served.includes(v)).sort());
  for (const version of before.retired) expect(await snapshotVersions()).not.toContain(version);
  expect(await snapshotVersions()).toEqual([...new Set([...served, ...retired])].sort());
  expect(await servedView()).toEqual(viewOfC);
});

it('re-running the same import is a no-op', async () => {
  const before = await itemsByVersion();
  const pointer = await readPointer(table.client, table.tableName);
  const counting = flakyClient(BatchWriteCommand, Number.MAX_SAFE_INTEGER);
  try {
    time += 1_000;
    const result = await importDataset(C, { client: counting.client, tableName: table.tableName, now: at(time) });
    expect(result).toMatchObject({ unchanged: true, published: [], itemsWritten: 0, itemsDeleted: 0 });
    // Only the refresh time beside the pointer (`refreshed_at` of GET /api/v1/status, docs/api.md "Freshness").
    expect(counting.writes()).toBe(1);
  } finally {
    counting.close();
  }
  expect(await itemsByVersion()).toEqual(before);
  expect(await readPointer(table.client, table.tableName)).toEqual(pointer);
});

it('while another import holds the lease, an import is refused before writing; an expired lease is taken over', async () => {
  const other = new LeaseStore(table.client, table.tableName);
  time += 1_000;
  await other.acquire({ owner: 'another-import', until: time + 60_000, writing: [] }, time);
  const changed: any = structuredClone(C);
  changed.wallets[0].updated_at = '2026-11-21T00:00:00.000Z'; // no reference changes: offers stay
  const before = await itemsByVersion();
  await expect(
    importDataset(changed, { client: table.client, tableName: table.tableName, now: at(time + 1_000) }),
  ).rejects.toBeInstanceOf(ImportBusyError);
  expect(await itemsByVersion()).toEqual(before);
  // The other import stopped without giving the lease back. Just past its end it is still refused
  // (room for clocks that disagree); once that grace has passed too, the next import proceeds.
  const past = time + 60_000 + TAKEOVER_GRACE_MS;
  await expect(
    importDataset(changed, { client: table.client, tableName: table.tableName, now: at(time + 61_000) }),
  ).rejects.toBeInstanceOf(ImportBusyError);
  const result = await importDataset(changed, {
    client: table.client,
    tableName: table.tableName,
    now: at(past + 1),
  });
  expect(result.published).toEqual(['wallets']);
  expect((await readPointer(table.client, table.tableName))?.lease).toBeUndefined();
  // Back to C for the refusals below.
  time = past + 1_000;
  await importDataset(C, { client: table.client, tableName: table.tableName, now: at(time) });
  expect(await servedView()).toEqual(viewOfC);
});

describe('an invalid file is refused as a whole, before anything is written', () => {
  it.each<[string, () => any, string[]]>([
    [
      'field errors in several families',
      () => {
        const bad: any = fixtureDataset();
        bad.earn_offers[0].apy = 5.5; // a decimal as a JSON number
        delete bad.exchanges[1].slug;
        bad.currencies[2].unknown_field = 1;
        bad.borrow_offers[3].is_active = 'yes';
        bad.earn_history[0].points[5].timestamp = 'yesterday';
        return bad;
      },
      [
        'earn_offers[0].apy:',
        'exchanges[1].slug:',
        'currencies[2].unknown_field:',
        'borrow_offers[3].is_active:',
        'earn_history[0].points[5].timestamp:',
      ],
    ],
    [
      'rules across records',
      () => {
        const bad: any = fixtureDataset();
        bad.exchanges[1].slug = bad.exchanges[0].slug;
        bad.earn_offers[2].id = bad.earn_offers[1].id;
        bad.borrow_history[0].offer_id = 999;
        return bad;
      },
      ['exchanges[1].slug:', 'earn_offers[2].id:', 'borrow_history[0].offer_id:'],
    ],
  ])('%s', async (_, build, places) => {
    const before = await itemsByVersion();
    const pointer = await readPointer(table.client, table.tableName);
    const counting = flakyClient(BatchWriteCommand, Number.MAX_SAFE_INTEGER);
    let refusal: unknown;
    try {
      await importDataset(build(), { client: counting.client, tableName: table.tableName, now: at(time) }).catch(
        (error: unknown) => {
          refusal = error;
        },
      );
      expect(counting.writes()).toBe(0);
    } finally {
      counting.close();
    }
    expect(refusal).toBeInstanceOf(DataFileError);
    const errors = (refusal as DataFileError).errors;
    for (const place of places)
      expect({ place, found: errors.some((e) => e.startsWith(place)) }).toEqual({ place, found: true });

    expect(await itemsByVersion()).toEqual(before);
    expect(await readPointer(table.client, table.tableName)).toEqual(pointer);
    expect(await servedView()).toEqual(viewOfC);
  });
});
