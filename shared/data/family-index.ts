/**
 * The ordered index of one family version (docs/adr/0009-one-index-per-family-version.md): for
 * every record, what lists, totals, sorts, filters and memberships need and where its document
 * lies. The import builds it (shared/import/project.ts); an instance reads it once and answers
 * every list from memory.
 */

import {
  APY_FIGURES,
  type ApyFigure,
  type ColumnEncoding,
  type ColumnEncodings,
  columnPath,
  FACT_OF,
  FIGURE_FACTS,
  type FigureFact,
  type FilteredFigure,
  isFigureSort,
  OFFER_COLUMNS,
  type OfferColumn,
  type OfferFacts,
  SORT_MODES,
  type SortMode,
} from '../model/offer-families';
import { decimalSortKey } from '../platform/decimal';
import type { CatalogFamily, OfferFamily, VersionedFamily } from './keys';

export type { OfferFacts };

/** The entries of an offer family in one sort mode: typed integers once read (half the heap). */
export type Order = readonly number[] | Int32Array;

/** Where a document lies (the content hash of its block, its place in it) and what it must be. */
export interface DocumentRef {
  block: string;
  slot: number;
  /** The family of the version that names the block (its content hash covers it). */
  family: VersionedFamily;
  /** The record's identifier, which the document must carry: an offer's `id`, a platform's or currency's `slug`. */
  id: number | string;
}

/** The columns every index has, an entry a served record in identifier order: its block (into `blocks`) and slot. */
interface IndexColumns {
  block: number[];
  slot: number[];
  blocks: string[];
  /** A hash of each entry's document: two versions serve the same representation when equal. */
  hash: string[];
}

/** The index of a platform or currency family: its one list order and former slugs. */
export interface CatalogIndexData extends IndexColumns {
  kind: 'catalog';
  family: CatalogFamily;
  slugs: string[];
  order: number[];
  /** Former slug → current slug, for exposed records. */
  redirects: Record<string, string>;
}

/** The stored values of each declared offer column (shared/model/offer-families.ts `OFFER_COLUMNS`). */
export type OfferColumnData = {
  [C in OfferColumn]: ColumnEncodings[(typeof OFFER_COLUMNS)[C]['encoding']]['stored'][];
};

/** Strings kept in one text (a string each costs a header): entry i ends at `ends[i]`, null where empty. */
export class PackedStrings {
  private constructor(
    private readonly text: string,
    private readonly ends: Int32Array,
  ) {}

  static of(values: readonly (string | null)[]): PackedStrings {
    const ends = new Int32Array(values.length);
    let end = 0;
    values.forEach((value, i) => {
      end += value?.length ?? 0;
      ends[i] = end;
    });
    return new PackedStrings(values.map((value) => value ?? '').join(''), ends);
  }

  /**
   * Entry e is `values[k]` where `entries[k]` is e (ascending), else this list's entry `from[e]`
   * (null where -1); each run carried in a row is one copy of the text (an index delta applied).
   */
  carried(from: Int32Array, entries: readonly number[], values: readonly (string | null)[]): PackedStrings {
    const ends = new Int32Array(from.length);
    const pieces: string[] = [];
    let end = 0;
    // The run of this text being carried: [runStart, runEnd), none while runStart is -1.
    let runStart = -1;
    let runEnd = -1;
    const close = () => {
      if (runStart >= 0 && runEnd > runStart) pieces.push(this.text.slice(runStart, runEnd));
      runStart = -1;
    };
    let k = 0;
    for (let e = 0; e < from.length; e++) {
      const b = from[e];
      if (k < entries.length && entries[k] === e) {
        const value = values[k++] ?? '';
        close();
        pieces.push(value);
        end += value.length;
      } else if (b >= 0) {
        const start = b === 0 ? 0 : this.ends[b - 1];
        if (runStart < 0 || start !== runEnd) {
          close();
          runStart = start;
        }
        runEnd = this.ends[b];
        end += runEnd - start;
      }
      ends[e] = end;
    }
    close();
    return new PackedStrings(pieces.join(''), ends);
  }

  get length(): number {
    return this.ends.length;
  }

  get characters(): number {
    return this.text.length;
  }

