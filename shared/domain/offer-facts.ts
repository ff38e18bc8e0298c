/**
 * What the offer filters of a list look at (docs/api.md, "Filters"): the offers' facts as a
 * family version's index holds them (a column each), the predicate of a query over an entry, and
 * the offers it runs over (`candidates`). The predicate is built once per request and may run
 * over every offer of the version, so everything that depends only on the query (sets, sort keys
 * of the bounds, the columns it reads) is computed when it is built, and a call allocates nothing.
 */

import type { OfferFactColumns, OfferFacts, OfferIndex, Order } from '../data/family-index';
import type { OfferFamily } from '../data/keys';
import {
  FACT_OF,
  FIGURE_FACTS,
  type FilterDeclaration,
  type FilterKinds,
  filtersOf,
  OFFER_FILTERS,
  type OfferFilter,
  type OfferFilters,
} from '../model/offer-families';
import { numberSortKey, unitsBound } from '../platform/decimal';

export type { OfferFilters };

/** Whether the entry of an index matches. */
export type OfferMatcher = (entry: number) => boolean;

type Fact = OfferFacts[keyof OfferFacts];

/** A figure fact's micro-units are below this (shared/model/offer-families.ts `FigureFact`). */
const FIGURE_UNITS_LIMIT = 1e15;
/** Decimal places of a filtered figure (a mean or a deviation, CONTRACT §13). */
const FIGURE_SCALE = 6;

/**
 * The test of each filter kind (shared/model/offer-families.ts `FilterKinds`) on one fact, built
 * once per query: sets and bounds' keys computed here, so a call allocates nothing. A set holds
 * the values only: `has(null)` is false, so a null fact never matches; a bound's key against a
 * null fact fails by the explicit check. A bound compares a decimal fact by the order-preserving
 * keys of shared/platform/decimal.ts, which order exactly as the decimals do, and a figure's
 * micro-units (a number) by the bound's micro-units rounded toward the kept side: both exact.
 */
const TEST: { [K in keyof FilterKinds]: (value: FilterKinds[K]) => (fact: Fact) => boolean } = {
  slugs: (values) => setTest(values),
  platformTypes: (values) => setTest(values),
  ids: (values) => setTest(values),
  atLeast: (bound) => {
    const key = numberSortKey(bound);
    const units = unitsBound(bound, FIGURE_SCALE, 'ceil', FIGURE_UNITS_LIMIT);
    return (fact) => fact !== null && (typeof fact === 'number' ? fact >= units : (fact as string) >= key);
  },
  atMost: (bound) => {
    const key = numberSortKey(bound);
    const units = unitsBound(bound, FIGURE_SCALE, 'floor', FIGURE_UNITS_LIMIT);
    return (fact) => fact !== null && (typeof fact === 'number' ? fact <= units : (fact as string) <= key);
  },
  is: (flag) => {
    const stored = flag ? 1 : 0;
    return (fact) => fact === stored;
  },
};

function setTest(values: readonly unknown[]): (fact: Fact) => boolean {
  const set = new Set<unknown>(values);
  return (fact) => set.has(fact);
}

/** One declared filter's test of a query's value, over the column of its fact. */
function filterTest<F extends OfferFilter>(
  filter: F,
  value: NonNullable<OfferFilters[F]>,
  facts: OfferFactColumns,
): OfferMatcher {
  const declared: FilterDeclaration = OFFER_FILTERS[filter];
  const fact = ('column' in declared ? FACT_OF[declared.column] : FIGURE_FACTS[declared.figure]) as keyof OfferFacts;
  const test = (TEST[declared.kind] as (value: unknown) => (fact: Fact) => boolean)(value);
  const column = facts[fact] as ArrayLike<Fact>;
  return (entry) => test(column[entry]);
}

/**
 * The predicate of a query's filters (docs/api.md, "Filters") over the entries whose `facts` these
 * are, the filters the family declares: OR within a list parameter, AND across parameters; a null
 * fact matches no filter on it. `undefined` when the query filters nothing (every offer matches),
 * so that the caller can skip the pass. Sort, paging and `snapshot` are not filters.
 */
export function offerMatcher(
  family: OfferFamily,
  query: OfferFilters,
  facts: OfferFactColumns,
): OfferMatcher | undefined {
  const tests: OfferMatcher[] = [];
  for (const filter of filtersOf(family)) {
    const value = query[filter];
    if (value !== undefined) tests.push(filterTest(filter, value, facts));
  }
  if (tests.length === 0) return undefined;
  if (tests.length === 1) return tests[0];
  return (entry) => {
    for (const test of tests) if (!test(entry)) return false;
    return true;
  };
}

/**
 * The entries of the index a query's filters can match, in `mode`'s order: the offers of its
 * `ids`, else those of its `asset` values (the index keeps each asset's offers), else the whole
 * order. A superset of the matches: the predicate still decides; this only spares the pass over the
 * offers no value of the query names (200 ids: 200 tests instead of one an offer).
 */
export function candidates(index: OfferIndex, mode: string, query: OfferFilters): Order {
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
function mergeInOrder(lists: readonly Order[], rank: Int32Array): Order {
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
