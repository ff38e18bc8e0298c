/**
 * The orderings (docs/api.md, "Orderings"), as comparators the import uses to write list positions. Every
 * ordering puts `null` last in either direction and ends with the identifier tie-break (slug or id
 * ascending); decimal strings compare as exact decimals.
 */

import type { CatalogFamily, OfferFamily } from '../data/keys';
import { compareDecimal } from '../platform/decimal';

export const SORT_MODES = ['apy_desc', 'apy_asc', 'tvl_desc', 'updated_desc'] as const;
export type SortMode = (typeof SORT_MODES)[number];

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
  updated_at: string;
  [field: string]: unknown;
}

/** Which field each sort mode reads, per offer family (docs/api.md, "Orderings"). */
export const OFFER_SORT_FIELDS: Record<OfferFamily, { apy?: string; tvl?: string }> = {
  earn: { apy: 'apy', tvl: 'tvl' },
  borrow: { apy: 'net_borrow_apy', tvl: 'total_supply_usd' },
  collateral: {},
};

export const DEFAULT_SORT: Record<OfferFamily, SortMode> = {
  earn: 'apy_desc',
  borrow: 'apy_asc',
  collateral: 'updated_desc',
};

/** The sort modes that have an order of their own in a family (collateral: only its default). */
export function distinctSortModes(family: OfferFamily): SortMode[] {
  return family === 'collateral' ? ['updated_desc'] : [...SORT_MODES];
}

/** The sort mode actually applied: one without a matching field falls back to the default. */
export function effectiveSort(family: OfferFamily, requested: SortMode | undefined): SortMode {
  if (!requested) return DEFAULT_SORT[family];
  return distinctSortModes(family).includes(requested) ? requested : DEFAULT_SORT[family];
}

export function offerOrder(family: OfferFamily, mode: SortMode): OrderSpec<OfferShape> {
  const fields = OFFER_SORT_FIELDS[family];
  const decimalField = (name: string | undefined) => (r: OfferShape) => (r[name!] as string | null) ?? null;
  switch (mode) {
    case 'apy_desc':
      return { value: decimalField(fields.apy), kind: 'decimal', direction: 'desc', tieBreak: byId };
    case 'apy_asc':
      return { value: decimalField(fields.apy), kind: 'decimal', direction: 'asc', tieBreak: byId };
    case 'tvl_desc':
      return { value: decimalField(fields.tvl), kind: 'decimal', direction: 'desc', tieBreak: byId };
    case 'updated_desc':
      return { value: (r) => time(r.updated_at), kind: 'number', direction: 'desc', tieBreak: byId };
  }
}
