/**
 * Paging one version, changes and freshness (CONTRACT §11; docs/api.md "Paging one version",
 * "Changes" and "Freshness") through the local gateway on the embedded DynamoDB, across real
 * imports at controlled times:
 *
 * - a crawl that follows `Link` with `snapshot=` across two imports sees every record of the first
 *   version exactly once, in its order, with its total; `prev` walks back over the same pages;
 * - changes between two versions are exactly the difference of what the two versions served
 *   (an oracle built from crawls of each), added, changed and removed, by ascending id, paged;
 * - a replaced version stays readable at least 60 minutes, then answers 410 `snapshot_expired`;
 * - `Last-Modified` is when the version was published; `/api/v1/status` tells it without a key
 *   and without budget, with `refreshed_at` and `stale`.
 */

import { type LocalStack, startLocalStack } from '../../local/stack';
import { importDataset } from '../../shared/import/importer';
import { type Dataset, offersDataset, revise } from '../fixtures/offers-1-2';
import { get, type TestResponse } from '../helpers/client';
import { type Family, oracle } from '../helpers/offer-oracle';

const KEY = 'versions_key_0123456789abcdefghijklmno';
const FAMILIES = ['earn', 'borrow', 'collateral'] as const;
const MINUTE = 60_000;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');

const clock = { now: T0 };
let stack: LocalStack;

const A = offersDataset(40, 11);
const { dataset: B } = revise(A, 12);
const { dataset: C } = revise(B, 13);

/** Imports a file at a time of the test's clock, which the handlers read too. */
async function importAt(data: Dataset, at: number) {
  clock.now = at;
  return importDataset(data, { client: stack.clients.client, tableName: stack.tableName, now: () => new Date(at) });
}

const request = (path: string, headers: Record<string, string> = {}) => get(stack.url, path, { key: KEY, headers });
const httpDate = (ms: number) => new Date(ms).toUTCString();
const nextOf = (res: TestResponse) => /<([^>]*)>; rel="next"/.exec(res.headers.link ?? '')?.[1];
const prevOf = (res: TestResponse) => /<([^>]*)>; rel="prev"/.exec(res.headers.link ?? '')?.[1];
const idsOf = (res: TestResponse) => res.body.data.map((o: { id: number }) => o.id);

/** Every page from `path`, following `rel="next"`. */
async function crawl(path: string): Promise<TestResponse[]> {
  const pages = [await request(path)];
  for (let next = nextOf(pages[0]); next !== undefined; next = nextOf(pages[pages.length - 1])) {
    const page = await request(next);
    expect(page.status).toBe(200);
    pages.push(page);
  }
  return pages;
}

/** What a version served: every offer of a family by id, as its pinned pages rendered it. */
async function servedBy(family: Family, snapshot: string): Promise<Map<number, unknown>> {
  const pages = await crawl(`/api/v1/${family}?limit=200&snapshot=${snapshot}`);
  return new Map(pages.flatMap((p) => p.body.data.map((o: { id: number }) => [o.id, o] as const)));
}

/** The version each family serves, as its lists name it. */
async function servedSnapshots(): Promise<Record<Family, string>> {
  const entries = await Promise.all(
    FAMILIES.map(
      async (family) => [family, (await request(`/api/v1/${family}?limit=1`)).body.pagination.snapshot] as const,
    ),
  );
  return Object.fromEntries(entries) as Record<Family, string>;
}

let snapshotA: Record<Family, string>;
let snapshotB: Record<Family, string>;

beforeAll(async () => {
  stack = await startLocalStack({
    accounts: { users: [{ id: 'v', premium: true, keys: [{ key: KEY, per_minute: 100_000, per_month: 10_000_000 }] }] },
    env: { SNAPSHOT_CACHE_MS: '0' },
    clock: () => new Date(clock.now),
  });
  await importAt(A, T0);
  snapshotA = await servedSnapshots();
}, 120_000);
afterAll(() => stack?.close());

