/**
 * What the three offer generators share: which platform an offer comes from (including the
 * deliberately broken references: docs/api.md, "Visibility and platform references"), which asset it is about, on which chain, and
 * ids with realistic gaps.
 */
import { CHAIN_SYMBOLS, FORMER_NAMES } from './catalog';
import { assetRef } from './currencies';
import { type Platforms, platformRef } from './platforms';
import type { Rng } from './random';
import type { AssetRef, CurrencyRecord, PlatformRecord, PlatformRef, PlatformType } from './types';

export interface OfferContext {
  seed: number;
  now: number;
  currencies: CurrencyRecord[];
  bySymbol: Map<string, CurrencyRecord>;
  platforms: Platforms;
}

export function createOfferContext(
  seed: number,
  now: number,
  currencies: CurrencyRecord[],
  platforms: Platforms,
): OfferContext {
  return { seed, now, currencies, bySymbol: new Map(currencies.map((c) => [c.symbol, c])), platforms };
}

/** Where an offer comes from: the reference written into the file and what shapes the offer. */
export interface OfferSource {
  /** Family the offer behaves like (product types, chains, links). */
  family: PlatformType;
  ref: PlatformRef | null;
  /** First part of the composite key and of generated links. */
  key: string;
  url: string;
}

export const sourceOf = (record: PlatformRecord): OfferSource => ({
  family: record.type,
  ref: platformRef(record),
  key: record.slug,
  url: record.url,
});

/**
 * A popular platform of a family picked by weight; a renamed one is sometimes still referenced by
 * its old slug, and now and then the provider knows no platform at all.
 */
export function randomSource(ctx: OfferContext, rng: Rng, weights: Record<PlatformType, number>): OfferSource {
  const roll = rng.next() * (weights.exchange + weights.wallet + weights.protocol);
  const family: PlatformType =
    roll < weights.exchange ? 'exchange' : roll < weights.exchange + weights.wallet ? 'wallet' : 'protocol';
  const records: PlatformRecord[] = ctx.platforms[family];
  if (records.length === 0 || rng.chance(0.01)) return orphanSource(rng, family);
  const record = records[rng.headIndex(records.length, 2.4)];
  if (record.previous_slugs?.length && rng.chance(0.25)) return formerSlugSource(record, 0);
  return sourceOf(record);
}

/** An offer whose platform is unknown to the data provider (`platform: null`). */
export function orphanSource(rng: Rng, family: PlatformType): OfferSource {
  const key = rng.pick(['independent', 'otc-desk', 'p2p-pool', 'community-vault']);
  return { family, ref: null, key, url: `https://${key}.example` };
}

/** References a renamed platform by one of its former slugs, with the name it had then. */
export function formerSlugSource(record: PlatformRecord, which: number): OfferSource {
  const previous = record.previous_slugs ?? [];
  const slug = previous[Math.min(which, previous.length - 1)];
  return {
    family: record.type,
    ref: { type: record.type, slug, name: formerName(slug) },
    key: slug,
    url: record.url,
  };
}

export const formerName = (slug: string): string =>
  FORMER_NAMES[slug] ??
  slug
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');

/** A reference that resolves to nothing: the slug is not a platform of that family. */
export function danglingSource(type: PlatformType, slug: string, name: string, url: string): OfferSource {
  return { family: type, ref: { type, slug, name }, key: slug, url };
}

export type AssetWeights = ReadonlyArray<readonly [symbol: string, weight: number]>;

/** Weighted popular symbols, with `tailWeight` left for any other currency by rank. */
export function pickAsset(ctx: OfferContext, rng: Rng, weights: AssetWeights, tailWeight: number): CurrencyRecord {
  const present = weights.filter(([symbol]) => ctx.bySymbol.has(symbol));
  const total = present.reduce((sum, [, weight]) => sum + weight, 0) + tailWeight;
  let roll = rng.next() * total;
  for (const [symbol, weight] of present) {
    roll -= weight;
    if (roll < 0) return ctx.bySymbol.get(symbol)!;
  }
  return ctx.currencies[rng.headIndex(ctx.currencies.length, 2.5)];
}

export type AssetClass = 'stable' | 'btc' | 'eth' | 'alt';

export function assetClass(currency: AssetRef | CurrencyRecord | null): AssetClass {
  if (!currency) return 'alt';
  if ('category' in currency && currency.category === 'Stablecoin') return 'stable';
  if (['USDT', 'USDC', 'DAI', 'USDE', 'FDUSD', 'PYUSD', 'EURC'].includes(currency.symbol)) return 'stable';
  if (['BTC', 'WBTC'].includes(currency.symbol)) return 'btc';
  if (['ETH', 'STETH', 'WSTETH', 'RETH'].includes(currency.symbol)) return 'eth';
  return 'alt';
}

const WRAPPED_ON: Readonly<Record<string, string>> = { STETH: 'ETH', WSTETH: 'ETH', RETH: 'ETH', WBTC: 'ETH' };
const OWN_CHAIN_CATEGORIES = new Set(['Layer 1', 'Layer 0', 'Layer 2', 'Payments', 'Privacy']);

/** The chain an on-chain offer lives on: the asset's own chain when it has one, else mostly Ethereum. */
export function pickChain(ctx: OfferContext, rng: Rng, asset: CurrencyRecord | null): AssetRef | null {
  if (
    asset &&
    !WRAPPED_ON[asset.symbol] &&
    (CHAIN_SYMBOLS.includes(asset.symbol) || OWN_CHAIN_CATEGORIES.has(asset.category))
  ) {
    return assetRef(asset);
  }
  const symbol =
    asset && WRAPPED_ON[asset.symbol] ? WRAPPED_ON[asset.symbol] : rng.chance(0.5) ? 'ETH' : rng.pick(CHAIN_SYMBOLS);
  const chain = ctx.bySymbol.get(symbol) ?? ctx.bySymbol.get('ETH');
  return chain ? assetRef(chain) : null;
}

/** Ascending positive ids from 1, with occasional gaps (retired offers). */
export function offerIds(rng: Rng, count: number): number[] {
  const ids: number[] = [];
  let id = 1;
  for (let i = 0; i < count; i++) {
    ids.push(id);
    id += 1 + (rng.chance(0.15) ? rng.int(1, 6) : 0);
  }
  return ids;
}

/** Keeps composite keys unique within a family by numbering repeats. */
export function uniqueKeys(): (key: string) => string {
  const used = new Set<string>();
  const next = new Map<string, number>();
  return (key) => {
    let n = next.get(key) ?? 1;
    let candidate = n === 1 ? key : `${key}:${n}`;
    while (used.has(candidate)) candidate = `${key}:${++n}`;
    next.set(key, n + 1);
    used.add(candidate);
    return candidate;
  };
}

/** An amount worth roughly `usd` dollars in units of the asset, to a few significant digits. */
export function unitsWorth(asset: CurrencyRecord | null, usd: number): number | null {
  const price = asset?.stats.usd_price ? Number(asset.stats.usd_price) : null;
  return price ? usd / price : null;
}

export const symbolKey = (asset: AssetRef | null): string => (asset ? asset.symbol.toLowerCase() : 'multi');

/** The first record of a family matching `test`, if the size includes one. */
export function findPlatform<T extends PlatformRecord>(
  records: T[],
  test: (record: T) => boolean,
  nth = 0,
): T | undefined {
  return records.filter(test)[nth];
}
