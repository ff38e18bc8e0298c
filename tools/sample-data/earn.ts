import { REWARD_SYMBOLS } from './catalog';
import { assetRef } from './currencies';
import { EDGE, isUnpublished, plannedAsset, plannedSources, renamedCurrency } from './edge-cases';
import { applyPublishFlag } from './flags';
import {
  type AssetWeights,
  assetClass,
  formerName,
  type OfferContext,
  type OfferSource,
  offerIds,
  pickAsset,
  pickChain,
  randomSource,
  symbolKey,
  uniqueKeys,
  unitsWorth,
} from './offer-context';
import { before, createRng, DAY, decimal, fixed, HOUR, iso, MINUTE, type Rng, significant } from './random';
import type { AssetRef, CurrencyRecord, EarnOfferRecord } from './types';

const EARN_ASSETS: AssetWeights = [
  ['USDT', 12],
  ['USDC', 12],
  ['ETH', 10],
  ['BTC', 8],
  ['SOL', 6],
  ['BNB', 4],
  ['DAI', 4],
  ['USDE', 3],
  ['STETH', 2],
  ['WSTETH', 2],
  ['XRP', 2],
  ['ADA', 2],
  ['DOT', 2],
  ['TRX', 2],
  ['AVAX', 2],
  ['ATOM', 2],
  ['TON', 2],
  ['FDUSD', 2],
  ['LINK', 1],
  ['PYUSD', 1],
  ['POL', 1],
  ['NEAR', 1],
  ['SUI', 1],
  ['APT', 1],
  ['DOGE', 1],
  ['LTC', 1],
  ['WBTC', 1],
];

const LOCK_DAYS = [7, 14, 30, 60, 90, 120, 180, 365];

type Product = { type: string; name: (symbol: string, days: number | null) => string; days: () => number | null };

function pickProduct(rng: Rng, source: OfferSource, asset: CurrencyRecord | null): Product {
  const cls = assetClass(asset);
  if (source.family === 'wallet') return { type: 'staking', name: (s) => `${s} Staking`, days: () => null };
  if (source.family === 'exchange') {
    const roll = rng.next();
    if (roll < 0.4) return { type: 'flexible', name: (s) => `${s} Flexible Savings`, days: () => null };
    if (roll < 0.75) return { type: 'locked', name: (s, d) => `${s} Locked ${d}-Day`, days: () => rng.pick(LOCK_DAYS) };
    if (roll < 0.9 || cls === 'stable') {
      return {
        type: 'staking',
        name: (s) => `${s} Staking`,
        days: () => (rng.chance(0.3) ? rng.pick([30, 60, 90]) : null),
      };
    }
    return { type: 'launchpool', name: (s) => `${s} Launchpool`, days: () => rng.pick([7, 14, 30]) };
  }
  const roll = rng.next();
  if ((cls === 'eth' || asset?.symbol === 'SOL') && roll < 0.3) {
    return { type: 'liquid-staking', name: (s) => `${s} Liquid Staking`, days: () => null };
  }
  if (roll < 0.55) return { type: 'lending', name: (s) => `${s} Supply`, days: () => null };
  if (roll < 0.8)
    return { type: 'liquidity-pool', name: (s) => `${s}/${cls === 'stable' ? 'ETH' : 'USDC'} Pool`, days: () => null };
  return { type: 'vault', name: (s) => `${s} Vault`, days: () => (rng.chance(0.15) ? rng.pick([30, 90]) : null) };
}

function baseApy(rng: Rng, asset: CurrencyRecord | null, productType: string): number {
  if (productType === 'launchpool') return rng.logUniform(5, 80);
  if (rng.chance(0.02)) return rng.logUniform(20, 150); // promotional rates
  const byClass = { stable: [1.5, 12], btc: [0.05, 2.5], eth: [1.8, 4.5], alt: [0.5, 18] }[assetClass(asset)];
  const apy = rng.logUniform(byClass[0], byClass[1]);
  if (productType === 'locked') return apy * rng.uniform(1.1, 1.6);
  if (productType === 'liquidity-pool') return apy * rng.uniform(1.5, 4);
  return apy;
}

