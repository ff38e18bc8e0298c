/**
 * Offer lists, details and currency detail arrays through the real handlers on the embedded
 * DynamoDB, compared with an oracle that filters and sorts the fixture in memory (docs/api.md, "Orderings" and "Visibility and platform references").
 */
import { importDataset } from '../../shared/import/importer';
import { filtersOf, OFFER_FAMILIES, OFFER_FAMILY, type OfferFamily } from '../../shared/model/offer-families';
import { withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable } from '../helpers/embedded';
import { compareExact, plainDecimal } from '../helpers/exact-decimal';
import { type Call, injectFaults } from '../helpers/faults';

type Offer = Record<string, any> & { id: number };
type Family = OfferFamily;

let table: TestTable;
let offers: TestApi['offers'], currencies: TestApi['currencies'];
const data = fixtureDataset();

beforeAll(async () => {
  table = await startTestTable();
  await importDataset(data, { client: table.client, tableName: table.tableName, now: () => NOW });
  ({ offers, currencies } = table.api({ clock: () => NOW }));
});
afterAll(() => table.close());

// ---- the oracle -----------------------------------------------------------------------------

const cmpDecimal = compareExact;

const exposedPlatforms = new Map<string, { type: string; slug: string; name: string }>();
for (const [family, type] of [
  ['exchanges', 'exchange'],
  ['wallets', 'wallet'],
  ['protocols', 'protocol'],
] as const) {
  for (const p of data[family] as any[]) {
    const exposed = p.published !== false && p.delisted !== true;
    for (const slug of [...(p.previous_slugs ?? []), p.slug]) {
      exposedPlatforms.set(`${type}:${slug}`, exposed ? { type, slug: p.slug, name: p.name } : (null as any));
    }
  }
}
const resolvedPlatform = (o: Offer) =>
  o.platform ? (exposedPlatforms.get(`${o.platform.type}:${o.platform.slug}`) ?? null) : null;

// Each family's APY and TVL fields and default order: the contract's facts, from the declaration.
function familyFields(): Record<Family, { apy?: string; tvl?: string; flag: string }> {
  const fields = {} as Record<Family, { apy?: string; tvl?: string; flag: string }>;
  for (const family of OFFER_FAMILIES) fields[family] = OFFER_FAMILY[family].fields;
  return fields;
}
const FIELDS: Record<Family, { apy?: string; tvl?: string; flag: string }> = familyFields();
const DEFAULT = Object.fromEntries(
  OFFER_FAMILIES.map((family) => [family, OFFER_FAMILY[family].defaultSort]),
) as Record<Family, string>;

function oracle(family: Family, q: Record<string, string>): { ids: number[]; total: number } {
  const all = (((data as Record<string, unknown>)[OFFER_FAMILY[family].dataset] as Offer[] | undefined) ?? []).filter(
    (o) => o.published !== false,
  );
  let rows = all.filter((o) => {
    const platform = resolvedPlatform(o);
    if (q.platform_type && platform?.type !== q.platform_type) return false;
    if (q.platform && platform?.slug !== q.platform) return false;
    if (q.asset && o.asset?.slug !== q.asset) return false;
    if (q.min_apy && cmpDecimal(o[FIELDS[family].apy!], plainDecimal(q.min_apy)) < 0) return false;
    return true;
  });
  // A mode by a field the family does not have falls back to its default (docs/api.md, "Orderings").
  const requested = q.sort ?? DEFAULT[family];
  const sort =
    /^(apy|tvl)_/.test(requested) && !FIELDS[family][requested.slice(0, 3) as 'apy' | 'tvl']
      ? DEFAULT[family]
      : requested;
  const key = (o: Offer): string | number | null =>
    sort === 'updated_desc'
      ? Date.parse(o.updated_at)
      : o[sort === 'tvl_desc' ? FIELDS[family].tvl! : FIELDS[family].apy!];
  const desc = sort !== 'apy_asc';
  rows = [...rows].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka === null || kb === null) {
      if (ka !== kb) return ka === null ? 1 : -1;
      return a.id - b.id;
    }
    const c = typeof ka === 'number' ? ka - (kb as number) : cmpDecimal(ka, kb as string);
    return c !== 0 ? (desc ? -c : c) : a.id - b.id;
  });
  const offset = Number(q.offset ?? 0);
  const limit = Number(q.limit ?? 50);
  return { ids: rows.slice(offset, offset + limit).map((o) => o.id), total: rows.length };
}

