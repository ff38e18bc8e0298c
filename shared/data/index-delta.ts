/**
 * An offer version's index as a delta against the version it replaced (docs/adr/0017-index-deltas.md):
 * the entries removed and added (both indexes are in id order, so every other entry carries the
 * replaced one of its id), per column the entries whose value is not the carried one, the blocks as
 * runs of the replaced list and new hashes, and per order the entries outside a longest subsequence
 * both orders share. The import keeps it only when applying it gives the new index exactly.
 */
import { OFFER_COLUMNS, type OfferColumn, type OfferFamily } from '../model/offer-families';
import { finished, type Steps } from '../platform/steps';
import { type OfferIndexData, type Order, PackedStrings } from './family-index';

/** A column's changed entries (new entry numbers, ascending) and their values. */
type ColumnChanges = [entries: number[], values: unknown[]];

/** The delta of an offer index against the version it replaced. */
export interface IndexDeltaData {
  kind: 'offers-delta';
  family: OfferFamily;
  /** The version it applies to: the one the new version replaced. */
  base: string;
  /** The new index's entries. */
  size: number;
  /** Entries of the replaced index that the new one has not (ascending). */
  removed: number[];
  /** Entries of the new index that the replaced one has not (ascending). */
  added: number[];
  /** The new list of blocks: runs `[start, length]` of the replaced list, and new hashes. */
  blocks: (string | [number, number])[];
  /** For each new hash of `blocks`, in order, its entries in slot order (their `block` and `slot`). */
  members: number[][];
  /** Per entry column (entryColumns), the entries whose value is not the carried one, and their values. */
  columns: Record<string, ColumnChanges>;
  /** Per order of the new index, its places (ascending) that moved entries take, and those entries. */
  orders: Record<string, [places: number[], entries: number[]]>;
  /** The new figures' time; null for an index without figures. */
  figuresAsOf: string | null;
}

/** The columns of an offer index with one value per entry, by name: the one place that says which they are. */
function entryColumns(data: OfferIndexData): Record<string, () => readonly unknown[] | undefined> {
  const columns: Record<string, () => readonly unknown[] | undefined> = {};
  for (const name of Object.keys(OFFER_COLUMNS) as OfferColumn[]) columns[name] = () => data[name];
  columns.block = () => data.block;
  columns.slot = () => data.slot;
  columns.hash = () => data.hash;
  columns.figures = () => data.figures?.stats.toJSON();
  return columns;
}

/** Each new entry's replaced entry (-1 for an added one), from the removed and added entries. */
function carriedEntries(baseSize: number, size: number, removed: readonly number[], added: readonly number[]) {
  const from = new Int32Array(size);
  let b = 0;
  let r = 0;
  let a = 0;
  for (let e = 0; e < size; e++) {
    if (a < added.length && added[a] === e) {
      from[e] = -1;
      a++;
      continue;
    }
    while (r < removed.length && removed[r] === b) {
      b++;
      r++;
    }
    if (b >= baseSize) throw new Error('the delta carries more entries than its base has');
    from[e] = b++;
  }
  return from;
}

/** Each replaced entry's new entry (-1 for a removed one). */
function inverse(from: Int32Array, baseSize: number): Int32Array {
  const to = new Int32Array(baseSize).fill(-1);
  from.forEach((b, e) => {
    if (b >= 0) to[b] = e;
  });
  return to;
}

/** The value a new entry carries in a column: the replaced entry's, its block renumbered. */
const carried = (name: string, base: readonly unknown[] | undefined, b: number, blockOf: Int32Array): unknown =>
  b < 0 || base === undefined ? undefined : name === 'block' ? blockOf[base[b] as number] : base[b];

/** The places in the new list of blocks of its new hashes, in order. */
const newBlocks = (parts: IndexDeltaData['blocks']): number[] => {
  const places: number[] = [];
  let place = 0;
  for (const part of parts) {
    if (typeof part === 'string') places.push(place++);
    else place += part[1];
  }
  return places;
};

/** A column of the new index: the replaced index's own list until a value differs, then a copy (ADR 0019, 6). */
class CarriedColumn {
  constructor(
    public values: unknown[],
    private copied = false,
  ) {}

  set(e: number, value: unknown): void {
    if (this.values[e] === value) return;
    if (!this.copied) {
      this.values = this.values.slice();
      this.copied = true;
    }
    this.values[e] = value;
  }
}

