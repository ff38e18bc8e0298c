/**
 * The offers that exist to exercise the import and the API's edge rules, at fixed positions of
 * each family so that every size (with at least ~42 offers) holds all of them. The generators
 * also produce the same situations at random, at low rates, in bigger sizes.
 */

import type { OfferFamily } from '../../shared/data/keys';
import {
  danglingSource,
  findPlatform,
  formerSlugSource,
  type OfferContext,
  type OfferSource,
  orphanSource,
  sourceOf,
} from './offer-context';
import { isExposed } from './platforms';
import type { Rng } from './random';
import type { CurrencyRecord, PlatformRecord, PlatformType } from './types';

/** Positions (0-based) in each offer family; see `plannedSources` for which platform each names. */
export const EDGE = {
  /** Platform referenced by a former slug (earn: okex, borrow: sushiswap, collateral: huobi). */
  formerSlug: 2,
  /** Another family's former slug (earn: sushiswap, borrow: huobi, collateral: okex). */
  formerSlugOther: 5,
  /** A third one (earn: bitkeep, collateral: sushiswap). */
  formerSlugThird: 6,
  /** A published: false platform. */
  hiddenPlatform: 8,
  /** A delisted platform. */
  delistedPlatform: 11,
  delistedPlatformOther: 12,
  nullPlatform: 14,
  /** A slug no platform of that family has. */
  unknownPlatform: 17,
  /** A real platform referenced under another family's type. */
  wrongFamily: 20,
  unpublished: 23,
  /** `available: false` / `is_active: false`, still published. */
  inactive: 26,
  /** Every nullable field of the family null. */
  nullFields: 29,
  nullChain: 32,
  /** Same sort keys and updated_at; the third writes its decimal at another scale ("5.10"). */
  ties: [33, 34, 35, 36],
  /** Borrow only: net rate below zero. */
  negativeApy: 38,
  /** Earn only: asset named by a renamed currency's former slug. */
  formerAssetSlug: 39,
  /** Asset is a delisted currency. */
  delistedAsset: 40,
  /** Earn only: apy "0". */
  zeroApy: 41,
} as const;

const PLANNED = new Set<number>(Object.values(EDGE).flat());

/** Whether the offer at `index` is unpublished: the planned one, and at random only off-plan. */
export const isUnpublished = (rng: Rng, index: number): boolean =>
  index === EDGE.unpublished || (!PLANNED.has(index) && rng.chance(0.03));

const renamed = (r: PlatformRecord) => (r.previous_slugs?.length ?? 0) > 0 && isExposed(r);
const hidden = (r: PlatformRecord) => r.published === false && r.delisted !== true;
const delisted = (r: PlatformRecord) => r.delisted === true;

type Plan = Array<[index: number, source: () => OfferSource | undefined]>;