// ---- list behaviour -----------------------------------------------------------------------------

const QUERIES: Record<string, string>[] = [
  {},
  { sort: 'apy_desc' },
  { sort: 'apy_asc' },
  { sort: 'tvl_desc' },
  { sort: 'updated_desc' },
  { limit: '2' },
  { limit: '2', offset: '2' },
  { limit: '3', offset: '100' },
  { platform_type: 'exchange' },
  { platform_type: 'protocol' },
  { platform_type: 'wallet' },
  { platform: 'binance' },
  { platform: 'bybit' },
  { platform: 'bybit-old' },
  { platform: 'hidden-ex' },
  { asset: 'bitcoin' },
  { asset: 'ethereum', sort: 'updated_desc' },
  { min_apy: '5' },
  { min_apy: '5.5', sort: 'apy_asc' },
  { min_apy: '5.50000000000000000000000001', sort: 'apy_asc' },
  { min_apy: '0' },
  { min_apy: '1000' },
  { min_apy: '3', sort: 'tvl_desc' },
  { min_apy: '3', sort: 'updated_desc', limit: '2', offset: '1' },
  // Both ways of reading min_apy with another order: the matches, or the order from the top.
  { min_apy: '0', sort: 'tvl_desc', limit: '3' },
  { min_apy: '0', sort: 'updated_desc', limit: '2', offset: '4' },
  { min_apy: '6', sort: 'tvl_desc', limit: '1' },
  { min_apy: '1000', sort: 'updated_desc' },
  { min_apy: '0.5', sort: 'tvl_desc', offset: '500' },
  { min_apy: '5', asset: 'bitcoin' },
  // The exponent form, as client libraries write numbers.
  { min_apy: '1e2' },
  { min_apy: '55E-1', sort: 'apy_asc' },
  { min_apy: '1e-7' },
  { min_apy: '0.3e+1', sort: 'tvl_desc', limit: '2' },
  { min_apy: '2', asset: 'bitcoin', sort: 'apy_asc', limit: '1', offset: '1' },
  { asset: 'bitcoin', platform_type: 'exchange' },
  { asset: 'bitcoin', platform: 'binance', sort: 'tvl_desc' },
  { asset: 'bitcoin', platform: 'binance', platform_type: 'exchange', min_apy: '5', limit: '1', offset: '1' },
  // Two filters read their pair's view: every sort, min_apy, offsets; platform_type beside platform.
  { asset: 'bitcoin', platform_type: 'exchange', sort: 'apy_asc', limit: '1', offset: '1' },
  { asset: 'bitcoin', platform_type: 'exchange', min_apy: '3', sort: 'tvl_desc' },
  { asset: 'bitcoin', platform_type: 'exchange', min_apy: '5.5', sort: 'apy_asc' },
  { asset: 'ethereum', platform: 'kraken', sort: 'updated_desc' },
  { asset: 'bitcoin', platform: 'bybit-old' },
  { asset: 'bitcoin', platform_type: 'wallet' },
  { asset: 'bitcoin', platform: 'binance', platform_type: 'wallet' },
  { platform: 'binance', platform_type: 'exchange', sort: 'tvl_desc', limit: '2', offset: '1' },
  { platform: 'binance', platform_type: 'protocol' },
  { asset: 'nothing-here' },
];

describe.each(OFFER_FAMILIES)('GET /api/v1/%s', (family) => {
  const applicable = QUERIES.filter(
    (q) => (filtersOf(family) as string[]).includes('min_apy') || q.min_apy === undefined,
  );

  it('has published offers in the fixture to compare (a new family needs some)', () => {
    expect(oracle(family, {}).total).toBeGreaterThan(1);
  });

  it.each(applicable.map((q) => [new URLSearchParams(q).toString() || '(no query)', q] as const))(
    'matches the oracle for %s',
    async (_, q) => {
      const query = new URLSearchParams(q).toString();
      const res = await invoke(offers, apiEvent(`/api/v1/${family}${query ? `?${query}` : ''}`));
      const expected = oracle(family, q);

      expect(res.status).toBe(200);
      expect(res.body.data.map((o: Offer) => o.id)).toEqual(expected.ids);
      expect(res.body.pagination).toEqual({
        total: expected.total,
        offset: Number(q.offset ?? 0),
        limit: Number(q.limit ?? 50),
        has_more: Number(q.offset ?? 0) + expected.ids.length < expected.total,
        snapshot: expect.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      });
    },
  );

  it('pages cover the whole list exactly once', async () => {
    const seen: number[] = [];
    for (let offset = 0; ; offset += 2) {
      const res = await invoke(offers, apiEvent(`/api/v1/${family}?limit=2&offset=${offset}`));
      seen.push(...res.body.data.map((o: Offer) => o.id));
      if (!res.body.pagination.has_more) break;
    }
    expect(seen).toEqual(oracle(family, { limit: '200' }).ids);
  });
});

