/**
 * One declaration per offer family (STYLE rule 23): its fields, sort modes, runtime flag, filters,
 * history and routes, and the index columns its filters read. Everything else is derived from it:
 * the query schemas (shared/http/query.ts), the orderings (shared/domain/orderings.ts), the
 * filters' predicate (shared/domain/offer-facts.ts), the index columns, their codec and the
 * layout version (shared/data/family-index.ts, items/index-segment.ts), the projection
 * (shared/import/project.ts), the description's parameters (scripts/openapi) and the docs'
 * tables (checked by test/unit/model/offer-families.test.ts). Its zod schema is in
 * shared/domain/resources.ts (`OFFER_FIELDS`, checked against `fields` here), kept apart so that
 * a function that needs only this declaration builds no resource schema at load time.
 *
 * A new filter on an existing field: a column (if none holds the field yet), the filter, its name
 * in each family's `query`. A new sort mode: a `SORTS` entry on a role the families give a field,
 * or on an APY figure (CONTRACT §13: `APY_FIGURES`, on the families with `figures`).
 */
import type { PlatformType } from '../platform/constants';

export const OFFER_FAMILIES = ['earn', 'borrow', 'collateral'] as const;
export type OfferFamily = (typeof OFFER_FAMILIES)[number];

// ---- index columns -------------------------------------------------------------------------------

/**
 * How a column stores its values and what the predicate sees (a fact): `id` an integer; `text` a
 * string or null; `platformType` one of PLATFORM_TYPES or null; `decimalKey` the order-preserving
 * key of a decimal (shared/platform/decimal.ts) or null; `flag` 0 or 1 (a filter's `true` is 1).
 */
export interface ColumnEncodings {
  id: { stored: number; fact: number };
  text: { stored: string | null; fact: string | null };
  platformType: { stored: string | null; fact: PlatformType | null };
  decimalKey: { stored: string | null; fact: string | null };
  flag: { stored: 0 | 1; fact: 0 | 1 };
}
export type ColumnEncoding = keyof ColumnEncodings;

/** The role a family gives one of its fields: the APY and TVL it sorts and filters by, its update time, its runtime flag. */
export type FieldRole = 'apy' | 'tvl' | 'updated' | 'flag';

/** Where a column's value comes from: a path into the rendered document, or the field of a role (null where the family has none). */
type ColumnSource = { path: readonly string[] } | { role: FieldRole };

export interface ColumnDeclaration {
  encoding: ColumnEncoding;
  source: ColumnSource;
  /** Its name in the facts the predicate reads (default: the column's). */
  fact?: string;
}

/**
 * The filter columns of every offer index, one entry per published offer, in the order of the ids.
 * Their names and encodings are the stored layout: the index layout version is derived from them
 * (shared/data/items/index-segment.ts `INDEX_LAYOUT`).
 */
export const OFFER_COLUMNS = {
  ids: { encoding: 'id', source: { path: ['id'] }, fact: 'id' },
  /** The rendered platform's type and slug (null when the reference is hidden or unknown). */
  platformType: { encoding: 'platformType', source: { path: ['platform', 'type'] } },
  platform: { encoding: 'text', source: { path: ['platform', 'slug'] } },
  asset: { encoding: 'text', source: { path: ['asset', 'slug'] } },
  chain: { encoding: 'text', source: { path: ['chain', 'slug'] } },
  apyKey: { encoding: 'decimalKey', source: { role: 'apy' } },
  tvlKey: { encoding: 'decimalKey', source: { role: 'tvl' } },
  flag: { encoding: 'flag', source: { role: 'flag' } },
} as const satisfies Record<string, ColumnDeclaration>;
export type OfferColumn = keyof typeof OFFER_COLUMNS;

type FactName<C extends OfferColumn> = (typeof OFFER_COLUMNS)[C] extends { fact: infer F extends string } ? F : C;

// ---- APY figures (CONTRACT §13) ----------------------------------------------------------------