/** The platform each planned position references; positions whose target is missing are skipped. */
export function plannedSources(ctx: OfferContext, rng: Rng, family: OfferFamily): Map<number, OfferSource> {
  const { exchange, wallet, protocol } = ctx.platforms;
  const former = (records: PlatformRecord[], nth: number, which: number) => {
    const record = findPlatform(records, renamed, nth) ?? findPlatform(records, renamed);
    return record && formerSlugSource(record, which);
  };
  const first = (records: PlatformRecord[], test: (r: PlatformRecord) => boolean) => {
    const record = findPlatform(records, test);
    return record && sourceOf(record);
  };
  // The planned edge cases of each family (a family without any: only ties, below).
  const byFamily: Partial<Record<OfferFamily, Plan>> = {
    earn: [
      [EDGE.formerSlug, () => former(exchange, 0, 0)],
      [EDGE.formerSlugOther, () => former(protocol, 0, 0)],
      [EDGE.formerSlugThird, () => former(wallet, 0, 0)],
      [EDGE.hiddenPlatform, () => first(exchange, hidden)],
      [EDGE.delistedPlatform, () => first(exchange, delisted)],
      [EDGE.delistedPlatformOther, () => first(protocol, delisted)],
      [
        EDGE.unknownPlatform,
        () => danglingSource('exchange', 'celsius-network', 'Celsius Network', 'https://celsius.network'),
      ],
      [EDGE.wrongFamily, () => wrongFamily(exchange, 'wallet')],
    ],
    borrow: [
      [EDGE.formerSlug, () => former(protocol, 0, 0)],
      [EDGE.formerSlugOther, () => former(exchange, 1, 1)],
      [EDGE.hiddenPlatform, () => first(protocol, hidden)],
      [EDGE.delistedPlatform, () => first(protocol, delisted)],
      [EDGE.delistedPlatformOther, () => first(exchange, delisted)],
      [EDGE.unknownPlatform, () => danglingSource('exchange', 'blockfi', 'BlockFi', 'https://blockfi.com')],
      [EDGE.wrongFamily, () => wrongFamily(protocol, 'exchange')],
    ],
    collateral: [
      [EDGE.formerSlug, () => former(exchange, 1, 1)],
      [EDGE.formerSlugOther, () => former(exchange, 0, 0)],
      [EDGE.formerSlugThird, () => former(protocol, 0, 0)],
      [EDGE.hiddenPlatform, () => first(exchange, hidden)],
      [EDGE.delistedPlatform, () => first(exchange, delisted)],
      [EDGE.delistedPlatformOther, () => first(protocol, delisted)],
      [
        EDGE.unknownPlatform,
        () => danglingSource('exchange', 'voyager-digital', 'Voyager Digital', 'https://www.investvoyager.com'),
      ],
      [EDGE.wrongFamily, () => wrongFamily(exchange, 'protocol')],
    ],
  };
  // Tied offers sit on popular exposed platforms, so they also show up under platform filters.
  const exposedAt = (records: PlatformRecord[], nth: number) => {
    const record = findPlatform(records, isExposed, nth);
    return record && sourceOf(record);
  };
  const tieHosts: Array<[PlatformRecord[], number]> =
    family === 'borrow'
      ? [
          [protocol, 0],
          [protocol, 1],
          [protocol, 2],
          [exchange, 0],
        ]
      : [
          [exchange, 0],
          [protocol, 0],
          [exchange, 1],
          [protocol, 1],
        ];
  const plan = byFamily[family] ?? [];
  EDGE.ties.forEach((index, n) => plan.push([index, () => exposedAt(...tieHosts[n])]));

  const planned = new Map<number, OfferSource>();
  for (const [index, source] of plan) {
    const chosen = source();
    if (chosen) planned.set(index, chosen);
  }
  planned.set(EDGE.nullPlatform, orphanSource(rng, family === 'collateral' ? 'exchange' : 'protocol'));
  return planned;
}

/** The most popular platform of one family, referenced under another family's type. */
function wrongFamily(records: PlatformRecord[], type: PlatformType): OfferSource | undefined {
  const record = records.find(isExposed);
  return record && danglingSource(type, record.slug, record.name, record.url);
}

/** The asset a planned position is about, when the plan fixes it. */
export function plannedAsset(ctx: OfferContext, family: OfferFamily, index: number): CurrencyRecord | undefined {
  const bySymbol = (symbol: string) => ctx.bySymbol.get(symbol);
  if (index === EDGE.delistedPlatformOther && family === 'earn') return bySymbol('USTC'); // Anchor's 19.5% UST deposit
  if (index === EDGE.delistedPlatform && family === 'collateral') return bySymbol('FTT');
  if (index === EDGE.delistedAsset) return bySymbol('USTC') ?? ctx.currencies.find((c) => c.delisted === true);
  if (index === EDGE.formerAssetSlug && family === 'earn') return renamedCurrency(ctx);
  return undefined;
}

/** The first exposed renamed currency; offers at `EDGE.formerAssetSlug` name it by its old slug. */
export function renamedCurrency(ctx: OfferContext): CurrencyRecord | undefined {
  return ctx.currencies.find((c) => (c.previous_slugs?.length ?? 0) > 0 && isExposed(c));
}
