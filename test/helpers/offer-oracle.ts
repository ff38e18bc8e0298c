/**
 * An independent oracle of the offer lists (docs/api.md "Filters", "Orderings", "Visibility and
 * platform references"): from a dataset file, the offers a list serves, filtered and sorted in
 * memory, with exact decimals (test/helpers/exact-decimal.ts). It reads the request's parameters
 * as text, as a client sends them, and knows nothing of the service's code.
 */
import { OFFER_FAMILY, type OfferFamily } from '../../shared/model/offer-families';
import { compareExact, plainDecimal } from './exact-decimal';

export type Offer = Record<string, any> & { id: number };
export type Family = OfferFamily;
type Platform = { type: string; slug: string; name: string };

const PLATFORM_TYPE_OF = { exchanges: 'exchange', wallets: 'wallet', protocols: 'protocol' } as const;

/** Every slug (current or former) of every platform, to the platform as served, or null when it is not exposed. */
function platformIndex(data: Record<string, any>): Map<string, Platform | null> {
  const index = new Map<string, Platform | null>();
  for (const [family, type] of Object.entries(PLATFORM_TYPE_OF)) {
    for (const p of (data[family] ?? []) as any[]) {
      const exposed = p.published !== false && p.delisted !== true;
      for (const slug of [...(p.previous_slugs ?? []), p.slug])
        index.set(`${type}:${slug}`, exposed ? { type, slug: p.slug, name: p.name } : null);
    }
  }
  return index;
}

type Fields = { apy?: string; tvl?: string; flag: string };
// Which field holds a family's APY, TVL and flag, and its default order, are the contract's facts
// (docs/api.md, "Filters"), read from the declaration; how they filter and sort is this file's own.
const FIELDS = (family: Family): Fields => OFFER_FAMILY[family].fields;
const DEFAULT_SORT = (family: Family): string => OFFER_FAMILY[family].defaultSort;

/** The published offers of a family, each with the platform the API renders (null when unknown or hidden). */
export function servedOffers(data: Record<string, any>, family: Family): Offer[] {
  const platforms = platformIndex(data);
  return ((data[`${family}_offers`] ?? []) as Offer[])
    .filter((o) => o.published !== false)
    .map((o) => ({
      ...o,
      platform: o.platform ? (platforms.get(`${o.platform.type}:${o.platform.slug}`) ?? null) : null,
    }));
}

const listOf = (value: string | undefined) => (value === undefined ? undefined : value.split(','));

/** Whether an offer passes every filter of a query (OR within a list, AND across parameters, null never matching). */
function matches(family: Family, q: Record<string, string>, o: Offer): boolean {
  const anyOf = (values: string[] | undefined, value: string | number | null | undefined) =>
    values === undefined || (value !== null && value !== undefined && values.includes(String(value)));
  const atLeast = (bound: string | undefined, value: string | null | undefined) =>
    bound === undefined || (value !== null && value !== undefined && compareExact(value, plainDecimal(bound)) >= 0);
  const fields = FIELDS(family);
  const flag = q[fields.flag];
  return (
    anyOf(listOf(q.platform_type), o.platform?.type ?? null) &&
    anyOf(listOf(q.platform), o.platform?.slug ?? null) &&
    anyOf(listOf(q.asset), o.asset?.slug ?? null) &&
    anyOf(listOf(q.chain), o.chain?.slug ?? null) &&
    // Ids compare as numbers: `007` is 7.
    (q.ids === undefined || q.ids.split(',').map(Number).includes(o.id)) &&
    atLeast(q.min_apy, fields.apy && o[fields.apy]) &&
    atLeast(q.min_tvl, fields.tvl && o[fields.tvl]) &&
    (flag === undefined || String(o[fields.flag]) === flag)
  );
}

/**
 * Each sort mode of a role the oracle orders by (docs/api.md "Orderings"): the value it reads and
 * its direction. The modes by an APY figure are the figure sorts' oracle's
 * (test/unit/domain/offer-facts.heavy.test.ts); a declared mode neither covers fails
 * test/unit/model/offer-families.test.ts.
 */
export const ORACLE_SORTS: Record<
  string,
  { key: (fields: Fields, o: Offer) => string | number | null; desc: boolean }
> = {
  apy_desc: { key: (fields, o) => o[fields.apy!], desc: true },
  apy_asc: { key: (fields, o) => o[fields.apy!], desc: false },
  tvl_desc: { key: (fields, o) => o[fields.tvl!], desc: true },
  updated_desc: { key: (_, o) => Date.parse(o.updated_at), desc: true },
};

/** The full ordered list of a query (no paging): ties by id, nulls last, decimals exact. */
function ordered(family: Family, offers: Offer[], sortParam?: string): Offer[] {
  const fields = FIELDS(family);
  // A mode by a field the family does not have falls back to its default (docs/api.md, "Orderings").
  const requested = sortParam ?? DEFAULT_SORT(family);
  const has = (mode: string) => !/^(apy|tvl)_/.test(mode) || fields[mode.slice(0, 3) as 'apy' | 'tvl'] !== undefined;
  const sort = has(requested) ? requested : DEFAULT_SORT(family);
  const { key, desc } = ORACLE_SORTS[sort];
  return [...offers].sort((a, b) => {
    const ka = key(fields, a);
    const kb = key(fields, b);
    if (ka === null || kb === null) return ka !== kb ? (ka === null ? 1 : -1) : a.id - b.id;
    const c = typeof ka === 'number' ? ka - (kb as number) : compareExact(ka, kb as string);
    return c !== 0 ? (desc ? -c : c) : a.id - b.id;
  });
}

/** The page a list request answers: its ids and the total of the whole list. */
export function oracle(
  data: Record<string, any>,
  family: Family,
  q: Record<string, string>,
): { ids: number[]; total: number; all: number[] } {
  const all = ordered(
    family,
    servedOffers(data, family).filter((o) => matches(family, q, o)),
    q.sort,
  ).map((o) => o.id);
  const offset = Number(q.offset ?? 0);
  const limit = Number(q.limit ?? 50);
  return { ids: all.slice(offset, offset + limit), total: all.length, all };
}