/**
 * The figures of `apy_stats` after its `as_of`, in the order of its JSON (shared/domain/apy-stats.ts
 * `ApyStats`): six decimals or null, then `points_30d`. An earn or borrow index holds them for every
 * offer, packed (shared/data/family-index.ts); the index layout version is derived from this list.
 */
export const APY_FIGURES = ['change_1d', 'change_7d', 'change_30d', 'mean_7d', 'mean_30d', 'stddev_30d'] as const;
export type ApyFigure = (typeof APY_FIGURES)[number];

/** The figures filters read, each a fact of the index under this name. */
export const FIGURE_FACTS = { mean_30d: 'mean30d', stddev_30d: 'stddev30d' } as const;
export type FilteredFigure = keyof typeof FIGURE_FACTS;

/**
 * A filtered figure as a fact: its micro-units (the figure has 6 decimals) while they are below
 * 2^53 in magnitude, exact as a double; past that, the order-preserving key of the decimal
 * (shared/platform/decimal.ts `decimalSortKey`), compared exactly; null when the figure is null.
 */
export type FigureFact = number | string | null;

/** The `include` values (docs/api.md, "APY figures"): what each adds to every earn and borrow offer of an answer. */
export const INCLUDES = ['apy_stats'] as const;
export type Include = (typeof INCLUDES)[number];

/** One offer's filterable facts, as the index holds them: one per column, one per filtered figure. */
export type OfferFacts = {
  [C in OfferColumn as FactName<C>]: ColumnEncodings[(typeof OFFER_COLUMNS)[C]['encoding']]['fact'];
} & { [F in FilteredFigure as (typeof FIGURE_FACTS)[F]]: FigureFact };

/** The fact name of each column. */
export const FACT_OF = Object.fromEntries(
  Object.entries(OFFER_COLUMNS).map(([column, declared]) => [column, 'fact' in declared ? declared.fact : column]),
) as { [C in OfferColumn]: FactName<C> };

// ---- filters -------------------------------------------------------------------------------------

/**
 * What a filter parameter takes and how it matches (docs/api.md, "Filters"): `anyOf` a
 * comma-separated list (OR within it) of slugs, platform types or ids, matching a fact equal to one;
 * `atLeast` (`atMost`) a non-negative number (any sign where the declaration says `signed`: a mean
 * can be below zero, CONTRACT §13), matching a decimal fact at least (at most) it; `is`
 * `true` or `false`, matching the flag. A null fact matches no filter on it; parameters combine
 * with AND.
 */
export interface FilterKinds {
  slugs: readonly string[];
  platformTypes: readonly PlatformType[];
  ids: readonly number[];
  atLeast: string;
  atMost: string;
  is: boolean;
}
export type FilterKind = keyof FilterKinds;

/** A filter reads a column's fact, or a figure's (`FIGURE_FACTS`). */
export type FilterDeclaration = {
  kind: FilterKind;
  /** The most values a list takes. */
  max?: number;
  /** A bound that may be negative (`atLeast`, `atMost`); without it, a negative bound is a `validation_error`. */
  signed?: true;
} & ({ column: OfferColumn } | { figure: FilteredFigure });

/** The most values of a list filter: `ids`, and every other one. */
export const LIST_MAX = { ids: 200, other: 20 } as const;

export const OFFER_FILTERS = {
  platform_type: { kind: 'platformTypes', column: 'platformType', max: LIST_MAX.other },
  platform: { kind: 'slugs', column: 'platform', max: LIST_MAX.other },
  asset: { kind: 'slugs', column: 'asset', max: LIST_MAX.other },
  chain: { kind: 'slugs', column: 'chain', max: LIST_MAX.other },
  ids: { kind: 'ids', column: 'ids', max: LIST_MAX.ids },
  min_apy: { kind: 'atLeast', column: 'apyKey' },
  min_tvl: { kind: 'atLeast', column: 'tvlKey' },
  available: { kind: 'is', column: 'flag' },
  is_active: { kind: 'is', column: 'flag' },
  min_apy_mean_30d: { kind: 'atLeast', figure: 'mean_30d', signed: true },
  max_apy_stddev_30d: { kind: 'atMost', figure: 'stddev_30d' },
} as const satisfies Record<string, FilterDeclaration>;
export type OfferFilter = keyof typeof OFFER_FILTERS;