export function generateEarnOffers(ctx: OfferContext, count: number): EarnOfferRecord[] {
  const rng = createRng(ctx.seed, 'earn');
  const ids = offerIds(createRng(ctx.seed, 'earn-ids'), count);
  const planned = plannedSources(ctx, rng, 'earn');
  const key = uniqueKeys();
  const offers: EarnOfferRecord[] = [];

  for (let i = 0; i < count; i++) {
    const source = planned.get(i) ?? randomSource(ctx, rng, { exchange: 0.45, wallet: 0.12, protocol: 0.43 });
    const fixedAsset = plannedAsset(ctx, 'earn', i);
    const currency = fixedAsset ?? pickAsset(ctx, rng, EARN_ASSETS, 14);
    const asset: CurrencyRecord | null = i === EDGE.nullFields || (!fixedAsset && rng.chance(0.02)) ? null : currency;
    const product = pickProduct(rng, source, asset);
    const days = product.days();
    const symbol = asset?.symbol ?? 'Multi-Asset';
    const onChain = source.family !== 'exchange' || rng.chance(0.2);
    const chain = onChain && i !== EDGE.nullChain && !rng.chance(0.04) ? pickChain(ctx, rng, asset) : null;
    const scale = source.family === 'protocol' && rng.chance(0.6) ? 4 : 2;
    const apy = i === EDGE.delistedPlatformOther && asset?.symbol === 'USTC' ? 19.5 : baseApy(rng, asset, product.type);
    const updatedAt = before(ctx.now, rng, MINUTE, 36 * HOUR);
    const available = i !== EDGE.inactive && !rng.chance(0.06);
    const tvlChance = { exchange: 0.25, wallet: 0.1, protocol: 0.95 }[source.family];
    const minUnits = unitsWorth(asset, rng.pick([1, 10, 50, 100]));
    const maxUnits = unitsWorth(asset, rng.logUniform(5e4, 5e6));

    const keyParts = [source.key, symbolKey(asset), product.type + (days ? `-${days}d` : '')];
    if (chain && source.family === 'protocol') keyParts.push(chain.slug);
    const noAmounts = i === EDGE.nullFields;

    const offer: EarnOfferRecord = {
      id: ids[i],
      compositeKey: key(keyParts.join(':')),
      platform: source.ref,
      chain,
      asset: asset && assetRef(asset),
      reward_assets: rewards(ctx, rng, source, product.type, asset),
      product_type: product.type,
      product_name: product.name(symbol, days),
      duration_days: days,
      apy: decimal(apy, scale),
      estimated_apy: decimal(Math.max(0, apy * (1 + rng.normal() * 0.04)), scale),
      estimated_apy_updated_at: iso(updatedAt - Math.floor(rng.uniform(0, 6 * HOUR))),
      tvl: !noAmounts && rng.chance(tvlChance) ? fixed(rng.logUniform(2e4, 3e9), 2) : null,
      // Protocols take any amount ("0") or state none; CeFi products have a minimum and often a cap.
      min_amount:
        noAmounts || minUnits === null
          ? null
          : source.family === 'protocol'
            ? rng.chance(0.5)
              ? '0'
              : null
            : significant(minUnits, 2),
      max_amount:
        !noAmounts && maxUnits !== null && source.family === 'exchange' && rng.chance(0.6)
          ? significant(maxUnits, 3)
          : null,
      available,
      available_updated_at: iso(
        available ? updatedAt - Math.floor(rng.uniform(0, HOUR)) : before(updatedAt, rng, HOUR, 20 * DAY),
      ),
      link: `${source.url}/earn/${product.type}/${symbolKey(asset)}`,
      updated_at: iso(updatedAt),
    };
    offers.push(applyPublishFlag(rng, offer, isUnpublished(rng, i), i));
  }
  applyEarnEdges(ctx, offers);
  return offers;
}

/** Governance tokens on protocols, new listings on launchpools, sometimes a pool's own asset. */
function rewards(
  ctx: OfferContext,
  rng: Rng,
  source: OfferSource,
  productType: string,
  asset: CurrencyRecord | null,
): AssetRef[] {
  const governance = REWARD_SYMBOLS[source.key] ? ctx.bySymbol.get(REWARD_SYMBOLS[source.key]) : undefined;
  const last = ctx.currencies.length - 1;
  if (productType === 'launchpool') return [assetRef(ctx.currencies[rng.int(Math.min(60, last), last)])];
  if (source.family !== 'protocol') return [];
  if (governance && rng.chance(0.6)) return [assetRef(governance)];
  if (productType === 'liquidity-pool' && rng.chance(0.5)) {
    const extra = [assetRef(ctx.currencies[rng.headIndex(ctx.currencies.length, 2)])];
    if (asset && rng.chance(0.3)) extra.push(assetRef(asset));
    return extra;
  }
  return [];
}

/** Ties on apy, tvl and updated_at (one apy written with a different scale), and a zero apy. */
function applyEarnEdges(ctx: OfferContext, offers: EarnOfferRecord[]): void {
  const tieTime = iso(Math.floor((ctx.now - 2 * HOUR) / 1000) * 1000);
  EDGE.ties.forEach((index, n) => {
    const offer = offers[index];
    if (!offer) return;
    offers[index] = {
      ...offer,
      apy: n === 2 ? '5.10' : '5.1',
      estimated_apy: '5.1',
      tvl: '2500000.00',
      updated_at: tieTime,
      estimated_apy_updated_at: tieTime,
      available_updated_at: tieTime,
      available: true,
      published: true,
    };
  });
  const zero = offers[EDGE.zeroApy];
  if (zero) offers[EDGE.zeroApy] = { ...zero, apy: '0', estimated_apy: '0' };
  const renamed = renamedCurrency(ctx);
  const former = offers[EDGE.formerAssetSlug];
  if (renamed && former?.asset?.slug === renamed.slug) {
    const slug = renamed.previous_slugs![0];
    offers[EDGE.formerAssetSlug] = { ...former, asset: { ...former.asset, slug, name: formerName(slug) } };
  }
}
