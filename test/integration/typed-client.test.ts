/**
 * The TypeScript client (client/index.ts) against the local stack: it pages a whole list, answers
 * errors as values with the envelope's code, follows renames, answers 304 to a matching
 * `If-None-Match`, and waits `Retry-After` within its bounds. Every answer it receives is also
 * checked against docs/openapi.json, and the waits move the stack's clock instead of the test's.
 */
import { parse } from 'csv-parse/sync';
import { createMarketDataClient, MarketDataApiError, type MarketDataClientOptions } from '../../client';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { importDataset } from '../../shared/import/importer';
import { fixtureDataset } from '../fixtures/dataset';
import { checkResponse } from '../helpers/contract';

const KEY = 'client_key_0123456789abcdefghijklmnopq';
const ONE_PER_MINUTE = 'client_slow_0123456789abcdefghijklmnop';
const ONE_PER_MONTH = 'client_month_0123456789abcdefghijklmno';
const START = new Date('2026-11-20T10:00:30.000Z');

const ACCOUNTS = {
  users: [
    {
      id: 'client',
      premium: true,
      keys: [
        { key: KEY, per_minute: 1000 },
        { key: ONE_PER_MINUTE, per_minute: 1 },
        { key: ONE_PER_MONTH, per_month: 1 },
      ],
    },
  ],
};

const clock = { now: START };
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    dataset: fixtureDataset(),
    accounts: ACCOUNTS,
    env: { SNAPSHOT_CACHE_MS: '0' },
    clock: () => clock.now,
  });
});
afterAll(() => stack.close());
beforeEach(() => {
  clock.now = START;
});

/** A client on the local stack whose requests are counted and whose answers are contract-checked. */
function client(apiKey: string, options: Partial<MarketDataClientOptions> = {}) {
  const requests: string[] = [];
  const waits: number[] = [];
  const api = createMarketDataClient({
    baseUrl: stack.url,
    apiKey,
    fetch: async (request) => {
      const url = new URL(request.url);
      requests.push(`${url.pathname}${url.search}`);
      const response = await fetch(request);
      const raw = await response.clone().text();
      checkResponse({
        method: 'GET',
        path: new URL(response.url).pathname + new URL(response.url).search,
        status: response.status,
        headers: Object.fromEntries([...response.headers].map(([k, v]) => [k.toLowerCase(), v])),
        body:
          raw === '' || response.headers.get('Content-Type')?.startsWith('text/csv')
            ? raw || undefined
            : JSON.parse(raw),
      });
      return response;
    },
    // Waiting moves the stack's clock: no real time passes.
    sleep: async (ms) => {
      waits.push(ms);
      clock.now = new Date(clock.now.getTime() + ms);
    },
    ...options,
  });
  return { api, requests, waits };
}

describe('pages()', () => {
  it('yields every item of a list, page after page, in the order of one large page', async () => {
    const { api, requests } = client(KEY);
    const one = await api.get('/api/v1/exchanges', { query: { limit: 200 } });
    if (one.kind !== 'ok') throw new Error(`expected a page, got ${one.kind}`);

    const paged = [];
    for await (const exchange of api.pages('/api/v1/exchanges', { query: { limit: 2 } })) paged.push(exchange.slug);

    expect(paged).toEqual(one.data.data.map((e) => e.slug));
    expect(requests.length - 1).toBe(Math.ceil(paged.length / 2));
  });

  it('keeps the filters of every page', async () => {
    const { api } = client(KEY);
    const all = await api.get('/api/v1/earn', { query: { asset: ['bitcoin'], limit: 200 } });
    if (all.kind !== 'ok') throw new Error(`expected a page, got ${all.kind}`);
    const ids = [];
    for await (const offer of api.pages('/api/v1/earn', { query: { asset: ['bitcoin'], limit: 1 } }))
      ids.push(offer.id);
    expect(ids.length).toBeGreaterThan(1);
    expect(ids).toEqual(all.data.data.map((o) => o.id));
  });

  it("follows Link: every page after the first is pinned to the first page's snapshot, which it tells", async () => {
    const { api, requests } = client(KEY);
    const one = await api.get('/api/v1/earn', { query: { limit: 200, sort: 'tvl_desc' } });
    if (one.kind !== 'ok') throw new Error(`expected a page, got ${one.kind}`);
    const pages = api.pages('/api/v1/earn', { query: { limit: 2, sort: 'tvl_desc' } });
    expect(pages.snapshot).toBeNull();
    const ids = [];
    for await (const offer of pages) ids.push(offer.id);
    expect(ids).toEqual(one.data.data.map((o) => o.id));
    expect(pages.snapshot).toBe(one.data.pagination.snapshot);
    const followed = requests.slice(2);
    expect(followed.length).toBeGreaterThan(1);
    for (const url of followed) expect(url).toContain(`snapshot=${one.data.pagination.snapshot}`);
  });

  it('sends a list parameter as one comma-separated value', async () => {
    const { api, requests } = client(KEY);
    const both = await api.get('/api/v1/earn', {
      query: { asset: ['bitcoin', 'ethereum'], platform_type: ['exchange', 'protocol'] },
    });
    expect(both.kind).toBe('ok');
    expect(requests).toEqual(['/api/v1/earn?asset=bitcoin,ethereum&platform_type=exchange,protocol']);
  });

  it('throws the error answer as a MarketDataApiError with its code', async () => {
    const { api } = client(KEY);
    const iterate = async () => {
      for await (const _ of api.pages('/api/v1/earn', { query: { limit: 200, platform: ['x'.repeat(300)] } })) void _;
    };
    await expect(iterate()).rejects.toThrow(MarketDataApiError);
    await expect(iterate()).rejects.toMatchObject({ error: { status: 400, code: 'validation_error' } });
  });
});