describe('a crawl pinned to one version across imports', () => {
  const CRAWLS = [
    ['earn', 'sort=apy_desc&limit=7'],
    ['borrow', 'asset=tether,usd-coin&min_tvl=1e3&sort=tvl_desc&limit=3'],
    ['collateral', 'limit=4'],
  ] as const;

  it('follows Link to the end and sees every record of the first version once, in its order, with its total', async () => {
    // The first pages before the import of B, the rest after it.
    const firsts = await Promise.all(CRAWLS.map(([family, query]) => request(`/api/v1/${family}?${query}`)));
    await importAt(B, T0 + MINUTE);
    snapshotB = await servedSnapshots();
    for (const family of FAMILIES) expect(snapshotB[family]).not.toBe(snapshotA[family]);

    for (const [i, [family, query]] of CRAWLS.entries()) {
      const expected = oracle(A, family, Object.fromEntries(new URLSearchParams(query)));
      const pages = [firsts[i]];
      for (let next = nextOf(pages[0]); next !== undefined; next = nextOf(pages[pages.length - 1]))
        pages.push(await request(next));
      for (const page of pages)
        expect([family, page.status, page.body.pagination]).toMatchObject([
          family,
          200,
          { total: expected.total, snapshot: snapshotA[family] },
        ]);
      expect([family, pages.flatMap(idsOf)]).toEqual([family, expected.all]);
      expect(pages.length).toBeGreaterThan(2);
      expect(pages[pages.length - 1].body.pagination.has_more).toBe(false);

      // Back from the last page over the same pages of the same version.
      let back = pages[pages.length - 1];
      const seen = [idsOf(back)];
      for (let prev = prevOf(back); prev !== undefined; prev = prevOf(back)) {
        back = await request(prev);
        seen.unshift(idsOf(back));
      }
      expect([family, seen.flat()]).toEqual([family, expected.all]);
    }
  });

  it('reads the newer version without snapshot, and the same body with its snapshot', async () => {
    for (const family of FAMILIES) {
      const latest = await request(`/api/v1/${family}?limit=200`);
      expect(idsOf(latest)).toEqual(oracle(B, family, { limit: '200' }).ids);
      expect(latest.body.pagination.snapshot).toBe(snapshotB[family]);
      const pinned = await request(`/api/v1/${family}?limit=200&snapshot=${snapshotB[family]}`);
      expect(pinned.raw).toBe(latest.raw);
    }
  });

  it('pins platform and currency lists too, and follows their Link to the end', async () => {
    const pages = await crawl('/api/v1/exchanges?limit=2');
    expect(pages.flatMap((p) => p.body.data.map((e: { slug: string }) => e.slug)).sort()).toEqual([
      'binance',
      'bybit',
      'coinbase',
      'kraken',
      'okx',
    ]);
    expect(new Set(pages.map((p) => p.body.pagination.snapshot)).size).toBe(1);
    const currencies = await crawl('/api/v1/currencies?limit=1');
    expect(currencies.flatMap((p) => p.body.data.map((c: { slug: string }) => c.slug))).toEqual([
      'bitcoin',
      'ethereum',
      'tether',
      'also-no-rank',
      'no-rank',
    ]);
  });
});

describe('changes between two versions', () => {
  it.each(FAMILIES)(
    '%s: exactly the offers whose served representation differs, by ascending id, paged by Link',
    async (family) => {
      const since = snapshotA[family];
      const [before, after] = await Promise.all([servedBy(family, since), servedBy(family, snapshotB[family])]);
      const expected: { id: number; change: string; offer: unknown }[] = [];
      for (const id of [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => a - b)) {
        const then = before.get(id);
        const now = after.get(id);
        if (then === undefined) expected.push({ id, change: 'added', offer: now });
        else if (now === undefined) expected.push({ id, change: 'removed', offer: null });
        else if (JSON.stringify(then) !== JSON.stringify(now)) expected.push({ id, change: 'changed', offer: now });
      }
      expect(new Set(expected.map((e) => e.change))).toEqual(new Set(['added', 'changed', 'removed']));
      // Some offers were served by both, unchanged: they are not listed.
      expect(expected.length).toBeLessThan(after.size);

      const pages = await crawl(`/api/v1/${family}/changes?since=${since}&limit=4`);
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) {
        expect(page.body).toMatchObject({
          since,
          snapshot: snapshotB[family],
          pagination: { total: expected.length, snapshot: snapshotB[family] },
        });
        expect(page.headers['last-modified']).toBe(httpDate(T0 + MINUTE));
      }
      expect(pages.flatMap((p) => p.body.data)).toEqual(expected);
    },
  );

  it('is empty from a version to itself', async () => {
    const res = await request(`/api/v1/earn/changes?since=${snapshotB.earn}`);
    expect(res.body).toMatchObject({
      since: snapshotB.earn,
      snapshot: snapshotB.earn,
      data: [],
      pagination: { total: 0, has_more: false },
    });
    const pinned = await request(`/api/v1/earn/changes?since=${snapshotA.earn}&snapshot=${snapshotA.earn}`);
    expect(pinned.body).toMatchObject({ snapshot: snapshotA.earn, data: [] });
  });
});

