import { assetRef } from './currencies';
import { EDGE, isUnpublished, plannedAsset, plannedSources } from './edge-cases';
import { applyPublishFlag } from './flags';
import {
  type AssetWeights,
  assetClass,
  type OfferContext,
  type OfferSource,
  offerIds,
  pickAsset,
  pickChain,
  randomSource,
  symbolKey,
  uniqueKeys,
} from './offer-context';
import { before, createRng, decimal, fixed, HOUR, iso, MINUTE, type Rng } from './random';
import type { AssetRef, BorrowOfferRecord, CollateralOfferRecord, CurrencyRecord } from './types';

const BORROW_ASSETS: AssetWeights = [
  ['USDT', 15],
  ['USDC', 15],
  ['DAI', 6],
  ['ETH', 8],
  ['WBTC', 3],
  ['BTC', 3],
  ['USDE', 2],
  ['WSTETH', 2],
  ['SOL', 3],
  ['BNB', 2],
  ['FDUSD', 1],
  ['PYUSD', 1],
  ['LINK', 1],
  ['ARB', 1],
  ['OP', 1],
];

const COLLATERAL_ASSETS: AssetWeights = [
  ['BTC', 12],
  ['ETH', 12],
  ['WBTC', 5],
  ['STETH', 4],
  ['WSTETH', 4],
  ['SOL', 6],
  ['BNB', 4],
  ['XRP', 3],
  ['DOGE', 2],
  ['ADA', 2],
  ['LINK', 2],
  ['AVAX', 2],
  ['USDT', 2],
  ['USDC', 2],
  ['TON', 1],
  ['RETH', 2],
  ['LTC', 1],
];

const TERMS = [7, 14, 30, 60, 90, 180];

/** What borrow and collateral offers have in common: source, asset, chain, term, times, link. */
interface LendingBase {
  id: number;
  source: OfferSource;
  asset: CurrencyRecord;
  chain: AssetRef | null;
  termDays: number | null;
  syncedAt: number;
  updatedAt: number;
}

const FAMILY_WEIGHTS = {
  borrow: { exchange: 0.24, wallet: 0.04, protocol: 0.72 },
  collateral: { exchange: 0.45, wallet: 0.05, protocol: 0.5 },
} as const;

function lendingBase(
  ctx: OfferContext,
  rng: Rng,
  family: 'borrow' | 'collateral',
  index: number,
  id: number,
  planned: Map<number, OfferSource>,
): LendingBase {
  const source = planned.get(index) ?? randomSource(ctx, rng, FAMILY_WEIGHTS[family]);
  const asset =
    plannedAsset(ctx, family, index) ?? pickAsset(ctx, rng, family === 'borrow' ? BORROW_ASSETS : COLLATERAL_ASSETS, 6);
  const onChain = source.family === 'protocol' || rng.chance(0.15);
  const syncedAt = before(ctx.now, rng, 10_000, 45 * MINUTE);
  return {
    id,
    source,
    asset,
    chain: onChain && index !== EDGE.nullChain && !rng.chance(0.03) ? pickChain(ctx, rng, asset) : null,
    // CeFi loans are often fixed-term; a few protocols offer fixed rates for a term.
    termDays:
      source.family === 'exchange' && rng.chance(0.5)
        ? rng.pick(TERMS)
        : source.family === 'protocol' && rng.chance(0.04)
          ? rng.pick([30, 90])
          : null,
    syncedAt,
    updatedAt: before(syncedAt, rng, 0, 20 * HOUR),
  };
}

const platformType = (source: OfferSource) => (source.family === 'protocol' ? 'defi' : 'cefi');

const lendingKey = (base: LendingBase, kind: string) =>
  [
    base.source.key,
    symbolKey(base.asset),
    kind,
    base.chain?.slug ?? (base.source.family === 'protocol' ? 'multichain' : 'cefi'),
    ...(base.termDays ? [`${base.termDays}d`] : []),
  ].join(':');

/** APR to APY with daily compounding: the service's normalized "real" rate. */
const compounded = (apr: number) => ((1 + apr / 100 / 365) ** 365 - 1) * 100;

