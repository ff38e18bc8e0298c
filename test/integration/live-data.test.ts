/**
 * Live data (docs/adr/0006-live-data.md), on the embedded DynamoDB through the real handlers with
 * the deployed pointer cache (5 s) and an injected clock:
 * - imports faster than the cache never make a reader meet deleted data;
 * - a family import writes that family (and the offers only when a reference they render changed);
 * - history is appended: new observations only, re-sent ones write nothing, a same-instant one
 *   corrects, a late one counts in its window; a catalog import leaves history alone;
 * - what no window can reach is not written, and every item expires after its stated retention.
 */

import { HISTORY_PREFIX, SNAPSHOT_PREFIX } from '../../shared/data/keys';
import { RETENTION_MS, SERIES } from '../../shared/domain/buckets';
import { importDataset, RETIRE_MARGIN_MS } from '../../shared/import/importer';
import { itemStart } from '../../shared/model/history-series';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable, versionOfPartition } from '../helpers/embedded';

const CACHE_MS = 5_000;
let table: TestTable;
let api: TestApi;
let now = NOW.getTime();
const clock = () => new Date(now);
const importAt = (dataset: unknown) =>
  importDataset(dataset, {
    client: table.client,
    tableName: table.tableName,
    now: clock,
    retireAfterMs: CACHE_MS + RETIRE_MARGIN_MS,
  });

const KEY = { keyId: 'k-live', perMinute: 1_000_000, perMonth: 100_000_000 };
async function get(path: string) {
  const fn = path.includes('/history')
    ? api.history
    : path.startsWith('/api/v1/currencies')
      ? api.currencies
      : path.match(/^\/api\/v1\/(earn|borrow|collateral)/)
        ? api.offers
        : api.platforms;
  return invoke(fn, apiEvent(path, KEY));
}

const scan = () => table.items();
const historyItems = async () => (await scan()).filter((i) => (i.PK as string).startsWith(HISTORY_PREFIX));
const storedVersions = async () =>
  new Set(
    (await scan()).flatMap((i) =>
      (i.PK as string).startsWith(SNAPSHOT_PREFIX) ? [versionOfPartition(i.PK as string)!] : [],
    ),
  );

beforeAll(async () => {
  table = await startTestTable();
  api = table.api({ clock, env: { SNAPSHOT_CACHE_MS: String(CACHE_MS), READ_CACHE_MB: '0' } });
  await importAt(fixtureDataset());
}, 60_000);
afterAll(() => table.close());

describe('imports faster than the pointer cache', () => {
  const renamed = (name: string) => {
    const d: any = fixtureDataset();
    d.exchanges.find((e: any) => e.slug === 'kraken').name = name; // earn 3 renders it
    return { exchanges: d.exchanges };
  };
  const paths = [
    '/api/v1/earn/3',
    '/api/v1/earn/1/history?period=1w',
    '/api/v1/currencies/bitcoin',
    '/api/v1/earn?platform=kraken',
  ];

  it('every record a cached pointer names is still served, and deleted only once no cache can name it', async () => {
    now += 1_000;
    for (const path of paths) expect(`${path} ${(await get(path)).status}`).toBe(`${path} 200`); // the pointer is now cached
    const before = await storedVersions();

    // Three imports within the cache, each read before the pointer is half-way to expiry (after that a
    // request refreshes it ahead, snapshot-store.ts): each replaces the exchanges and the offers that render them.
    for (const name of ['Kraken 1', 'Kraken 2', 'Kraken 3']) {
      now += 500;
      const result = await importAt(renamed(name));
      expect(result.published).toEqual(['exchanges', 'earn', 'borrow', 'collateral']);
      expect(result.itemsDeleted).toBe(0);
      for (const path of paths) expect(`${path} ${(await get(path)).status}`).toBe(`${path} 200`);
    }
    // The cached pointer still names the first versions: served as they were.
    expect((await get('/api/v1/earn/3')).body.platform.name).toBe('Kraken');
    for (const version of before) expect((await storedVersions()).has(version)).toBe(true);

    // Once the cache has expired the new versions are served ...
    now += CACHE_MS;
    expect((await get('/api/v1/earn/3')).body.platform.name).toBe('Kraken 3');
    // ... and the next import after the margin deletes the versions no cache can name any more.
    now += RETIRE_MARGIN_MS;
    const result = await importAt(renamed('Kraken 4'));
    expect(result.itemsDeleted).toBeGreaterThan(0);
    const stored = await storedVersions();
    const replaced = [...before].filter((v) => !stored.has(v));
    expect(replaced.length).toBe(4); // the first exchanges, earn, borrow and collateral versions
    now += CACHE_MS;
    for (const path of paths) expect(`${path} ${(await get(path)).status}`).toBe(`${path} 200`);
    expect((await get('/api/v1/earn/3')).body.platform.name).toBe('Kraken 4');
  });
});

