/**
 * What the offer filters of a list look at (docs/api.md, "Filters"): one offer's facts as a
 * family version's index holds them, the predicate of a query over them, and the offers it runs
 * over (`candidates`). The predicate is built once per request and may run over every offer of
 * the version (20,000 at BENCH), so
 * everything that depends only on the query (sets, sort keys of the bounds) is computed when it
 * is built, and a call allocates nothing.
 */

import type { OfferFacts, OfferIndex } from '../data/family-index';
import type { OfferFamily } from '../data/keys';
import type { PlatformType } from '../platform/constants';
import { numberSortKey } from '../platform/decimal';

export type { OfferFacts };

export type OfferMatcher = (facts: OfferFacts) => boolean;

/**
 * The filters of an offer list as parsed (docs/api.md, "Filters"; the schemas of
 * shared/http/query.ts produce them); an absent one leaves its dimension free.
 */
export interface OfferFilters {
  readonly ids?: readonly number[];
  readonly platform_type?: readonly PlatformType[];
  readonly platform?: readonly string[];
  readonly asset?: readonly string[];
  readonly chain?: readonly string[];
  readonly min_apy?: string;
  readonly min_tvl?: string;
  /** Earn's flag; borrow and collateral have `is_active`. */
  readonly available?: boolean;
  readonly is_active?: boolean;
}

/** The values a list parameter keeps, or undefined when the query leaves that dimension free. */
const setOf = <T>(values: readonly T[] | undefined): ReadonlySet<T> | undefined =>
  values === undefined ? undefined : new Set(values);

/**
 * The predicate of a query's filters: OR within a list parameter, AND across parameters; a null
 * fact matches no filter on it (docs/api.md, "Filters"). `min_apy` and `min_tvl` compare the
 * order-preserving keys of shared/platform/decimal.ts, which order exactly as the decimals do. `undefined`
 * when the query filters nothing (every offer matches), so that the caller can skip the pass.
 * Sort, paging and `snapshot` are not filters.
 */
export function offerMatcher(family: OfferFamily, query: OfferFilters): OfferMatcher | undefined {
  const ids = setOf(query.ids);
  const types = setOf<string | null>(query.platform_type);
  const platforms = setOf<string | null>(query.platform);
  const assets = setOf<string | null>(query.asset);
  const chains = setOf<string | null>(query.chain);
  // A bound's key; `null` facts fail `>=` below by the explicit check.
  const minApy = query.min_apy === undefined ? undefined : numberSortKey(query.min_apy);
  const minTvl = query.min_tvl === undefined ? undefined : numberSortKey(query.min_tvl);
  const flag = family === 'earn' ? query.available : query.is_active;
  if (
    ids === undefined &&
    types === undefined &&
    platforms === undefined &&
    assets === undefined &&
    chains === undefined &&
    minApy === undefined &&
    minTvl === undefined &&
    flag === undefined
  ) {
    return undefined;
  }
  // The sets hold strings only: `has(null)` is false, so a null fact never matches.
  return (facts) =>
    (ids === undefined || ids.has(facts.id)) &&
    (types === undefined || types.has(facts.platformType)) &&
    (platforms === undefined || platforms.has(facts.platform)) &&
    (assets === undefined || assets.has(facts.asset)) &&
    (chains === undefined || chains.has(facts.chain)) &&
    (minApy === undefined || (facts.apyKey !== null && facts.apyKey >= minApy)) &&
    (minTvl === undefined || (facts.tvlKey !== null && facts.tvlKey >= minTvl)) &&
    (flag === undefined || facts.flag === flag);
}

/**
 * The entries of the index a query's filters can match, in `mode`'s order: the offers of its
 * `ids`, else those of its `asset` values (the index keeps each asset's offers), else the whole
 * order. A superset of the matches: the predicate still decides; this only spares the pass over the
 * offers no value of the query names (200 ids among 20,000 offers: 200 tests instead of 20,000).
 */
export function candidates(index: OfferIndex, mode: string, query: OfferFilters): readonly number[] {
  if (query.ids !== undefined) {
    const rank = index.rank(mode);
    const entries = new Set<number>();
    for (const id of query.ids) {
      const entry = index.entry(id);
      if (entry !== undefined) entries.add(entry);
    }
    return [...entries].sort((a, b) => rank[a] - rank[b]);
  }
  if (query.asset !== undefined) {
    // An offer has one asset: the lists are disjoint, each already in the order.
    const lists = [...new Set(query.asset)].map((slug) => index.ofAsset(slug, mode));
    return lists.length === 1 ? lists[0] : mergeInOrder(lists, index.rank(mode));
  }
  return index.order(mode);
}

/** Lists each in the order `rank` gives, disjoint, merged into one in that order (pairs at a time: n log k). */
function mergeInOrder(lists: readonly (readonly number[])[], rank: Int32Array): readonly number[] {
  if (lists.length <= 1) return lists[0] ?? [];
  const half = lists.length >> 1;
  const a = mergeInOrder(lists.slice(0, half), rank);
  const b = mergeInOrder(lists.slice(half), rank);
  const merged = new Array<number>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) merged[k++] = rank[a[i]] < rank[b[j]] ? a[i++] : b[j++];
  while (i < a.length) merged[k++] = a[i++];
  while (j < b.length) merged[k++] = b[j++];
  return merged;
}