describe('two filters', () => {
  // docs/data-model.md, "Access patterns": every filter is a predicate over the loaded index; a
  // page reads only the blocks of its documents, by key, in one round trip.
  it.each([
    ['platform_type=exchange&asset=bitcoin&limit=2'],
    ['platform_type=exchange&asset=bitcoin&sort=apy_asc&limit=1&offset=2'],
    ['platform=binance&asset=bitcoin&sort=tvl_desc&limit=1&offset=1'],
  ])('%s reads only the blocks of its page, in one round trip', async (query) => {
    // Warm, as the service runs: the served versions and the index loaded, the documents read every time.
    const { offers: uncached } = table.api({
      clock: () => NOW,
      env: { READ_CACHE_MB: '0', SNAPSHOT_CACHE_MS: '600000' },
    });
    await invoke(uncached, apiEvent('/api/v1/earn/1'));
    const calls: Call[] = [];
    const capture = injectFaults(table.clients(), (call) => void calls.push(call));
    try {
      const { result, accounting } = await withRequestAccounting(() =>
        invoke(uncached, apiEvent(`/api/v1/earn?${query}`)),
      );
      const limit = Number(new URLSearchParams(query).get('limit'));
      expect(result.status).toBe(200);
      expect(result.body.data.map((o: Offer) => o.id)).toEqual(
        oracle('earn', Object.fromEntries(new URLSearchParams(query))).ids,
      );
      // One read of blocks: a GetItem for one block, a BatchGetItem for several.
      const reads = calls.filter((c) => c.command !== 'UpdateItemCommand');
      expect(reads).toHaveLength(1);
      expect(['GetItemCommand', 'BatchGetItemCommand']).toContain(reads[0].command);
      // The document client's keys, plain or marshalled depending on where the call was captured.
      type Keys = { PK: string | { S: string } }[];
      const keys: Keys = reads[0].input.Key
        ? [reads[0].input.Key]
        : Object.values(reads[0].input.RequestItems as Record<string, { Keys: Keys }>)[0].Keys;
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.length).toBeLessThanOrEqual(limit);
      expect(keys.every((k) => (typeof k.PK === 'string' ? k.PK : k.PK.S).startsWith('DOC#'))).toBe(true);
      expect(accounting.summary().roundTrips).toBe(1);
    } finally {
      capture.remove();
    }
  });
});