/** The values of a list's filters as parsed; an absent one leaves its dimension free. */
export type OfferFilters = { readonly [F in OfferFilter]?: FilterKinds[(typeof OFFER_FILTERS)[F]['kind']] };

// ---- sort modes ----------------------------------------------------------------------------------

/** How a role's values compare: exact decimals, or instants. */
export const ROLE_VALUES = { apy: 'decimal', tvl: 'decimal', updated: 'time' } as const satisfies Partial<
  Record<FieldRole, 'decimal' | 'time'>
>;
export type SortRole = keyof typeof ROLE_VALUES;

/**
 * The sort modes (docs/api.md, "Orderings"), in the order the description lists them: each sorts
 * by a role's field or by an APY figure. A family whose fields lack the role has no order of its
 * own for the mode: asking for it falls back to the family's default. A figure's mode exists only
 * on the families with figures (elsewhere a `validation_error`); a null figure sorts last.
 */
export const SORTS = {
  apy_desc: { role: 'apy', direction: 'desc' },
  apy_asc: { role: 'apy', direction: 'asc' },
  tvl_desc: { role: 'tvl', direction: 'desc' },
  updated_desc: { role: 'updated', direction: 'desc' },
  apy_mean_30d_desc: { figure: 'mean_30d', direction: 'desc' },
  apy_change_7d_desc: { figure: 'change_7d', direction: 'desc' },
  apy_stddev_30d_asc: { figure: 'stddev_30d', direction: 'asc' },
} as const satisfies Record<string, ({ role: SortRole } | { figure: ApyFigure }) & { direction: 'asc' | 'desc' }>;
export type SortMode = keyof typeof SORTS;
export const SORT_MODES = Object.keys(SORTS) as [SortMode, ...SortMode[]];

/** The sort modes by an APY figure. */
export type FigureSortMode = { [M in SortMode]: (typeof SORTS)[M] extends { figure: ApyFigure } ? M : never }[SortMode];
export const isFigureSort = (mode: SortMode): mode is FigureSortMode => 'figure' in SORTS[mode];

// ---- the families --------------------------------------------------------------------------------

/** `sort` and `include` sit among the filters of a list's parameters, where their messages come. */
export type OfferParameter = OfferFilter | 'sort' | 'include';

export interface OfferFamilyDeclaration {
  /** The dataset family (data file array) its records come from. */
  dataset: string;
  /** Its identifier field. */
  identifier: 'id';
  /** The field of each role it has. */
  fields: Partial<Record<FieldRole, string>> & { updated: string; flag: string };
  defaultSort: SortMode;
  /** The list's parameters between `offset` and `snapshot`, in the order of their messages (docs/api.md, "Parameters"). */
  query: readonly OfferParameter[];
  /**
   * The roles its history series holds, each the field of that role an import records (CONTRACT §12);
   * none: it has no APY history (`GET /{family}/{id}/history` answers 404).
   */
  history: readonly ('apy' | 'tvl')[];
  /**
   * Whether its versions carry the APY figures of CONTRACT §13 (its sort modes by a figure, the
   * figure filters and `include` in its `query`; `include` on its details and changes).
   */
  figures: boolean;
  /** Its routes' path, under /api/v1. */
  path: string;
}