describe('a refresh pays for what changed', () => {
  it('an exchanges file whose references are unchanged writes the exchanges only', async () => {
    const d = { exchanges: await servedExchanges() };
    now += 1_000;
    const result = await importAt({ exchanges: d.exchanges });
    expect(result.published).toEqual(['exchanges']);
    expect(result.history.itemsWritten).toBe(0);
    now += CACHE_MS;
    expect((await get(`/api/v1/exchanges/${d.exchanges[0].slug}`)).body.stats.weekly_visits).toBe(4242);
  });

  it('an import of what is served writes nothing, history included', async () => {
    now += 1_000;
    const result = await importAt({ ...fixtureDataset(), exchanges: await servedExchanges() });
    expect(result).toMatchObject({ unchanged: true, itemsWritten: 0, itemsDeleted: 0, published: [] });
  });
});

/** The exchanges as imported by the tests above (kraken renamed, more visits for the first). */
async function servedExchanges() {
  const d: any = fixtureDataset();
  d.exchanges.find((e: any) => e.slug === 'kraken').name = 'Kraken 4';
  d.exchanges[0].stats.weekly_visits = 4242;
  return d.exchanges;
}

describe('history is append-only', () => {
  const at = (iso: string) => Date.parse(iso);
  const series = async (period: string) => (await get(`/api/v1/borrow/1/history?period=${period}`)).body;

  it('appends new observations only, whatever is stored, and leaves the rest as it was', async () => {
    const before = await historyItems();
    const result = await importAt({
      borrow_history: [{ offer_id: 1, points: [{ timestamp: '2026-11-20T10:00:00.000Z', apy: '7.5' }] }],
    });
    // One observation: the items of its hour, 4h, 1d and 1w buckets (it is the latest of each).
    expect(result.history).toMatchObject({ observations: 1, itemsWritten: 4 });
    // Borrow's APY figures are computed again (docs/adr/0015-apy-figures.md): a version of the same documents.
    expect(result.published).toEqual(['borrow']);
    const after = await historyItems();
    // The items that hold its buckets (hour, 4 hours, day, week) are the only ones written; every other stays as it was.
    const same = (a: Record<string, unknown>) => (b: Record<string, unknown>) =>
      JSON.stringify(a) === JSON.stringify(b);
    const written = after.filter((a) => !before.some(same(a)));
    expect(written.map((i) => i.PK)).toEqual(['HIST#BORROW#1', 'HIST#BORROW#1', 'HIST#BORROW#1', 'HIST#BORROW#1']);
    const keys = new Set(written.map((i) => `${i.PK} ${i.SK}`));
    expect(after.filter((a) => !keys.has(`${a.PK} ${a.SK}`))).toEqual(
      before.filter((b) => !keys.has(`${b.PK} ${b.SK}`)),
    );
    // Served with its import's publish: once the readers' pointer cache has passed, like a catalog change.
    now += CACHE_MS;
    const day = await series('24h');
    expect(day.data[day.data.length - 1]).toEqual({ timestamp: '2026-11-20T10:00:00.000Z', apy: '7.5' });
    expect((await series('all')).data.at(-1)).toEqual({ timestamp: '2026-11-16T00:00:00.000Z', apy: '7.5' });
  });

  it('a file of new observations is asked whether it changes anything with a few series, then appended: each candidate read once, and the first round twice', async () => {
    const earnIds: number[] = fixtureDataset().earn_offers.map((o: any) => o.id);
    expect(earnIds.length).toBeGreaterThan(8); // more series than the probe's first round
    const keysAsked: number[] = [];
    const counter = 'count-batch-get-keys';
    table.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'BatchGetItemCommand') {
          // History's keys (an import that writes history also reads its figure state's chunks).
          const requests = Object.values(
            (args.input as any).RequestItems as Record<string, { Keys: { PK: string }[] }>,
          );
          keysAsked.push(requests.reduce((n, r) => n + r.Keys.filter((k) => k.PK.startsWith('HIST#')).length, 0));
        }
        return next(args);
      },
      { step: 'initialize', name: counter },
    );
    try {
      const point = { timestamp: '2026-11-20T11:00:00.000Z', apy: '6.5', tvl: '1000' };
      const result = await importAt({ earn_history: earnIds.map((offer_id) => ({ offer_id, points: [point] })) });
      // Each series: the items of its hour and its 4h, 1d and 1w buckets.
      expect(result.history).toMatchObject({ observations: earnIds.length, itemsRead: 4 * earnIds.length });
      expect(keysAsked.reduce((a, b) => a + b, 0)).toBe(4 * 8 + 4 * earnIds.length);
    } finally {
      table.client.middlewareStack.remove(counter);
    }
  });

  it('re-sending stored observations writes nothing', async () => {
    const result = await importAt({ borrow_history: fixtureDataset().borrow_history });
    expect(result).toMatchObject({ unchanged: true, itemsWritten: 0 });
  });

  it('a same-instant observation corrects the stored one; an earlier one in a bucket leaves the bucket as it is', async () => {
    const correction = await importAt({
      borrow_history: [{ offer_id: 1, points: [{ timestamp: '2026-11-20T10:00:00.000Z', apy: '7.25' }] }],
    });
    expect(correction.history.itemsWritten).toBe(4);
    now += CACHE_MS;
    expect((await series('24h')).data.at(-1)).toEqual({ timestamp: '2026-11-20T10:00:00.000Z', apy: '7.25' });

    // Late and out of order: 09:30 is earlier than the stored 10:00 of the same 4h, day and week buckets.
    const late = await importAt({
      borrow_history: [{ offer_id: 1, points: [{ timestamp: '2026-11-20T09:30:00.000Z', apy: '1.5' }] }],
    });
    expect(late.history.itemsWritten).toBe(1);
    now += CACHE_MS;
    const day = await series('24h');
    expect(day.data.slice(-2)).toEqual([
      { timestamp: '2026-11-20T09:00:00.000Z', apy: '1.5' },
      { timestamp: '2026-11-20T10:00:00.000Z', apy: '7.25' },
    ]);
    expect((await series('1m')).data.at(-1)).toEqual({ timestamp: '2026-11-20T08:00:00.000Z', apy: '7.25' });
  });

  it('a catalog import leaves history alone, and history of an offer no longer published stays stored, unserved', async () => {
    const before = await historyItems();
    const d: any = fixtureDataset();
    d.borrow_offers.find((o: any) => o.id === 1).published = false;
    now += 1_000;
    const result = await importAt({ borrow_offers: d.borrow_offers });
    expect(result.published).toEqual(['borrow']);
    expect(await historyItems()).toEqual(before);
    now += CACHE_MS;
    expect((await get('/api/v1/borrow/1/history?period=all')).status).toBe(404);
    now += 1_000;
    await importAt({ borrow_offers: fixtureDataset().borrow_offers });
    now += CACHE_MS;
    expect((await series('24h')).data.at(-1)).toEqual({ timestamp: '2026-11-20T10:00:00.000Z', apy: '7.25' });
  });

  it('stores nothing that no window can reach, and gives every item its expiry', async () => {
    const old = '2026-01-05T00:00:00.000Z'; // older than the raw and 4h retention, within the daily one
    const result = await importAt({ borrow_history: [{ offer_id: 2, points: [{ timestamp: old, apy: '2.5' }] }] });
    expect(result.history.itemsWritten).toBe(2); // its day and week buckets only
    const items = (await historyItems()).filter((i) => i.PK === 'HIST#BORROW#2');
    expect(items.map((i) => (i.SK as string).split('.')[0]).sort()).toEqual(['1D', '1W']);
    // An item expires when the last bucket of its span does: once no window reaches any bucket it may hold.
    const daily = items.find((i) => (i.SK as string).startsWith('1D'))!;
    const spanEnd = itemStart('1D', at(old)) + SERIES['1d'].perItem * SERIES['1d'].bucketMs;
    expect(daily.expiresAt).toBe(Math.ceil((spanEnd - SERIES['1d'].bucketMs + RETENTION_MS['1D']!) / 1000));
    expect(items.find((i) => (i.SK as string).startsWith('1W'))!.expiresAt).toBeUndefined();
    for (const item of await historyItems()) {
      const resolution = (item.SK as string).split('.')[0] as keyof typeof RETENTION_MS;
      expect(item.expiresAt === undefined).toBe(RETENTION_MS[resolution] === null);
    }
  });
});