  at(i: number): string | null {
    const start = i === 0 ? 0 : this.ends[i - 1];
    const end = this.ends[i];
    return end === start ? null : this.text.slice(start, end);
  }

  toJSON(): (string | null)[] {
    return Array.from({ length: this.length }, (_, i) => this.at(i));
  }
}

/** The APY figures of an earn or borrow version (CONTRACT §13) as of one time, each entry's packed (`packFigures`). */
export interface FigureData {
  as_of: string;
  stats: PackedStrings;
}

/** The index of an offer family: the filter and sort values of every published offer (its declared columns). */
export interface OfferIndexData extends IndexColumns, OfferColumnData {
  kind: 'offers';
  family: OfferFamily;
  /** Entries in each sort mode that has an order of its own in the family. */
  orders: Partial<Record<string, Order>>;
  /** Earn and borrow versions imported with figures (absent on collateral and on versions without). */
  figures?: FigureData;
}

/** One offer's figures: each of APY_FIGURES (a decimal string or null) and `points_30d`. */
export type FigureValues = Readonly<Record<ApyFigure, string | null>> & { readonly points_30d: number };

const FIGURE_SEPARATOR = '|';
/** A packed entry: APY_FIGURES' values (empty for null) then `points_30d`, joined by `|`. */
export const PACKED_FIGURES = new RegExp(`^(?:(?:-?\\d+(?:\\.\\d+)?)?\\|){${APY_FIGURES.length}}\\d+$`);

/** One offer's figures as the index stores them: `"0.12|-0.5||4.123456|4.123456|0.123456|30"`. */
export const packFigures = (values: FigureValues): string =>
  [...APY_FIGURES.map((figure) => values[figure] ?? ''), String(values.points_30d)].join(FIGURE_SEPARATOR);

function unpackFigures(packed: string): FigureValues {
  const parts = packed.split(FIGURE_SEPARATOR);
  const values: Record<string, string | number | null> = { points_30d: Number(parts[APY_FIGURES.length]) };
  APY_FIGURES.forEach((figure, i) => {
    values[figure] = parts[i] === '' ? null : parts[i];
  });
  // The codec checked the packed form (items/index-segment.ts PACKED_FIGURES).
  return values as FigureValues;
}

/** One figure of a packed entry, without unpacking the others. */
function figureOf(packed: string, figure: ApyFigure): string | null {
  const place = APY_FIGURES.indexOf(figure);
  let start = 0;
  for (let k = 0; k < place; k++) start = packed.indexOf(FIGURE_SEPARATOR, start) + 1;
  const value = packed.slice(start, packed.indexOf(FIGURE_SEPARATOR, start));
  return value === '' ? null : value;
}

/** The figures of an offer without any: every one null, no point. */
export const NO_FIGURES: FigureValues = {
  ...(Object.fromEntries(APY_FIGURES.map((figure) => [figure, null])) as Record<ApyFigure, null>),
  points_30d: 0,
};

/** Below this many micro-units a figure is an exact double (2^53 > 10^15). */
const EXACT_UNITS = 1e15;

/** @internal A filtered figure as a fact: its micro-units when exact (6 decimals, < 16 digits), else its decimal's key. */
export function figureFact(value: string | null): FigureFact {
  if (value === null) return null;
  if (/^-?\d+\.\d{6}$/.test(value)) {
    const units = Number(value.replace('.', ''));
    if (Math.abs(units) < EXACT_UNITS) return units;
  }
  return decimalSortKey(value);
}

export type IndexData = CatalogIndexData | OfferIndexData;

/** A family version's content: its index and the blocks of documents it names (each addressed by its hash). */
export interface VersionContent {
  index: IndexData;
  blocks: { hash: string; docs: string[] }[];
}

/** How each encoding stores a value of a rendered document (shared/model/offer-families.ts `ColumnEncodings`). */
const ENCODE: { [E in ColumnEncoding]: (value: unknown) => ColumnEncodings[E]['stored'] } = {
  id: (value) => value as number,
  text: (value) => (typeof value === 'string' ? value : null),
  platformType: (value) => (typeof value === 'string' ? value : null),
  decimalKey: (value) => (typeof value === 'string' ? decimalSortKey(value) : null),
  flag: (value) => (value === true ? 1 : 0),
};

