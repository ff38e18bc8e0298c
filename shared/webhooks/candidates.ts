/**
 * The offers a publish may concern, indexed by the family's list filters (docs/adr/0028-webhook-delivery.md):
 * built once per publish, so that each subscription evaluates its filter's list predicate over the
 * changed offers its filter can name (an asset's, a platform's, its ids…) instead of over every
 * changed offer. Only a superset is taken here: the predicate still decides (CONTRACT §14: a filter is
 * evaluated exactly as the list's).
 *
 * The filters indexed are the family's list filters (shared/model/offer-families.ts) that match a fact
 * equal to one of their values (`slugs`, `platformTypes`, `ids`): an offer one of them keeps has
 * its fact among the filter's values in the version that keeps it, so the offers posted under those
 * values in either version are all that filter can concern. A filter with none of them (bounds and
 * flags alone, or nothing) concerns every changed offer.
 */
import type { OfferFactColumns, OfferIndex } from '../data/family-index';
import type { OfferFamily } from '../data/keys';
import {
  FACT_OF,
  type FilterDeclaration,
  filtersOf,
  OFFER_FILTERS,
  type OfferFilter,
  type OfferFilters,
} from '../model/offer-families';

/** The filter kinds whose values name the offers they keep. */
const NAMING_KINDS: ReadonlySet<FilterDeclaration['kind']> = new Set(['slugs', 'platformTypes', 'ids']);

type Postings = Map<unknown, number[]>;

export class ChangeIndex {
  private readonly postings = new Map<OfferFilter, Postings>();

  /**
   * `ids`: the offers that may concern some subscription (changed, or whose facts moved), in id
   * order; each is posted under its value of every naming filter in both versions.
   */
  constructor(
    family: OfferFamily,
    readonly ids: readonly number[],
    older: OfferIndex | undefined,
    newer: OfferIndex | undefined,
  ) {
    const sides = [older, newer].filter((index): index is OfferIndex => index !== undefined);
    const facts = sides.map((index) => index.facts());
    for (const filter of filtersOf(family)) {
      const declared: FilterDeclaration = OFFER_FILTERS[filter];
      if (!NAMING_KINDS.has(declared.kind) || !('column' in declared)) continue;
      const fact = FACT_OF[declared.column] as keyof OfferFactColumns;
      const postings: Postings = new Map();
      for (const id of ids) {
        let posted: unknown;
        sides.forEach((index, side) => {
          const entry = index.entry(id);
          if (entry === undefined) return;
          const value = (facts[side][fact] as ArrayLike<unknown>)[entry];
          if (value === null || (side > 0 && value === posted)) return;
          const list = postings.get(value);
          if (list === undefined) postings.set(value, [id]);
          else if (list[list.length - 1] !== id) list.push(id);
          posted = value;
        });
      }
      this.postings.set(filter, postings);
    }
  }

  /** The offers a query's filters can concern: those posted under the values of its most selective naming filter. */
  candidates(query: OfferFilters): readonly number[] {
    let best: number[][] | undefined;
    let bestSize = Number.POSITIVE_INFINITY;
    for (const [filter, postings] of this.postings) {
      const values = query[filter] as readonly unknown[] | undefined;
      if (values === undefined) continue;
      const lists = [...new Set(values)].flatMap((value) => postings.get(value) ?? []).length;
      if (lists >= bestSize) continue;
      best = [...new Set(values)].map((value) => postings.get(value) ?? []);
      bestSize = lists;
    }
    if (best === undefined) return this.ids;
    if (best.length === 1) return best[0];
    return [...new Set(best.flat())];
  }
}

/**
 * The offers served in both versions whose facts differ without their document changing (an APY
 * figure moves at every import): a filter reading a figure may change its mind about them.
 */
export function factsMoved(
  older: OfferIndex | undefined,
  newer: OfferIndex | undefined,
  changed: ReadonlySet<number>,
): number[] {
  if (!older || !newer) return [];
  const a = older.facts();
  const b = newer.facts();
  const columns = Object.keys(a) as (keyof OfferFactColumns)[];
  const moved: number[] = [];
  for (const id of newer.data.ids) {
    if (changed.has(id)) continue;
    const i = older.entry(id);
    if (i === undefined) continue;
    const j = newer.entry(id)!;
    if (columns.some((column) => (a[column] as ArrayLike<unknown>)[i] !== (b[column] as ArrayLike<unknown>)[j]))
      moved.push(id);
  }
  return moved;
}
