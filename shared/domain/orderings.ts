/**
 * The orderings (docs/api.md, "Orderings"; the offers' sort modes declared in
 * shared/model/offer-families.ts), as comparators the import uses to write list positions. Every
 * ordering puts `null` last in either direction and ends with the identifier tie-break (slug or id
 * ascending); decimal strings compare as exact decimals.
 */

import type { CatalogFamily, OfferFamily } from '../data/keys';
import {
  type ApyFigure,
  distinctSortModes,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  ROLE_VALUES,
  SORTS,
  type SortMode,
  type SortRole,
} from '../model/offer-families';
import { compareDecimal } from '../platform/decimal';

export { distinctSortModes, type SortMode };

type Value = string | number | null;
type Kind = 'decimal' | 'number' | 'text';

export interface OrderSpec<T> {
  value: (record: T) => Value;
  kind: Kind;
  direction: 'asc' | 'desc';
  tieBreak: (a: T, b: T) => number;
}

function compareValues(a: Value, b: Value, kind: Kind): number {
  if (kind === 'decimal') return compareDecimal(a as string, b as string);
  if (kind === 'number') return (a as number) - (b as number);
  return a! < b! ? -1 : a! > b! ? 1 : 0;
}

export function comparator<T>(spec: OrderSpec<T>): (a: T, b: T) => number {
  return (a, b) => {
    const va = spec.value(a);
    const vb = spec.value(b);
    if (va === null || vb === null) {
      if (va !== vb) return va === null ? 1 : -1;
    } else {
      const c = compareValues(va, vb, spec.kind);
      if (c !== 0) return spec.direction === 'asc' ? c : -c;
    }
    return spec.tieBreak(a, b);
  };
}

const bySlug = <T extends { slug: string }>(a: T, b: T) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);
const byId = <T extends { id: number }>(a: T, b: T) => a.id - b.id;
const time = (value: string) => Date.parse(value);

interface CatalogShape {
  slug: string;
  name: string;
  stats: Record<string, unknown>;
}

/** The one ordering of each platform and currency list. */
export const CATALOG_ORDER: Record<CatalogFamily, OrderSpec<CatalogShape>> = {
  exchanges: {
    value: (r) => (r.stats.weekly_visits as number | null) ?? null,
    kind: 'number',
    direction: 'desc',
    tieBreak: bySlug,
  },
  wallets: { value: (r) => r.name.toLowerCase(), kind: 'text', direction: 'asc', tieBreak: bySlug },
  protocols: {
    value: (r) => (r.stats.tvl as string | null) ?? null,
    kind: 'decimal',
    direction: 'desc',
    tieBreak: bySlug,
  },
  currencies: {
    value: (r) => (r.stats.rank_by_market_cap as number | null) ?? null,
    kind: 'number',
    direction: 'asc',
    tieBreak: bySlug,
  },
};

interface OfferShape {
  id: number;
  [field: string]: unknown;
}

/** Each family's default sort mode (its declaration, shared/model/offer-families.ts). */
export const DEFAULT_SORT = Object.fromEntries(OFFER_FAMILIES.map((f) => [f, OFFER_FAMILY[f].defaultSort])) as Record<
  OfferFamily,
  SortMode
>;

/** The sort mode actually applied: one without a matching field falls back to the default. */
export function effectiveSort(family: OfferFamily, requested: SortMode | undefined): SortMode {
  if (!requested) return DEFAULT_SORT[family];
  return distinctSortModes(family).includes(requested) ? requested : DEFAULT_SORT[family];
}

/**
 * A sort mode's ordering of a family's records: its role's field, compared as the role's values;
 * a figure's mode orders records that carry their figures (`apy_stats`, CONTRACT §13) by that
 * figure, an exact decimal.
 */
export function offerOrder(family: OfferFamily, mode: SortMode): OrderSpec<OfferShape> {
  const sort = SORTS[mode];
  const { direction } = sort;
  if ('figure' in sort) {
    const { figure } = sort;
    return {
      value: (r) => (r.apy_stats as Record<ApyFigure, string | null> | undefined)?.[figure] ?? null,
      kind: 'decimal',
      direction,
      tieBreak: byId,
    };
  }
  const { role } = sort;
  const field = (OFFER_FAMILY[family].fields as Partial<Record<SortRole, string>>)[role];
  if (field === undefined) throw new Error(`${family} offers have no ${role} field to sort by`);
  return ROLE_VALUES[role] === 'decimal'
    ? { value: (r) => (r[field] as string | null) ?? null, kind: 'decimal', direction, tieBreak: byId }
    : { value: (r) => time(r[field] as string), kind: 'number', direction, tieBreak: byId };
}
