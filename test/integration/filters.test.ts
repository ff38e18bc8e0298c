/**
 * The offer filters of version 1.2 (CONTRACT §11, docs/api.md "Filters") through the local
 * gateway on the embedded DynamoDB: every filter alone, lists of values, and combinations with
 * every sort and paging, each compared with an independent oracle over the dataset
 * (test/helpers/offer-oracle.ts: exact decimals, the platform as served, null never matching);
 * the answers' `Link` and `Last-Modified`; and the validation errors §11 names.
 */
import { type LocalStack, startLocalStack } from '../../local/stack';
import { filtersOf, OFFER_FAMILIES, OFFER_FAMILY } from '../../shared/model/offer-families';
import { NOW } from '../fixtures/dataset';
import { ASSETS, CHAINS, offersDataset } from '../fixtures/offers-1-2';
import { get } from '../helpers/client';
import { type Family, oracle, servedOffers } from '../helpers/offer-oracle';

const KEY = 'filters_key_0123456789abcdefghijklmnop';
const data = offersDataset(60);
let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({
    clock: () => NOW,
    dataset: data,
    accounts: { users: [{ id: 'f', premium: true, keys: [{ key: KEY, per_minute: 100_000, per_month: 10_000_000 }] }] },
    env: { SNAPSHOT_CACHE_MS: '0' },
  });
}, 120_000);
afterAll(() => stack?.close());

const request = (path: string) => get(stack.url, path, { key: KEY });

// ---- the queries -------------------------------------------------------------------------------

const SORTS = ['apy_desc', 'apy_asc', 'tvl_desc', 'updated_desc'];
const PLATFORM_SLUGS = [
  'binance',
  'kraken',
  'bybit',
  'bybit-old',
  'hidden-ex',
  'gone-ex',
  'trezor',
  'ledger',
  'aave',
  'maker',
  'makerdao',
  'no-such-protocol',
];
const BOUNDS = [
  '0',
  '3',
  '5.5',
  '5.50000000000000000000001',
  '55e-1',
  '1e-39',
  '4.75',
  '100',
  '1e6',
  '999999.99',
  '1000000',
  '1e20',
  '0.0000000000000000000000000001',
];