/**
 * The new index's entry columns before the delta's changes, a step each: each entry's replaced
 * entry's values (a block renumbered), the members of each new block placed in it, none for an
 * added entry. Not the figures, which stay packed (`carriedFigures`).
 */
function* carriedColumns(
  base: OfferIndexData,
  delta: Pick<IndexDeltaData, 'size' | 'removed' | 'added' | 'members'>,
  from: Int32Array,
  blockOf: Int32Array,
  placed: readonly number[],
): Steps<Record<string, CarriedColumn>> {
  const { size } = delta;
  const same = sameEntries(base, delta);
  const columns: Record<string, CarriedColumn> = {};
  for (const [name, column] of Object.entries(entryColumns(base))) {
    if (name === 'figures') continue;
    const old = column();
    if (same && old !== undefined) {
      const carriedColumn = new CarriedColumn(old as unknown[]);
      columns[name] = carriedColumn;
      if (name !== 'block') continue;
      for (let e = 0; e < size; e++) carriedColumn.set(e, blockOf[old[e] as number]);
    } else {
      const values: unknown[] = [];
      for (let e = 0; e < size; e++) values.push(carried(name, old, from[e], blockOf));
      columns[name] = new CarriedColumn(values, true);
    }
    yield;
  }
  if (delta.members.length !== placed.length) throw new Error('the delta’s new blocks and their members disagree');
  delta.members.forEach((entries, k) => {
    entries.forEach((e, slot) => {
      if (e >= size) throw new Error(`the delta places entry ${e} of ${size}`);
      columns.block.set(e, placed[k]);
      columns.slot.set(e, slot);
    });
  });
  yield;
  return columns;
}

/** The new index's figures, packed: each entry's the replaced entry's, or the delta's where it changes them. */
function carriedFigures(
  base: OfferIndexData,
  delta: Pick<IndexDeltaData, 'size' | 'removed' | 'added' | 'figuresAsOf' | 'columns'>,
  from: Int32Array,
): PackedStrings | undefined {
  if (delta.figuresAsOf === null) {
    if (delta.columns.figures) throw new Error('the delta changes figures of an index without figures');
    return undefined;
  }
  const [entries, values] = delta.columns.figures ?? [[], []];
  // `carried` reads the changes in the order of the entries.
  if (entries.some((e, i) => e >= delta.size || (i > 0 && e <= entries[i - 1])))
    throw new Error(`the delta's changed figures are not entries of ${delta.size} in order`);
  if (sameEntries(base, delta) && entries.length === 0 && base.figures) return base.figures.stats;
  const old = base.figures?.stats ?? PackedStrings.of(new Array(base.block.length).fill(null));
  return old.carried(from, entries, values as (string | null)[]);
}

/** Does every new entry carry the replaced entry of its number (none removed or added)? */
const sameEntries = (base: OfferIndexData, delta: Pick<IndexDeltaData, 'size' | 'removed' | 'added'>) =>
  delta.removed.length === 0 && delta.added.length === 0 && delta.size === base.block.length;