describe('freshness', () => {
  it('dates every list, detail and 304 by the publication of the version it reads', async () => {
    const list = await request('/api/v1/earn?limit=1');
    expect(list.headers['last-modified']).toBe(httpDate(T0 + MINUTE));
    const detail = await request(`/api/v1/earn/${list.body.data[0].id}`);
    expect(detail.headers['last-modified']).toBe(httpDate(T0 + MINUTE));
    const notModified = await request('/api/v1/earn?limit=1', { 'If-None-Match': list.headers.etag });
    expect([notModified.status, notModified.headers['last-modified'], notModified.headers.link]).toEqual([
      304,
      httpDate(T0 + MINUTE),
      undefined,
    ]);
    // Platforms were not changed by B: still A's date.
    expect((await request('/api/v1/exchanges')).headers['last-modified']).toBe(httpDate(T0));
    // A currency embeds offers: the newest of the versions it reads.
    expect((await request('/api/v1/currencies/tether')).headers['last-modified']).toBe(httpDate(T0 + MINUTE));
    const pinned = await request(`/api/v1/earn?limit=1&snapshot=${snapshotA.earn}`);
    expect(pinned.headers['last-modified']).toBe(httpDate(T0));
  });

  it('answers /api/v1/status without a key and without budget', async () => {
    const used = async () => (await request('/api/v1/usage')).body.minute.used as number;
    const before = await used();
    const status = await get(stack.url, '/api/v1/status');
    expect(await used()).toBe(before + 1);

    expect(status.status).toBe(200);
    expect(status.headers['x-ratelimit-remaining']).toBeUndefined();
    expect(Object.keys(status.body.families).sort()).toEqual([
      'borrow',
      'collateral',
      'currencies',
      'earn',
      'exchanges',
      'protocols',
      'wallets',
    ]);
    expect(status.body.families.earn).toEqual({
      snapshot: snapshotB.earn,
      published_at: new Date(T0 + MINUTE).toISOString(),
      refreshed_at: new Date(T0 + MINUTE).toISOString(),
      max_age_seconds: expect.any(Number),
      stale: false,
    });
    expect(status.body.families.exchanges.published_at).toBe(new Date(T0).toISOString());
    const badQuery = await get(stack.url, '/api/v1/status?family=earn');
    expect([badQuery.status, badQuery.body.error.details.message]).toEqual([400, ['property family should not exist']]);
  });

  it('moves refreshed_at, not published_at, when an import carries a family unchanged; stale after max_age_seconds', async () => {
    const again = T0 + 30 * MINUTE;
    await importAt(B, again);
    const status = (await get(stack.url, '/api/v1/status')).body.families;
    expect(status.earn).toMatchObject({
      snapshot: snapshotB.earn,
      published_at: new Date(T0 + MINUTE).toISOString(),
      refreshed_at: new Date(again).toISOString(),
    });
    expect((await request('/api/v1/earn?limit=1')).headers['last-modified']).toBe(httpDate(T0 + MINUTE));

    const maxAge = status.earn.max_age_seconds * 1000;
    clock.now = again + maxAge;
    expect((await get(stack.url, '/api/v1/status')).body.families.earn.stale).toBe(false);
    clock.now = again + maxAge + 1000;
    expect((await get(stack.url, '/api/v1/status')).body.families.earn.stale).toBe(true);
    clock.now = again;
  });
});

describe('expiry', () => {
  it('keeps a replaced version readable 60 minutes after it was replaced', async () => {
    // A was replaced at T0 + 1 min; an import at T0 + 59 min (C) must leave it readable.
    await importAt(C, T0 + 59 * MINUTE);
    const pinned = await request(`/api/v1/earn?limit=200&snapshot=${snapshotA.earn}`);
    expect([pinned.status, idsOf(pinned)]).toEqual([200, oracle(A, 'earn', { limit: '200' }).ids]);
  });

  it('answers 410 snapshot_expired for a version gone, or never known, naming the parameter', async () => {
    // Hours later, after more imports: A is older than any retention.
    await importAt(B, T0 + 3 * 60 * MINUTE);
    await importAt(C, T0 + 5 * 60 * MINUTE);
    const since = snapshotA.earn;
    for (const [path, parameter] of [
      [`/api/v1/earn?snapshot=${since}`, 'snapshot'],
      [`/api/v1/earn/changes?since=${since}`, 'since'],
      ['/api/v1/borrow?snapshot=never_published_0', 'snapshot'],
      ['/api/v1/exchanges?snapshot=never_published_0', 'snapshot'],
      ['/api/v1/collateral/changes?since=never_published_0', 'since'],
    ] as const) {
      const res = await request(path);
      expect([path, res.status, res.body.error.code, res.body.error.details]).toEqual([
        path,
        410,
        'snapshot_expired',
        { parameter },
      ]);
      expect(res.headers['x-ratelimit-remaining']).toEqual(expect.any(String));
    }
  });
});