/** A deterministic generator for the combinations. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => (state = (Math.imul(state, 22695477) + 1) >>> 0) / 2 ** 32;
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)];
  const some = <T>(values: readonly T[], max: number) => [
    ...new Set(Array.from({ length: 1 + Math.floor(next() * max) }, () => pick(values))),
  ];
  return { next, pick, some };
}

function queriesOf(family: Family): Record<string, string>[] {
  const withBounds = (filtersOf(family) as string[]).includes('min_apy');
  const flag = OFFER_FAMILY[family].fields.flag;
  const ids = servedOffers(data, family).map((o) => o.id);
  const single: Record<string, string>[] = [
    ...CHAINS.map((c) => ({ chain: c.slug })),
    { chain: 'solana' },
    { chain: 'ethereum,arbitrum' },
    { chain: CHAINS.map((c) => c.slug).join(',') },
    ...ASSETS.map((a) => ({ asset: a.slug })),
    { asset: 'tether,usd-coin' },
    { platform_type: 'exchange,wallet' },
    { platform_type: 'protocol' },
    { platform: 'binance,aave' },
    { platform: 'bybit-old' }, // a former slug: the filter takes current slugs only
    { platform: 'hidden-ex,gone-ex,no-such-protocol' },
    { ids: ids.slice(0, 5).join(',') },
    { ids: `${ids[3]},999999,2,${ids[0]}` },
    { ids: '0' },
    { ids: Array.from({ length: 200 }, (_, i) => i).join(',') },
    { ids: `00${ids[1]}` },
    { [flag]: 'true' },
    { [flag]: 'false' },
    ...(withBounds ? BOUNDS.flatMap((b): Record<string, string>[] => [{ min_tvl: b }, { min_apy: b }]) : []),
    ...(withBounds
      ? [
          { min_tvl: '1000000', sort: 'tvl_desc' },
          { min_tvl: '0', min_apy: '0' },
        ]
      : ([] as Record<string, string>[])),
  ];
  // The issue's example: USDT and USDC offers on Arbitrum with at least $1M TVL, available.
  const example: Record<string, string>[] = withBounds
    ? [{ asset: 'tether,usd-coin', chain: 'arbitrum', min_tvl: '1e6', [flag]: 'true' }]
    : [];
  const r = random(family.length * 7919);
  const combos: Record<string, string>[] = [];
  for (let i = 0; i < 70; i++) {
    const q: Record<string, string> = {};
    if (r.next() < 0.4)
      q.chain = r
        .some(
          CHAINS.map((c) => c.slug),
          2,
        )
        .join(',');
    if (r.next() < 0.4)
      q.asset = r
        .some(
          ASSETS.map((a) => a.slug),
          3,
        )
        .join(',');
    if (r.next() < 0.3) q.platform_type = r.some(['exchange', 'wallet', 'protocol'], 2).join(',');
    if (r.next() < 0.3) q.platform = r.some(PLATFORM_SLUGS, 3).join(',');
    if (r.next() < 0.15) q.ids = r.some(ids, 12).join(',');
    if (r.next() < 0.4) q[flag] = r.pick(['true', 'false']);
    if (withBounds && r.next() < 0.35) q.min_apy = r.pick(BOUNDS);
    if (withBounds && r.next() < 0.35) q.min_tvl = r.pick(BOUNDS);
    q.sort = r.pick(SORTS);
    if (r.next() < 0.5) q.limit = String(1 + Math.floor(r.next() * 7));
    if (r.next() < 0.4) q.offset = String(Math.floor(r.next() * 12));
    combos.push(q);
  }
  // Every single filter with every sort, and pages of it.
  const sorted = single.slice(0, 12).flatMap((q) => SORTS.map((sort) => ({ ...q, sort, limit: '3', offset: '1' })));
  return [...single, ...example, ...sorted, ...combos];
}

const pathOf = (family: Family, q: Record<string, string>) => {
  const query = new URLSearchParams(q).toString().replace(/%2C/g, ',');
  return `/api/v1/${family}${query ? `?${query}` : ''}`;
};

// ---- behaviour ---------------------------------------------------------------------------------

describe.each(OFFER_FAMILIES)('GET /api/v1/%s with the filters of 1.2', (family) => {
  const queries = queriesOf(family);

  it('has queries that keep something and queries that keep nothing', () => {
    const totals = queries.map((q) => oracle(data, family, q).total);
    expect(totals.filter((t) => t === 0).length).toBeGreaterThan(3);
    expect(totals.filter((t) => t > 3).length).toBeGreaterThan(queries.length / 3);
  });

  it.each(queries.map((q) => [pathOf(family, q), q] as const))('%s matches the oracle', async (path, q) => {
    const res = await request(path);
    const expected = oracle(data, family, q);
    const offset = Number(q.offset ?? 0);
    const limit = Number(q.limit ?? 50);

    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { id: number }) => o.id)).toEqual(expected.ids);
    expect(res.body.pagination).toEqual({
      total: expected.total,
      offset,
      limit,
      has_more: offset + expected.ids.length < expected.total,
      snapshot: expect.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
    });
    const link = res.headers.link ?? '';
    expect(link.includes('rel="next"')).toBe(res.body.pagination.has_more);
    expect(link.includes('rel="prev"')).toBe(offset > 0);
    expect(res.headers['last-modified']).toMatch(/ GMT$/);
  });
});

describe('validation errors of version 1.2, each naming its parameter', () => {
  const many = (n: number, prefix = 's') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(',');
  it.each([
    ['/api/v1/earn?asset=tether,,usd-coin', ['asset must not contain an empty value']],
    ['/api/v1/earn?chain=arbitrum,', ['chain must not contain an empty value']],
    ['/api/v1/borrow?platform=aave,aave', ['platform must not contain aave twice']],
    ['/api/v1/collateral?platform_type=exchange,exchange', ['platform_type must not contain exchange twice']],
    [`/api/v1/earn?chain=${many(21)}`, ['chain must not have more than 20 values']],
    [`/api/v1/earn?asset=${many(21)}`, ['asset must not have more than 20 values']],
    [
      '/api/v1/earn?platform_type=exchange,dex',
      ['platform_type must be one of the following values: exchange, wallet, protocol'],
    ],
    ['/api/v1/earn?ids=', ['ids must not be empty']],
    ['/api/v1/earn?ids=1,1', ['ids must not contain 1 twice']],
    ['/api/v1/earn?ids=1,x', ['ids must be a comma-separated list of integers']],
    ['/api/v1/borrow?ids=9007199254740992', ['ids must not be greater than 9007199254740991']],
    [
      `/api/v1/borrow?ids=${Array.from({ length: 201 }, (_, i) => i).join(',')}`,
      ['ids must not have more than 200 values'],
    ],
    ['/api/v1/collateral?min_tvl=1', ['property min_tvl should not exist']],
    ['/api/v1/earn?min_tvl=-5', ['min_tvl must not be less than 0']],
    ['/api/v1/borrow?min_tvl=1M', ['min_tvl must be a decimal number such as 4.75']],
    ['/api/v1/borrow?available=true', ['property available should not exist']],
    ['/api/v1/earn?is_active=true', ['property is_active should not exist']],
    ['/api/v1/collateral?is_active=yes', ['is_active must be one of the following values: true, false']],
    ['/api/v1/earn?snapshot=not.a.snapshot', ['snapshot must contain only letters, digits, _ and -']],
    [`/api/v1/exchanges?snapshot=${'s'.repeat(65)}`, ['snapshot must not be longer than 64 characters']],
    ['/api/v1/currencies?snapshot=', ['snapshot must not be empty']],
    ['/api/v1/earn/changes', ['since is required']],
    ['/api/v1/borrow/changes?since=a%20b', ['since must contain only letters, digits, _ and -']],
    ['/api/v1/collateral/changes?since=v1&asset=bitcoin', ['property asset should not exist']],
    ['/api/v1/exchanges?chain=ethereum', ['property chain should not exist']],
  ])('%s', async (path, messages) => {
    const res = await request(path);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message: 'The request parameters are invalid.',
      details: { message: messages },
    });
  });

  it('takes `changes` as a route, not an id', async () => {
    const res = await request('/api/v1/earn/changes?since=v1&limit=0');
    expect(res.body.error.details.message).toEqual(['limit must not be less than 1']);
  });
});