/** Apply `delta` to `base`, the index of the version it names, in steps (a column, an order each: ADR 0019, 5). */
export function* applyDeltaSteps(base: OfferIndexData, delta: IndexDeltaData): Steps<OfferIndexData> {
  if (base.family !== delta.family) throw new Error(`a ${delta.family} delta cannot apply to a ${base.family} index`);
  const baseSize = base.block.length;
  const { size } = delta;
  const from = carriedEntries(baseSize, size, delta.removed, delta.added);
  const blocks: string[] = [];
  const blockOf = new Int32Array(base.blocks.length).fill(-1);
  for (const part of delta.blocks) {
    if (typeof part === 'string') blocks.push(part);
    else
      for (let b = part[0]; b < part[0] + part[1]; b++) {
        if (b >= base.blocks.length) throw new Error('the delta names a block its base has not');
        blockOf[b] = blocks.length;
        blocks.push(base.blocks[b]);
      }
  }
  const columns = yield* carriedColumns(base, delta, from, blockOf, newBlocks(delta.blocks));
  for (const [name, [entries, values]] of Object.entries(delta.columns)) {
    if (name === 'figures') continue;
    const column = columns[name];
    if (!column) throw new Error(`the delta changes a column its index has not: ${name}`);
    entries.forEach((e, i) => {
      if (e >= size) throw new Error(`the delta changes entry ${e} of ${size}`);
      column.set(e, values[i]);
    });
    yield;
  }
  const figures = carriedFigures(base, delta, from);
  yield;
  const same = sameEntries(base, delta);
  // With the same entries, every entry carries its own number: `from` is its own inverse.
  const to = same ? from : inverse(from, baseSize);
  const orders: Record<string, Order> = {};
  // The entries that move in an order, marked for that order and cleared after it.
  const moved = new Uint8Array(size);
  for (const [mode, [places, entries]] of Object.entries(delta.orders)) {
    const kept = base.orders[mode];
    // An order no entry moved in is the replaced one (an index never changes its orders).
    if (same && places.length === 0 && kept) {
      orders[mode] = kept;
      continue;
    }
    for (const e of entries) moved[e] = 1;
    const order = new Int32Array(size);
    const old = base.orders[mode] ?? [];
    let next = 0;
    let m = 0;
    for (let place = 0; place < size; place++) {
      if (m < places.length && places[m] === place) {
        order[place] = entries[m++];
        continue;
      }
      let e = -1;
      while (next < old.length && (e < 0 || moved[e])) e = to[old[next++]];
      if (e < 0 || moved[e]) throw new Error(`the delta's ${mode} order runs out of entries`);
      order[place] = e;
    }
    for (const e of entries) moved[e] = 0;
    orders[mode] = order;
    yield;
  }
  const { block, slot, hash, ...declared } = Object.fromEntries(
    Object.entries(columns).map(([name, column]) => [name, column.values]),
  );
  return {
    kind: 'offers',
    family: delta.family,
    ...(declared as Pick<OfferIndexData, OfferColumn>),
    orders,
    ...(delta.figuresAsOf === null || figures === undefined
      ? {}
      : { figures: { as_of: delta.figuresAsOf, stats: figures } }),
    block: block as number[],
    slot: slot as number[],
    blocks,
    hash: hash as string[],
  };
}

/** Apply `delta` to `base` at once (`applyDeltaSteps`). */
export const applyDelta = (base: OfferIndexData, delta: IndexDeltaData): OfferIndexData =>
  finished(applyDeltaSteps(base, delta));

/** The new list of blocks as runs of the replaced list and new hashes. */
function blockRuns(base: readonly string[], next: readonly string[]): IndexDeltaData['blocks'] {
  const placeOf = new Map(base.map((hash, b) => [hash, b]));
  const parts: IndexDeltaData['blocks'] = [];
  for (const hash of next) {
    const b = placeOf.get(hash);
    const last = parts[parts.length - 1];
    if (b === undefined) parts.push(hash);
    else if (Array.isArray(last) && last[0] + last[1] === b) last[1]++;
    else parts.push([b, 1]);
  }
  return parts;
}

/** The places of `sequence` (-1: never kept) in a longest strictly increasing subsequence: patience sorting. */
function longestIncreasing(sequence: Int32Array): Uint8Array {
  const tails: number[] = [];
  const previous = new Int32Array(sequence.length).fill(-1);
  for (let i = 0; i < sequence.length; i++) {
    const value = sequence[i];
    if (value < 0) continue;
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (sequence[tails[mid]] < value) low = mid + 1;
      else high = mid;
    }
    if (low > 0) previous[i] = tails[low - 1];
    tails[low] = i;
  }
  const kept = new Uint8Array(sequence.length);
  for (let i = tails.length > 0 ? tails[tails.length - 1] : -1; i >= 0; i = previous[i]) kept[i] = 1;
  return kept;
}