describe('get()', () => {
  it('answers an error as a value with the envelope code, message, details and request id', async () => {
    const { api } = client(KEY);
    const missing = await api.get('/api/v1/exchanges/{slug}', { path: { slug: 'no-such-exchange' } });
    expect(missing).toMatchObject({ kind: 'error', error: { status: 404, code: 'not_found', details: null } });
    if (missing.kind === 'error') expect(missing.error.requestId).toMatch(/.+/);

    const invalid = await api.get('/api/v1/earn', { query: { limit: 500 } });
    expect(invalid).toMatchObject({
      kind: 'error',
      error: { status: 400, code: 'validation_error', details: { message: ['limit must not be greater than 200'] } },
    });
  });

  it('follows a renamed slug to the current record and says where it went', async () => {
    const { api } = client(KEY);
    const renamed = await api.get('/api/v1/exchanges/{slug}', { path: { slug: 'bybit-old' } });
    expect(renamed.kind).toBe('ok');
    if (renamed.kind !== 'ok') return;
    expect(renamed.data.slug).toBe('bybit');
    expect(renamed.renamedTo).toBe(`${stack.url}/api/v1/exchanges/bybit`);

    const current = await api.get('/api/v1/exchanges/{slug}', { path: { slug: 'bybit' } });
    expect(current).toMatchObject({ kind: 'ok', renamedTo: null });
  });

  it('answers not_modified to a matching If-None-Match', async () => {
    const { api } = client(KEY);
    const first = await api.get('/api/v1/currencies', { query: { limit: 3 } });
    if (first.kind !== 'ok') throw new Error(`expected a page, got ${first.kind}`);
    const etag = first.response.headers.get('ETag') ?? '';
    expect(etag).not.toBe('');

    const again = await api.get('/api/v1/currencies', { query: { limit: 3 }, header: { 'If-None-Match': etag } });
    expect(again).toMatchObject({ kind: 'not_modified', etag });
    const other = await api.get('/api/v1/currencies', { query: { limit: 4 }, header: { 'If-None-Match': etag } });
    expect(other.kind).toBe('ok');
  });
});

describe('Retry-After', () => {
  it('waits the seconds a 429 says, then gets the answer', async () => {
    const { api, requests, waits } = client(ONE_PER_MINUTE);
    expect((await api.get('/api/v1/usage')).kind).toBe('ok');

    const usage = await api.get('/api/v1/usage');

    // 10:00:30 → the next UTC minute is 30 s away.
    expect(waits).toEqual([30_000]);
    expect(requests).toHaveLength(3);
    expect(usage).toMatchObject({ kind: 'ok', data: { minute: { used: 1, remaining: 0 } } });
  });

  it('gives up after maxRetries and answers the refusal', async () => {
    clock.now = new Date('2026-11-20T10:05:30.000Z'); // a minute the test before did not spend
    const { api, requests, waits } = client(ONE_PER_MINUTE, {
      maxRetries: 2,
      sleep: async (ms) => void waits.push(ms),
    });
    expect((await api.get('/api/v1/usage')).kind).toBe('ok');

    const refused = await api.get('/api/v1/usage');

    expect(waits).toHaveLength(2);
    expect(requests).toHaveLength(1 + 3);
    expect(refused).toMatchObject({
      kind: 'error',
      error: { status: 429, code: 'rate_limit_exceeded', retryAfterSeconds: 30 },
    });
  });

  it('does not wait longer than maxRetryAfterSeconds: a spent monthly quota is answered at once', async () => {
    const { api, requests, waits } = client(ONE_PER_MONTH, { maxRetryAfterSeconds: 3600 });
    await api.get('/api/v1/usage');

    const refused = await api.get('/api/v1/usage');

    expect(waits).toEqual([]);
    expect(requests).toHaveLength(2);
    expect(refused).toMatchObject({ kind: 'error', error: { status: 429, code: 'monthly_quota_exceeded' } });
    if (refused.kind === 'error') expect(refused.error.retryAfterSeconds).toBeGreaterThan(3600);
  });
});