/** A value at a path of a document (undefined past a missing or null part). */
const at = (doc: Record<string, unknown>, path: readonly string[]): unknown =>
  path.reduce<unknown>(
    (value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined),
    doc,
  );

/** The declared columns of a family's offers, from their rendered documents (in the order of the ids). */
export function offerColumns(family: OfferFamily, docs: readonly Record<string, unknown>[]): OfferColumnData {
  const data: Record<string, unknown[]> = {};
  for (const column of Object.keys(OFFER_COLUMNS) as OfferColumn[]) {
    const path = columnPath(family, column);
    const encode = ENCODE[OFFER_COLUMNS[column].encoding];
    data[column] = docs.map((doc) => encode(path === undefined ? undefined : at(doc, path)));
  }
  // Every declared column, each value by its encoding.
  return data as OfferColumnData;
}

/** What a kept index holds in the heap, per character of its JSON (measured: tools/bench/index-load.ts). */
const HEAP_PER_CHARACTER = 3;

/** What an offer index builds per entry and sort mode once lists ran in it: a rank and an asset place. */
const DERIVED_BYTES_PER_ENTRY_AND_MODE = 8;

class BaseIndex<D extends IndexData> {
  constructor(
    readonly version: string,
    readonly data: D,
    /** The length of the stored JSON it was read from (what an instance's budget counts). */
    readonly textLength = 0,
  ) {}

  get size(): number {
    return this.data.block.length;
  }

  /** What the index is estimated to hold in the heap (index-store.ts keeps them within a budget). */
  get heapBytes(): number {
    return this.textLength * HEAP_PER_CHARACTER;
  }

  ref(entry: number): DocumentRef {
    const data: IndexData = this.data;
    return {
      block: data.blocks[data.block[entry]],
      slot: data.slot[entry],
      family: data.family,
      id: data.kind === 'catalog' ? data.slugs[entry] : data.ids[entry],
    };
  }

  hash(entry: number): string {
    return this.data.hash[entry];
  }
}

export class CatalogIndex extends BaseIndex<CatalogIndexData> {
  private bySlug?: Map<string, number>;

  /** The entry of a current slug. */
  entry(slug: string): number | undefined {
    this.bySlug ??= new Map(this.data.slugs.map((s, i) => [s, i]));
    return this.bySlug.get(slug);
  }

  /** The current slug a former one redirects to. */
  redirect(slug: string): string | undefined {
    return Object.hasOwn(this.data.redirects, slug) ? this.data.redirects[slug] : undefined;
  }

  get order(): readonly number[] {
    return this.data.order;
  }
}

/** Every entry's facts, a column each: the predicate reads them without an object an offer. */
export type OfferFactColumns = { readonly [K in keyof OfferFacts]: ArrayLike<OfferFacts[K]> };

/** An asset's entries in one sort mode, all assets' in one array: `grouped` from `starts[a]` to `starts[a + 1]`. */
interface AssetGroups {
  grouped: Int32Array;
  starts: Int32Array;
}

const NO_ENTRIES = new Int32Array(0);

export class OfferIndex extends BaseIndex<OfferIndexData> {
  /** Each asset's number, and each entry's (−1 without an asset), built once. */
  private assets?: { slots: Map<string, number>; of: Int32Array };
  private readonly byAsset = new Map<string, AssetGroups>();
  private readonly ranks = new Map<string, Int32Array>();
  private factColumns?: OfferFactColumns;
  private identity?: number[];

  /** The JSON's estimate, and the ranks and asset lists of every sort mode counted as if built. */
  override get heapBytes(): number {
    const derived = Object.keys(this.data.orders).length * this.size * DERIVED_BYTES_PER_ENTRY_AND_MODE;
    const figures = Math.min(this.data.figures?.stats.characters ?? 0, this.textLength);
    return super.heapBytes + derived - figures * (HEAP_PER_CHARACTER - 1);
  }

