/**
 * Data-file records for tests that build their own datasets (the fixture's shapes, any id, slug or
 * value): pass them through `parseDataset` to get the defaults an import fills in.
 */
export type RecordOf = Record<string, any>;

export const ASSETS = [
  { slug: 'bitcoin', symbol: 'BTC', name: 'Bitcoin' },
  { slug: 'ethereum', symbol: 'ETH', name: 'Ethereum' },
  { slug: 'tether', symbol: 'USDT', name: 'Tether' },
];

export function exchangeRecord(slug: string, weeklyVisits: number | null, extra: RecordOf = {}): RecordOf {
  return {
    type: 'exchange',
    slug,
    name: slug.toUpperCase(),
    url: `https://${slug}.example`,
    logo64: null,
    stats: {
      num_coins: 100,
      num_markets: 200,
      weekly_visits: weeklyVisits,
      daily_spot_volume: 12345.5,
      is_centralized: true,
    },
    updated_at: '2026-11-01T00:00:00.000Z',
    ...extra,
  };
}

export function earnRecord(id: number, apy: string, extra: RecordOf = {}): RecordOf {
  return {
    id,
    compositeKey: `earn:${id}`,
    platform: { type: 'exchange', slug: 'binance', name: 'Binance' },
    chain: null,
    asset: ASSETS[0],
    reward_assets: [],
    product_type: 'flexible',
    product_name: `Product ${id}`,
    duration_days: null,
    apy,
    estimated_apy: apy,
    estimated_apy_updated_at: '2026-11-19T00:00:00.000Z',
    tvl: '1000',
    min_amount: null,
    max_amount: null,
    available: true,
    available_updated_at: '2026-11-19T00:00:00.000Z',
    link: `https://example.com/earn/${id}`,
    updated_at: '2026-11-10T00:00:00.000Z',
    ...extra,
  };
}

export function borrowRecord(id: number, net: string, extra: RecordOf = {}): RecordOf {
  return {
    id,
    compositeKey: `borrow:${id}`,
    platform: { type: 'protocol', slug: 'aave', name: 'Aave' },
    chain: ASSETS[1],
    asset: ASSETS[2],
    platform_type: 'defi',
    term_days: null,
    borrow_apy: '5.1',
    supply_apy: '3.2',
    net_borrow_apy: net,
    real_net_borrow_apy: net,
    total_supply_usd: '1000000',
    total_borrow_usd: '500000',
    available_liquidity_usd: '500000',
    is_active: true,
    link: `https://example.com/borrow/${id}`,
    synced_at: '2026-11-19T00:00:00.000Z',
    updated_at: '2026-11-10T00:00:00.000Z',
    ...extra,
  };
}

/** A small deterministic generator (mulberry32): the same records on every run. */
export function seeded(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] };
}