/** Do two stored indexes hold the same values: every column, order, block and figure (typed or not)? */
export function sameIndex(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const isList = (v: unknown): v is ArrayLike<unknown> => Array.isArray(v) || v instanceof Int32Array;
  if (isList(a) || isList(b)) {
    if (!isList(a) || !isList(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameIndex(a[i], b[i])) return false;
    return true;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const keys = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const other = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (keys.length !== other.length) return false;
  return keys.every((k) => sameIndex((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The replaced entries gone (places in `base`) and the new entries added (places in `next`): both in id order. */
function entryChanges(baseIds: ArrayLike<number>, ids: ArrayLike<number>) {
  const removed: number[] = [];
  const added: number[] = [];
  let b = 0;
  for (let e = 0; e < ids.length; e++) {
    while (b < baseIds.length && baseIds[b] < ids[e]) removed.push(b++);
    if (b < baseIds.length && baseIds[b] === ids[e]) b++;
    else added.push(e);
  }
  while (b < baseIds.length) removed.push(b++);
  return { removed, added };
}

/** Per column, the new entries whose value is not the one carried (`carriedNow`), with their values. */
function changedColumns(next: OfferIndexData, carriedNow: Record<string, ArrayLike<unknown>>, size: number) {
  const columns: Record<string, ColumnChanges> = {};
  for (const [name, column] of Object.entries(entryColumns(next))) {
    const values = column();
    if (values === undefined) continue;
    const old = carriedNow[name];
    const changes: ColumnChanges = [[], []];
    for (let e = 0; e < size; e++) {
      if (old?.[e] === values[e]) continue;
      changes[0].push(e);
      changes[1].push(values[e]);
    }
    if (changes[0].length > 0) columns[name] = changes;
  }
  return columns;
}

/** Per order, the entries outside a longest subsequence the replaced and new orders share, with their places. */
function movedEntries(base: OfferIndexData, next: OfferIndexData, from: Int32Array, size: number) {
  const to = inverse(from, base.ids.length);
  const orders: IndexDeltaData['orders'] = {};
  for (const [mode, order] of Object.entries(next.orders)) {
    if (!order) continue;
    // Each new entry's place in the replaced order (-1: added, or an order the base has not).
    const rank = new Int32Array(size).fill(-1);
    const old = base.orders[mode] ?? [];
    for (let place = 0; place < old.length; place++) {
      const e = to[old[place]];
      if (e >= 0) rank[e] = place;
    }
    const kept = longestIncreasing(Int32Array.from(order, (e) => rank[e]));
    const places: number[] = [];
    const entries: number[] = [];
    for (let place = 0; place < size; place++)
      if (!kept[place]) {
        places.push(place);
        entries.push(order[place]);
      }
    orders[mode] = [places, entries];
  }
  return orders;
}

/** The delta of `next` against `base` (of version `baseVersion`); undefined unless applying it gives `next` exactly. */
export function indexDelta(
  base: OfferIndexData,
  baseVersion: string,
  next: OfferIndexData,
): IndexDeltaData | undefined {
  if (base.family !== next.family) return undefined;
  const size = next.ids.length;
  const { removed, added } = entryChanges(base.ids, next.ids);
  const from = carriedEntries(base.ids.length, size, removed, added);
  const blocks = blockRuns(base.blocks, next.blocks);
  const blockOf = new Int32Array(base.blocks.length).fill(-1);
  const placeOf = new Map(next.blocks.map((hash, i) => [hash, i]));
  base.blocks.forEach((hash, i) => {
    blockOf[i] = placeOf.get(hash) ?? -1;
  });
  // Each new block's entries in slot order.
  const placed = newBlocks(blocks);
  const memberOf = new Map(placed.map((place, k) => [place, k]));
  const members: number[][] = placed.map(() => []);
  for (let e = 0; e < size; e++) {
    const k = memberOf.get(next.block[e]);
    if (k !== undefined) members[k][next.slot[e]] = e;
  }
  // Every column carried as a list, to be compared with the new index's; the figures unpacked.
  const carriedNow: Record<string, ArrayLike<unknown>> = Object.fromEntries(
    Object.entries(finished(carriedColumns(base, { size, removed, added, members }, from, blockOf, placed))).map(
      ([name, column]) => [name, column.values],
    ),
  );
  const baseFigures = base.figures?.stats;
  if (baseFigures) carriedNow.figures = Array.from(from, (b) => (b < 0 ? undefined : baseFigures.at(b)));
  const delta: IndexDeltaData = {
    kind: 'offers-delta',
    family: next.family,
    base: baseVersion,
    size,
    removed,
    added,
    blocks,
    members,
    columns: changedColumns(next, carriedNow, size),
    orders: movedEntries(base, next, from, size),
    figuresAsOf: next.figures?.as_of ?? null,
  };
  return sameIndex(applyDelta(base, delta), next) ? delta : undefined;
}
