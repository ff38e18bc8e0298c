/**
 * The index of a family version (family-index.ts), gzip'd in segments (`V#<version>#INDEX` /
 * `000000`…): decoded with a zod/mini codec, then checked whole (`checkIndex`).
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import {
  APY_FIGURES,
  type ColumnEncoding,
  type ColumnEncodings,
  OFFER_COLUMNS,
  type OfferColumn,
} from '../../model/offer-families';
import { PLATFORM_TYPES } from '../../platform/constants';
import { CorruptDataError, MissingItemError } from '../../platform/errors';
import { type IndexData, type OfferColumnData, PACKED_FIGURES, PackedStrings } from '../family-index';
import { CATALOG_FAMILIES, indexSegmentKey, OFFER_FAMILIES } from '../keys';
import { type Item, joinedBody, parsed, segmented } from './content';

/** A version's whole index, its own items (`V#<version>#INDEX`), deleted with it. */
export const encodeIndex = (version: string, index: IndexData): Item[] =>
  segmented(index, (segment) => indexSegmentKey(version, segment));

const isString = (v: unknown): v is string => typeof v === 'string';
const isNullableString = (v: unknown): v is string | null => v === null || typeof v === 'string';
const isEntry = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isId = (v: unknown): v is number => Number.isSafeInteger(v);
const isFlag = (v: unknown): v is 0 | 1 => v === 0 || v === 1;
const isPlatformType = (v: unknown): v is string | null =>
  v === null || (PLATFORM_TYPES as readonly unknown[]).includes(v);
const isPackedFigures = (v: unknown): v is string | null =>
  v === null || (typeof v === 'string' && PACKED_FIGURES.test(v));

/** What a stored value of each column encoding must be (shared/model/offer-families.ts `ColumnEncodings`). */
const VALID: { [E in ColumnEncoding]: (v: unknown) => v is ColumnEncodings[E]['stored'] } = {
  id: isId,
  text: isNullableString,
  platformType: isPlatformType,
  decimalKey: isNullableString,
  flag: isFlag,
};

/** What each value of an offer index's entry columns must be, by column (index-delta.ts checks its changes with them). */
export const ENTRY_VALUES: Readonly<Record<string, (v: unknown) => boolean>> = {
  ...Object.fromEntries(Object.entries(OFFER_COLUMNS).map(([name, { encoding }]) => [name, VALID[encoding]])),
  block: isEntry,
  slot: isEntry,
  hash: isString,
  figures: isPackedFigures,
};

/** A column: an array whose every value passes `valid` (one loop: an offer index has 20,000 entries a column). */
const column = <T>(valid: (v: unknown) => v is T) =>
  z.custom<T[]>((v) => Array.isArray(v) && v.every(valid), { error: 'a column holds a malformed value' });

/** The declared offer columns, each checked by its encoding. */
const offerColumns = Object.fromEntries(
  Object.entries(OFFER_COLUMNS).map(([name, { encoding }]): [string, z.ZodMiniType] => [
    name,
    column(VALID[encoding] as (v: unknown) => v is unknown),
  ]),
) as { [C in OfferColumn]: z.ZodMiniType<OfferColumnData[C]> };

/** @internal The layout of an index with these offer columns and figures: a hash of their names and encodings, in order. */
export const indexLayout = (
  offerColumns: Readonly<Record<string, { encoding: ColumnEncoding }>>,
  figures: readonly string[] = APY_FIGURES,
): string =>
  createHash('sha256')
    .update(
      JSON.stringify({
        catalog: ['slugs', 'order', 'redirects'],
        offers: Object.entries(offerColumns).map(([name, { encoding }]) => [name, encoding]),
        orders: 'orders',
        documents: ['block', 'slot', 'blocks', 'hash'],
        figures: { as_of: 'as_of', stats: [...figures, 'points_30d'] },
      }),
    )
    .digest('hex')
    .slice(0, 12);

/** The stored index's layout, part of every version's identity: a change of columns is a new version (ADR 0024). */
export const INDEX_LAYOUT = indexLayout(OFFER_COLUMNS);

const documentColumns = {
  block: column(isEntry),
  slot: column(isEntry),
  blocks: column(isString),
  hash: column(isString),
};

const IndexCodec = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('catalog'),
    family: z.enum(CATALOG_FAMILIES),
    slugs: column(isString),
    order: column(isEntry),
    redirects: z.record(z.string(), z.string()),
    ...documentColumns,
  }),
  z.object({
    kind: z.literal('offers'),
    family: z.enum(OFFER_FAMILIES),
    ...offerColumns,
    orders: z.record(z.string(), column(isEntry)),
    figures: z.optional(
      z.object({
        as_of: z.iso.datetime(),
        stats: z.pipe(
          column(isPackedFigures),
          z.transform((stats) => PackedStrings.of(stats)),
        ),
      }),
    ),
    ...documentColumns,
  }),
]);

/**
 * Every column one entry a record, an offer index's ids ascending, every order a permutation, every
 * block named; the ids and orders that are `checked`'s own lists (a delta left them) are not walked again.
 */
export function checkIndex(data: IndexData, what: string, checked?: IndexData): IndexData {
  const fail = (why: string): never => {
    throw new CorruptDataError(`${what}: ${why}`);
  };
  const size = data.block.length;
  const columns: Record<string, { length: number }> =
    data.kind === 'catalog'
      ? { slugs: data.slugs, slot: data.slot, hash: data.hash }
      : {
          slot: data.slot,
          hash: data.hash,
          ...Object.fromEntries((Object.keys(OFFER_COLUMNS) as OfferColumn[]).map((name) => [name, data[name]])),
          ...(data.figures ? { figures: data.figures.stats } : {}),
        };
  for (const [name, values] of Object.entries(columns))
    if (values.length !== size) fail(`column ${name} is not ${size} long`);
  const kept = checked?.kind === 'offers' ? checked : undefined;
  if (data.kind === 'offers' && data.ids !== kept?.ids)
    for (let i = 1; i < size; i++) if (!(data.ids[i - 1] < data.ids[i])) fail('the ids are not ascending');
  for (const b of data.block) if (b >= data.blocks.length) fail('an entry names no block');
  const orders = data.kind === 'catalog' ? { order: data.order } : data.orders;
  for (const [name, order] of Object.entries(orders)) {
    if (order?.length !== size) fail(`order ${name} is not ${size} long`);
    if (order === kept?.orders[name]) continue;
    const seen = new Uint8Array(size);
    for (const e of order ?? []) {
      if (e >= size || seen[e]) fail(`order ${name} is not a permutation`);
      seen[e] = 1;
    }
  }
  return data;
}

/** The index of a version, and the length of its JSON (what the instance's budget counts). */
export function decodeIndex(
  version: string,
  segments: (Record<string, unknown> | undefined)[],
): { data: IndexData; textLength: number } {
  const what = `the index of version ${version}`;
  segments.forEach((item, i) => {
    if (item === undefined) throw new MissingItemError(`${what}: segment ${i} is missing`);
  });
  const text = joinedBody(segments, what, 'segment');
  const stored = parsed(text, what);
  const result = IndexCodec.safeParse(stored);
  if (!result.success) throw new CorruptDataError(`${what} is malformed`);
  // In the stored order of the keys: the index reads back as it was written.
  const data = checkIndex(Object.assign({}, stored, result.data), what);
  // Kept as typed 32-bit integers: an instance holds them as long as the version is served.
  if (data.kind === 'offers')
    for (const [mode, order] of Object.entries(data.orders)) if (order) data.orders[mode] = Int32Array.from(order);
  return { data, textLength: text.length };
}