  /** The entry of an offer: the ids are in ascending order (items/index-segment.ts checks), so a binary search. */
  entry(id: number): number | undefined {
    const ids = this.data.ids;
    let low = 0;
    let high = ids.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const at = ids[middle];
      if (at === id) return middle;
      if (at < id) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  id(entry: number): number {
    return this.data.ids[entry];
  }

  order(mode: string): Order {
    const order = this.data.orders[mode];
    if (order) return order;
    // A version without figures: every figure null, so its figure orders are the ids' (null last, ties by id).
    if (this.data.figures === undefined && (SORT_MODES as string[]).includes(mode) && isFigureSort(mode as SortMode)) {
      this.identity ??= this.data.ids.map((_, i) => i);
      return this.identity;
    }
    throw new Error(`the ${this.data.family} index has no ${mode} order`);
  }

  /** An entry's figures and their `as_of`; undefined when the version carries none. */
  figures(entry: number): { asOf: string; values: FigureValues } | undefined {
    const figures = this.data.figures;
    if (figures === undefined) return undefined;
    const packed = figures.stats.at(entry);
    return { asOf: figures.as_of, values: packed === null ? NO_FIGURES : unpackFigures(packed) };
  }

  /** Each entry's place in `mode`'s order (puts any set of entries in that order), built once per mode. */
  rank(mode: string): Int32Array {
    let rank = this.ranks.get(mode);
    if (!rank) {
      const order = this.order(mode);
      rank = new Int32Array(this.size);
      for (let place = 0; place < order.length; place++) rank[order[place]] = place;
      this.ranks.set(mode, rank);
    }
    return rank;
  }

  /** The entries whose asset is `slug`, in `mode` (the currency detail's membership). */
  ofAsset(slug: string, mode: string): Int32Array {
    const assets = this.assetSlots();
    const slot = assets.slots.get(slug);
    if (slot === undefined) return NO_ENTRIES;
    let groups = this.byAsset.get(mode);
    if (!groups) {
      // A counting sort of the order by asset: each asset's entries stay in the order's sequence.
      const starts = new Int32Array(assets.slots.size + 1);
      for (const a of assets.of) if (a >= 0) starts[a + 1]++;
      for (let a = 0; a < assets.slots.size; a++) starts[a + 1] += starts[a];
      const next = starts.slice(0, assets.slots.size);
      const grouped = new Int32Array(starts[assets.slots.size]);
      for (const entry of this.order(mode)) {
        const a = assets.of[entry];
        if (a >= 0) grouped[next[a]++] = entry;
      }
      groups = { grouped, starts };
      this.byAsset.set(mode, groups);
    }
    return groups.grouped.subarray(groups.starts[slot], groups.starts[slot + 1]);
  }

  private assetSlots(): { slots: Map<string, number>; of: Int32Array } {
    if (!this.assets) {
      const slots = new Map<string, number>();
      const of = new Int32Array(this.size);
      this.data.asset.forEach((asset, entry) => {
        if (asset === null) {
          of[entry] = -1;
          return;
        }
        let slot = slots.get(asset);
        if (slot === undefined) {
          slot = slots.size;
          slots.set(asset, slot);
        }
        of[entry] = slot;
      });
      this.assets = { slots, of };
    }
    return this.assets;
  }

  /** Every entry's facts: the index's columns, and each filtered figure's built on its first read. */
  facts(): OfferFactColumns {
    if (!this.factColumns) {
      const d = this.data;
      const columns: Record<string, ArrayLike<unknown>> = {};
      for (const column of Object.keys(OFFER_COLUMNS) as OfferColumn[]) columns[FACT_OF[column]] = d[column];
      for (const [figure, fact] of Object.entries(FIGURE_FACTS) as [FilteredFigure, string][]) {
        let values: FigureFact[] | undefined;
        Object.defineProperty(columns, fact, {
          enumerable: true,
          get: () => {
            if (!values) {
              values = new Array<FigureFact>(this.size);
              for (let i = 0; i < this.size; i++) {
                const packed = d.figures?.stats.at(i);
                values[i] = packed ? figureFact(figureOf(packed, figure)) : null;
              }
            }
            return values;
          },
        });
      }
      // Each column as its encoding stores it is its fact (shared/model/offer-families.ts `ColumnEncodings`).
      this.factColumns = columns as OfferFactColumns;
    }
    return this.factColumns;
  }
}

export type FamilyIndex = CatalogIndex | OfferIndex;

export const indexOf = (version: string, data: IndexData, textLength?: number): FamilyIndex =>
  data.kind === 'catalog' ? new CatalogIndex(version, data, textLength) : new OfferIndex(version, data, textLength);