describe('csv()', () => {
  it('gets a list as the CSV text the API writes, with its pagination from the headers', async () => {
    const { api, requests } = client(KEY);
    const json = await api.get('/api/v1/earn', { query: { limit: 2, sort: 'apy_asc' } });
    const csv = await api.csv('/api/v1/earn', { query: { limit: 2, sort: 'apy_asc' } });
    if (json.kind !== 'ok' || csv.kind !== 'ok') throw new Error('expected two pages');
    const [header, ...rows] = parse(csv.text, { record_delimiter: '\r\n' }) as string[][];
    expect(header[0]).toBe('id');
    expect(rows.map((row) => Number(row[0]))).toEqual(json.data.data.map((offer) => offer.id));
    expect(csv.total).toBe(json.data.pagination.total);
    expect(csv.snapshot).toBe(json.data.pagination.snapshot);
    expect(csv.next).toBe(`/api/v1/earn?limit=2&sort=apy_asc&offset=2&snapshot=${csv.snapshot}`);
    expect(csv.response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
    expect(requests).toHaveLength(2);
  });

  it('gets a history window as CSV, the offer id first, without list headers', async () => {
    const { api } = client(KEY);
    const csv = await api.csv('/api/v1/earn/{id}/history', { path: { id: 1 }, query: { period: '24h' } });
    if (csv.kind !== 'ok') throw new Error(`expected CSV, got ${csv.kind}`);
    const [header, first] = parse(csv.text, { record_delimiter: '\r\n' }) as string[][];
    expect(header).toEqual(['id', 'timestamp', 'apy', 'tvl']);
    expect(first[0]).toBe('1');
    expect([csv.total, csv.snapshot]).toEqual([null, null]);
  });

  it("gets several offers' history as CSV in one request, as examples/history-csv.ts does: their rows in the order of ids", async () => {
    const { api, requests } = client(KEY);
    const before = requests.length;
    const query = { ids: [4, 1], from: '2026-11-18T00:00:00Z', interval: '4h' as const };
    const csv = await api.csv('/api/v1/earn/history', { query });
    if (csv.kind !== 'ok') throw new Error(`expected CSV, got ${csv.kind}`);
    expect(requests.length - before).toBe(1);
    const [header, ...rows] = parse(csv.text, { record_delimiter: '\r\n' }) as string[][];
    expect(header).toEqual(['id', 'timestamp', 'apy', 'tvl']);
    const json = await api.history('earn', [4, 1], query);
    expect(rows).toEqual(
      json.data.flatMap(({ id, data }) => data.map((p) => [String(id), p.timestamp, p.apy, p.tvl ?? ''])),
    );
    expect(rows.length).toBeGreaterThan(0);
  });

  it('asks for the figures as examples/stable-yields.ts does: one request, each offer with apy_stats last', async () => {
    const { api, requests } = client(KEY);
    const before = requests.length;
    const query = {
      sort: 'apy_stddev_30d_asc' as const,
      limit: 5,
      include: ['apy_stats' as const],
    };
    const answer = await api.get('/api/v1/earn', { query });
    if (answer.kind !== 'ok') throw new Error(`expected a page, got ${answer.kind}`);
    expect(requests.length - before).toBe(1);
    expect(answer.data.data.length).toBeGreaterThan(0);
    for (const offer of answer.data.data) expect(Object.keys(offer).at(-1)).toBe('apy_stats');
    // The example's request: every offer it keeps has a 30-day mean of at least 4.
    const filtered = await api.get('/api/v1/earn', {
      query: { ...query, asset: ['tether', 'usd-coin', 'dai'], min_apy_mean_30d: '4' },
    });
    if (filtered.kind !== 'ok') throw new Error(`expected a page, got ${filtered.kind}`);
    for (const offer of filtered.data.data) expect(Number(offer.apy_stats?.mean_30d)).toBeGreaterThanOrEqual(4);
  });

  it('answers an error as a value with the envelope code, and not_modified to its own ETag', async () => {
    const { api } = client(KEY);
    const refused = await api.csv('/api/v1/borrow', { query: { limit: 0 } });
    expect(refused.kind === 'error' && refused.error.code).toBe('validation_error');
    const missing = await api.csv('/api/v1/borrow/{id}/history', { path: { id: 999_999 } });
    expect(missing.kind === 'error' && missing.error.code).toBe('not_found');
    const page = await api.csv('/api/v1/collateral');
    if (page.kind !== 'ok') throw new Error(`expected CSV, got ${page.kind}`);
    const etag = page.response.headers.get('ETag')!;
    const again = await api.csv('/api/v1/collateral', { header: { 'If-None-Match': etag } });
    expect(again).toMatchObject({ kind: 'not_modified', etag });
  });

  it('is typed to the operations that have a CSV representation; the others answer JSON whatever Accept says', async () => {
    const { api } = client(KEY);
    // @ts-expect-error: platform lists have no CSV representation, so csv() does not take them.
    const exchanges = await api.csv('/api/v1/exchanges');
    expect(exchanges.kind === 'ok' && exchanges.response.headers.get('Content-Type')).toBe(
      'application/json; charset=utf-8',
    );
  });
});

describe('changes()', () => {
  it('iterates the offers added, changed and removed since a version, and tells the version to ask from next', async () => {
    const { api } = client(KEY);
    const first = await api.get('/api/v1/earn', { query: { limit: 1 } });
    if (first.kind !== 'ok') throw new Error(`expected a page, got ${first.kind}`);
    const since = first.data.pagination.snapshot;
    const none = api.changes('earn', since);
    for await (const change of none) throw new Error(`no change expected, got ${change.id}`);
    expect(none.snapshot).toBe(since);

    // A refresh: offer 1 changes its APY, offer 9 goes, offer 10 comes.
    const next = fixtureDataset();
    const offers = next.earn_offers as Record<string, unknown>[];
    Object.assign(offers.find((o) => o.id === 1)!, { apy: '6.5' });
    const removed = offers.findIndex((o) => o.id === 9);
    const added = { ...offers[removed], id: 10, compositeKey: 'earn:10' };
    offers.splice(removed, 1, added);
    await importDataset(next, { client: stack.clients.client, tableName: stack.tableName, now: () => clock.now });

    const feed = api.changes('earn', since, { limit: 1 });
    const seen = [];
    for await (const change of feed)
      seen.push([change.id, change.change, change.offer === null ? null : change.offer.apy]);
    expect(seen).toEqual([
      [1, 'changed', '6.5'],
      [9, 'removed', null],
      [10, 'added', '4'],
    ]);
    expect(feed.snapshot).not.toBe(since);
    expect(feed.since).toBe(since);
  });
});

describe('history()', () => {
  it('reads one offer, and several in one request whose entries equal their single answers', async () => {
    const { api, requests } = client(KEY);
    const window = { from: '2026-11-18T00:00:00Z', interval: '4h' as const };
    const one = await api.history('earn', 1, window);
    expect(one).toMatchObject({ period: 'custom', interval: '4h', from: '2026-11-18T00:00:00.000Z' });
    expect(one.point_count).toBeGreaterThan(0);

    const before = requests.length;
    const several = await api.history('earn', [2, 999, 1], window);
    expect(requests.slice(before)).toEqual([
      '/api/v1/earn/history?from=2026-11-18T00%3A00%3A00Z&interval=4h&ids=2,999,1',
    ]);
    expect(several.data.map((e) => e.id)).toEqual([2, 1]);
    expect(several.data[1]).toEqual({ id: 1, ...one });
  });

  it('throws a refused window as a MarketDataApiError naming the parameters', async () => {
    const { api } = client(KEY);
    const refused = api.history('borrow', 1, { period: '1w', from: '2026-11-18T00:00:00Z' });
    await expect(refused).rejects.toThrow(MarketDataApiError);
    await expect(refused).rejects.toMatchObject({ error: { status: 400, code: 'validation_error' } });
  });
});