describe('offer documents', () => {
  it('returns decimals byte for byte and renders the resolved platform', async () => {
    const res = await invoke(offers, apiEvent('/api/v1/earn/4'));
    expect(res.status).toBe(200);
    expect(res.raw).toContain('"apy":"0.000000000000000000000000000000000000001"');
    expect(res.body.available).toBe(false);

    const renamed = await invoke(offers, apiEvent('/api/v1/earn/6'));
    expect(renamed.body.platform).toEqual({ type: 'exchange', slug: 'bybit', name: 'Bybit' });
  });

  it('shows platform null for an offer of a hidden or delisted platform', async () => {
    const hidden = await invoke(offers, apiEvent('/api/v1/earn/5'));
    const delisted = await invoke(offers, apiEvent('/api/v1/borrow/5'));
    expect(hidden.body.platform).toBeNull();
    expect(delisted.body.platform).toBeNull();
  });

  it('lists inactive offers and answers them in detail', async () => {
    const list = await invoke(offers, apiEvent('/api/v1/collateral'));
    const detail = await invoke(offers, apiEvent('/api/v1/collateral/2'));
    expect(list.body.data.map((o: Offer) => o.id)).toContain(2);
    expect(detail.body.is_active).toBe(false);
  });

  it.each([
    ['/api/v1/earn/8', 404, 'not_found'],
    ['/api/v1/earn/999', 404, 'not_found'],
    ['/api/v1/collateral/4', 404, 'not_found'],
    ['/api/v1/earn/abc', 400, 'validation_error'],
    ['/api/v1/borrow/-1', 400, 'validation_error'],
    ['/api/v1/borrow/1e2', 400, 'validation_error'],
    ['/api/v1/borrow/9007199254740992', 400, 'validation_error'],
    ['/api/v1/earn/1?x=1', 400, 'validation_error'],
  ])('%s answers %i %s', async (path, status, code) => {
    const res = await invoke(offers, apiEvent(path));
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  });

  it('names the parameter of every violated rule', async () => {
    const res = await invoke(
      offers,
      apiEvent('/api/v1/collateral?min_apy=1&limit=0&sort=best&platform_type=bank&offset=-1&asset='),
    );
    expect(res.status).toBe(400);
    expect(res.body.error.details.message).toEqual(
      expect.arrayContaining([
        'property min_apy should not exist',
        'limit must not be less than 1',
        expect.stringMatching(/^sort must be one of/),
        expect.stringMatching(/^platform_type must be one of/),
        'offset must not be less than 0',
        'asset must not be empty',
      ]),
    );
  });

  it.each(['.5', '+1', '-0', 'abc', ''])('refuses min_apy=%j', async (value) => {
    const res = await invoke(offers, apiEvent(`/api/v1/earn?min_apy=${encodeURIComponent(value)}`));
    expect(res.status).toBe(400);
    expect(res.body.error.details.message.join(' ')).toContain('min_apy');
  });

  it.each([`1e-${'0'.repeat(29)}7`, '9'.repeat(15_000)])('refuses a min_apy past 32 characters (%#)', async (value) => {
    const res = await invoke(offers, apiEvent(`/api/v1/borrow?min_apy=${value}`));
    expect(res.status).toBe(400);
    expect(res.body.error.details.message).toEqual(['min_apy must not be longer than 32 characters']);
  });

  it('takes exponents past any stored value: nothing above a huge bound, every positive APY above a tiny one', async () => {
    const huge = await invoke(offers, apiEvent(`/api/v1/earn?min_apy=1e${'9'.repeat(29)}`));
    expect([huge.status, huge.body.pagination.total]).toEqual([200, 0]);
    const tiny = await invoke(offers, apiEvent(`/api/v1/earn?min_apy=1e-${'9'.repeat(28)}&limit=200`));
    expect(tiny.status).toBe(200);
    expect(tiny.body.data.map((o: Offer) => o.id)).toEqual(
      oracle('earn', { limit: '200' }).ids.filter((id) => {
        const offer = (data.earn_offers as Offer[]).find((o) => o.id === id)!;
        return cmpDecimal(offer.apy, '0') > 0;
      }),
    );
  });

  it('quotes at most 64 characters of an unknown parameter name', async () => {
    const name = 'n'.repeat(15_000);
    const res = await invoke(offers, apiEvent(`/api/v1/earn?${name}=1`));
    expect(res.status).toBe(400);
    expect(res.body.error.details.message).toEqual([`property ${'n'.repeat(64)}… should not exist`]);
    expect(res.raw.length).toBeLessThan(1_000);
  });
});

describe('currency detail', () => {
  it('embeds every published offer of the asset, each family in its default order', async () => {
    const res = await invoke(currencies, apiEvent('/api/v1/currencies/bitcoin'));
    expect(res.status).toBe(200);
    expect(res.body.earn_offers.map((o: Offer) => o.id)).toEqual(
      oracle('earn', { asset: 'bitcoin', limit: '200' }).ids,
    );
    expect(res.body.borrow_offers.map((o: Offer) => o.id)).toEqual(
      oracle('borrow', { asset: 'bitcoin', limit: '200' }).ids,
    );
    expect(res.body.collateral_offers.map((o: Offer) => o.id)).toEqual(
      oracle('collateral', { asset: 'bitcoin', limit: '200' }).ids,
    );
  });

  it('has empty arrays for a currency without offers', async () => {
    const res = await invoke(currencies, apiEvent('/api/v1/currencies/no-rank'));
    expect(res.body).toMatchObject({ slug: 'no-rank', earn_offers: [], borrow_offers: [], collateral_offers: [] });
  });
});