export function generateBorrowOffers(ctx: OfferContext, count: number): BorrowOfferRecord[] {
  const rng = createRng(ctx.seed, 'borrow');
  const ids = offerIds(createRng(ctx.seed, 'borrow-ids'), count);
  const planned = plannedSources(ctx, rng, 'borrow');
  const key = uniqueKeys();
  const offers: BorrowOfferRecord[] = [];

  for (let i = 0; i < count; i++) {
    const base = lendingBase(ctx, rng, 'borrow', i, ids[i], planned);
    const defi = base.source.family === 'protocol';
    const range = { stable: [3, 14], btc: [0.2, 3], eth: [1.5, 5], alt: [0.5, 25] }[assetClass(base.asset)];
    const borrowApy = rng.logUniform(range[0], range[1]);
    const utilization = rng.uniform(0.35, 0.93);
    // Incentives lower the net rate; now and then they exceed the interest (a negative net rate).
    const incentive =
      rng.chance(0.04) || i === EDGE.negativeApy
        ? borrowApy + rng.uniform(0.2, 3)
        : defi && rng.chance(0.25)
          ? rng.logUniform(0.05, 0.8) * borrowApy
          : 0;
    const net = borrowApy - incentive;
    const scale = defi && rng.chance(0.6) ? 4 : 2;
    // Market sizes in whole cents, so supply − borrow = liquidity exactly. CeFi rarely publishes them.
    const supplyUsd = defi
      ? rng.chance(0.95)
        ? rng.logUniform(5e5, 6e9)
        : null
      : rng.chance(0.3)
        ? rng.logUniform(1e6, 8e8)
        : null;
    const supplyCents = i === EDGE.nullFields || supplyUsd === null ? null : Math.round(supplyUsd * 100);
    const borrowCents = supplyCents === null ? null : Math.round(supplyCents * utilization);
    const noRates = i === EDGE.nullFields || rng.chance(0.04);

    const offer: BorrowOfferRecord = {
      id: base.id,
      compositeKey: key(lendingKey(base, 'borrow')),
      platform: base.source.ref,
      chain: base.chain,
      asset: assetRef(base.asset),
      platform_type: platformType(base.source),
      term_days: i === EDGE.nullFields ? null : base.termDays,
      borrow_apy: noRates ? null : decimal(borrowApy, scale),
      supply_apy:
        noRates || (!defi && rng.chance(0.5)) ? null : decimal(borrowApy * utilization * rng.uniform(0.8, 0.9), scale),
      net_borrow_apy: decimal(net, scale),
      real_net_borrow_apy: decimal(compounded(net), scale),
      total_supply_usd: supplyCents === null ? null : fixed(supplyCents / 100, 2),
      total_borrow_usd: borrowCents === null ? null : fixed(borrowCents / 100, 2),
      available_liquidity_usd:
        supplyCents === null || borrowCents === null ? null : fixed((supplyCents - borrowCents) / 100, 2),
      is_active: i !== EDGE.inactive && !rng.chance(0.06),
      link: `${base.source.url}/borrow/${symbolKey(base.asset)}`,
      synced_at: iso(base.syncedAt),
      updated_at: iso(base.updatedAt),
    };
    offers.push(applyPublishFlag(rng, offer, isUnpublished(rng, i), i));
  }
  applyLendingTies(ctx, offers, (offer, n) => ({
    ...offer,
    borrow_apy: '4.75',
    net_borrow_apy: n === 2 ? '3.20' : '3.2',
    real_net_borrow_apy: '3.25',
    total_supply_usd: '150000000.00',
    total_borrow_usd: '98000000.00',
    available_liquidity_usd: '52000000.00',
  }));
  return offers;
}

export function generateCollateralOffers(ctx: OfferContext, count: number): CollateralOfferRecord[] {
  const rng = createRng(ctx.seed, 'collateral');
  const ids = offerIds(createRng(ctx.seed, 'collateral-ids'), count);
  const planned = plannedSources(ctx, rng, 'collateral');
  const key = uniqueKeys();
  const offers: CollateralOfferRecord[] = [];

  for (let i = 0; i < count; i++) {
    const base = lendingBase(ctx, rng, 'collateral', i, ids[i], planned);
    const defi = base.source.family === 'protocol';
    const range = { stable: [75, 90], btc: [60, 80], eth: [60, 82], alt: [25, 65] }[assetClass(base.asset)];
    // LTVs are quoted in whole, half or hundredth percents depending on the platform.
    const step = rng.pick([1, 0.5, 0.01]);
    const ltv = (value: number) => decimal(Math.round(value / step) * step, 2);
    const initial = rng.uniform(range[0], range[1]);
    // DeFi markets liquidate without a margin call first.
    const noMarginCall = i === EDGE.nullFields || (defi ? rng.chance(0.6) : rng.chance(0.05));
    const marginCall = noMarginCall ? null : Math.min(95, initial + rng.uniform(5, 10));
    const noLiquidation = i === EDGE.nullFields || rng.chance(0.05);
    const liquidation = noLiquidation ? null : Math.min(97, (marginCall ?? initial) + rng.uniform(3, 8));

    const offer: CollateralOfferRecord = {
      id: base.id,
      compositeKey: key(lendingKey(base, 'collateral')),
      platform: base.source.ref,
      chain: base.chain,
      asset: assetRef(base.asset),
      platform_type: platformType(base.source),
      term_days: i === EDGE.nullFields ? null : base.termDays,
      initial_ltv: ltv(initial),
      margin_call_ltv: marginCall === null ? null : ltv(marginCall),
      liquidation_ltv: liquidation === null ? null : ltv(liquidation),
      is_active: i !== EDGE.inactive && !rng.chance(0.06),
      link: `${base.source.url}/loans/collateral/${symbolKey(base.asset)}`,
      synced_at: iso(base.syncedAt),
      updated_at: iso(base.updatedAt),
    };
    offers.push(applyPublishFlag(rng, offer, isUnpublished(rng, i), i));
  }
  applyLendingTies(ctx, offers, (offer) => ({
    ...offer,
    initial_ltv: '70',
    margin_call_ltv: offer.margin_call_ltv === null ? null : '77.5',
    liquidation_ltv: offer.liquidation_ltv === null ? null : '83',
  }));
  return offers;
}

/** Tie positions share `updated_at` and `synced_at` (the collateral default order) and the family's values. */
function applyLendingTies<T extends BorrowOfferRecord | CollateralOfferRecord>(
  ctx: OfferContext,
  offers: T[],
  tie: (offer: T, n: number) => T,
): void {
  const tieTime = iso(Math.floor((ctx.now - 3 * HOUR) / 1000) * 1000);
  EDGE.ties.forEach((index, n) => {
    const offer = offers[index];
    if (offer)
      offers[index] = { ...tie(offer, n), updated_at: tieTime, synced_at: tieTime, is_active: true, published: true };
  });
}
