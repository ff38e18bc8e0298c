/**
 * Offers as the offer-facts tests see them (test/unit/domain/offer-facts*.test.ts): the served
 * values, the facts the data layer's index builds from them (decimalSortKey of the decimal
 * strings, a figure's micro-units or key), and an index over them with one drawn order.
 */
import {
  figureFact,
  indexOf,
  type OfferFactColumns,
  type OfferIndex,
  type OfferIndexData,
  PackedStrings,
  packFigures,
} from '../../shared/data/family-index';
import type { OfferFamily } from '../../shared/data/keys';
import type { ApyStats } from '../../shared/domain/apy-stats';
import type { OfferQuery } from '../../shared/http/query';
import { FACT_OF, FIGURE_FACTS, type OfferFacts, type OfferFilter } from '../../shared/model/offer-families';
import { decimalSortKey } from '../../shared/platform/decimal';
import { compareExact, plainDecimal } from './exact-decimal';

/** An offer as the oracle sees it: the served values, not keys. */
export interface Offer {
  id: number;
  platformType: OfferFacts['platformType'];
  platform: string | null;
  asset: string | null;
  chain: string | null;
  apy: string | null;
  tvl: string | null;
  flag: boolean;
  /** Its APY figures (CONTRACT §13), if the version carries them. */
  figures?: ApyStats | null;
}

export const factsOf = (o: Offer): OfferFacts => ({
  id: o.id,
  platformType: o.platformType,
  platform: o.platform,
  asset: o.asset,
  chain: o.chain,
  apyKey: o.apy === null ? null : decimalSortKey(o.apy),
  tvlKey: o.tvl === null ? null : decimalSortKey(o.tvl),
  flag: o.flag ? 1 : 0,
  mean30d: figureFact(o.figures?.mean_30d ?? null),
  stddev30d: figureFact(o.figures?.stddev_30d ?? null),
});

/** Offers' facts as an index holds them: a column each, one entry an offer. */
export const columnsOf = (all: readonly OfferFacts[]): OfferFactColumns =>
  Object.fromEntries(
    [...Object.values(FACT_OF), ...Object.values(FIGURE_FACTS)].map((fact) => [fact, all.map((f) => f[fact])]),
  ) as unknown as OfferFactColumns;

/** The facts of each entry of an index, an object each (the inverse of `columnsOf`). */
export const rowsOf = (columns: OfferFactColumns): OfferFacts[] =>
  Array.from(
    { length: columns.id.length },
    (_, entry) =>
      Object.fromEntries(Object.entries(columns).map(([fact, values]) => [fact, values[entry]])) as OfferFacts,
  );

/** When the figures of the tests' versions are computed. */
export const AS_OF = '2026-11-20T10:00:00.000Z';

/** An offer family's index over the offers, with one order (a permutation the test draws). */
export function indexOver(family: OfferFamily, all: Offer[], order: number[]): OfferIndex {
  const data: OfferIndexData = {
    kind: 'offers',
    family,
    ids: all.map((o) => o.id),
    block: all.map(() => 0),
    slot: all.map((_, i) => i),
    blocks: ['b'],
    hash: all.map((o) => `h${o.id}`),
    platformType: all.map((o) => o.platformType),
    platform: all.map((o) => o.platform),
    asset: all.map((o) => o.asset),
    chain: all.map((o) => o.chain),
    apyKey: all.map((o) => factsOf(o).apyKey),
    tvlKey: all.map((o) => factsOf(o).tvlKey),
    flag: all.map((o) => factsOf(o).flag),
    orders: { drawn: order },
    ...(all.some((o) => o.figures)
      ? {
          figures: {
            as_of: AS_OF,
            stats: PackedStrings.of(all.map((o) => (o.figures ? packFigures(o.figures) : null))),
          },
        }
      : {}),
  };
  return indexOf('v1', data) as OfferIndex;
}

// ---- the oracle ----------------------------------------------------------------------------------

const anyOf = <T>(values: readonly T[] | undefined, value: T | null) =>
  values === undefined || (value !== null && values.includes(value));
const atLeast = (bound: string | undefined, value: string | null | undefined) =>
  bound === undefined || (value != null && compareExact(value, plainDecimal(bound)) >= 0);
const atMost = (bound: string | undefined, value: string | null | undefined) =>
  bound === undefined || (value != null && compareExact(value, plainDecimal(bound)) <= 0);
const is = (wanted: boolean | undefined, value: boolean) => wanted === undefined || value === wanted;

/**
 * The oracle's rule of each filter (docs/api.md "Filters"), on the offers' own values: OR within a
 * list, `null` never matching, decimals exact. One a filter, keyed by its name: a declared filter
 * without a rule fails test/unit/model/offer-families.test.ts.
 */
export const FILTER_RULES: Record<OfferFilter, (q: OfferQuery, o: Offer) => boolean> = {
  ids: (q, o) => anyOf(q.ids, o.id),
  platform_type: (q, o) => anyOf(q.platform_type, o.platformType),
  platform: (q, o) => anyOf(q.platform, o.platform),
  asset: (q, o) => anyOf(q.asset, o.asset),
  chain: (q, o) => anyOf(q.chain, o.chain),
  min_apy: (q, o) => atLeast(q.min_apy, o.apy),
  min_tvl: (q, o) => atLeast(q.min_tvl, o.tvl),
  min_apy_mean_30d: (q, o) => atLeast(q.min_apy_mean_30d, o.figures?.mean_30d),
  max_apy_stddev_30d: (q, o) => atMost(q.max_apy_stddev_30d, o.figures?.stddev_30d),
  available: (q, o) => is(q.available, o.flag),
  is_active: (q, o) => is(q.is_active, o.flag),
};

/** Whether the oracle keeps an offer: every filter's rule (AND across parameters). */
export const oracleKeeps = (q: OfferQuery, o: Offer): boolean =>
  Object.values(FILTER_RULES).every((rule) => rule(q, o));