export const OFFER_FAMILY = {
  earn: {
    dataset: 'earn_offers',
    identifier: 'id',
    fields: { apy: 'apy', tvl: 'tvl', updated: 'updated_at', flag: 'available' },
    defaultSort: 'apy_desc',
    query: [
      'platform_type',
      'platform',
      'asset',
      'sort',
      'min_apy',
      'chain',
      'ids',
      'min_tvl',
      'available',
      'min_apy_mean_30d',
      'max_apy_stddev_30d',
      'include',
    ],
    history: ['apy', 'tvl'],
    figures: true,
    path: '/earn',
  },
  borrow: {
    dataset: 'borrow_offers',
    identifier: 'id',
    fields: { apy: 'net_borrow_apy', tvl: 'total_supply_usd', updated: 'updated_at', flag: 'is_active' },
    defaultSort: 'apy_asc',
    query: [
      'platform_type',
      'platform',
      'asset',
      'sort',
      'min_apy',
      'chain',
      'ids',
      'min_tvl',
      'is_active',
      'min_apy_mean_30d',
      'max_apy_stddev_30d',
      'include',
    ],
    history: ['apy'],
    figures: true,
    path: '/borrow',
  },
  collateral: {
    dataset: 'collateral_offers',
    identifier: 'id',
    fields: { updated: 'updated_at', flag: 'is_active' },
    defaultSort: 'updated_desc',
    query: ['platform_type', 'platform', 'asset', 'sort', 'chain', 'ids', 'is_active'],
    history: [],
    figures: false,
    path: '/collateral',
  },
} as const satisfies Record<OfferFamily, OfferFamilyDeclaration>;

/** The families that have APY history (collateral has none). */
export type HistoryFamily = {
  [F in OfferFamily]: (typeof OFFER_FAMILY)[F]['history'] extends readonly [] ? never : F;
}[OfferFamily];
export const isHistoryFamily = (family: OfferFamily): family is HistoryFamily =>
  OFFER_FAMILY[family].history.length > 0;
export const HISTORY_FAMILIES = OFFER_FAMILIES.filter(isHistoryFamily);

/** Families in words, in the order given: `earn, borrow and collateral` (the descriptions' texts). */
export const inWords = (families: readonly string[]): string =>
  families.length < 2 ? families.join('') : `${families.slice(0, -1).join(', ')} and ${families[families.length - 1]}`;

/** The families whose versions carry APY figures (earn and borrow). */
export type FigureFamily = {
  [F in OfferFamily]: (typeof OFFER_FAMILY)[F]['figures'] extends true ? F : never;
}[OfferFamily];
export const hasFigures = (family: OfferFamily): family is FigureFamily => OFFER_FAMILY[family].figures;

export const FIGURE_FAMILIES = OFFER_FAMILIES.filter(hasFigures);

/** The filters a family's list accepts, in the order of its parameters. */
export const filtersOf = (family: OfferFamily): OfferFilter[] =>
  (OFFER_FAMILY[family].query as readonly OfferParameter[]).filter(
    (p): p is OfferFilter => p !== 'sort' && p !== 'include',
  );

/** The sort modes a family's `sort` accepts: every mode of a role, a figure's only where the family has figures. */
export const sortModesOf = (family: OfferFamily): [SortMode, ...SortMode[]] =>
  SORT_MODES.filter((mode) => !isFigureSort(mode) || hasFigures(family)) as [SortMode, ...SortMode[]];

/** The sort modes that have an order of their own in a family: those whose role it gives a field, and its figures'. */
export const distinctSortModes = (family: OfferFamily): SortMode[] =>
  sortModesOf(family).filter((mode) => {
    const sort = SORTS[mode];
    return 'figure' in sort || sort.role in OFFER_FAMILY[family].fields;
  });

/** The field a column reads in a family's rendered document (a path), or undefined where the family has none. */
export function columnPath(family: OfferFamily, column: OfferColumn): readonly string[] | undefined {
  const { source } = OFFER_COLUMNS[column] as ColumnDeclaration;
  if ('path' in source) return source.path;
  const field = (OFFER_FAMILY[family].fields as Partial<Record<FieldRole, string>>)[source.role];
  return field === undefined ? undefined : [field];
}
