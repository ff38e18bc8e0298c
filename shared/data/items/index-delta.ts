/**
 * An offer version's index delta (index-delta.ts), gzip'd in segments (`V#<version>#DELTA`), its
 * lists of entries as differences (most ascend: small numbers compress well); each changed value
 * checked as its column's are (`ENTRY_VALUES`).
 */
import * as z from 'zod/mini';
import { CorruptDataError, MissingItemError } from '../../platform/errors';
import { finished, type Steps } from '../../platform/steps';
import type { IndexData, OfferIndexData } from '../family-index';
import { applyDeltaSteps, type IndexDeltaData } from '../index-delta';
import { indexDeltaKey, OFFER_FAMILIES } from '../keys';
import { type Item, joinedBody, parsed, segmented } from './content';
import { checkIndex, ENTRY_VALUES } from './index-segment';

/** A list as differences from the value before (the first as it is). */
const differences = (list: readonly number[]): number[] => list.map((v, i) => (i === 0 ? v : v - list[i - 1]));

/** The lists of a delta, each through `f`: removed, added, each column's entries, each order's places, each block's members. */
function mapLists(delta: IndexDeltaData, f: (list: number[]) => number[]): IndexDeltaData {
  return {
    ...delta,
    removed: f(delta.removed),
    added: f(delta.added),
    members: delta.members.map(f),
    columns: Object.fromEntries(Object.entries(delta.columns).map(([name, [e, values]]) => [name, [f(e), values]])),
    orders: Object.fromEntries(Object.entries(delta.orders).map(([mode, [places, e]]) => [mode, [f(places), e]])),
  };
}

/** The delta stored for `version` against the version it replaced (keys.ts `indexDeltaKey`). */
export const encodeIndexDelta = (version: string, delta: IndexDeltaData): Item[] =>
  segmented(mapLists(delta, differences), (segment) => indexDeltaKey(version, segment));

const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const isEntry = (v: unknown): v is number => isInt(v) && v >= 0;
const ints = z.custom<number[]>((v) => Array.isArray(v) && v.every(isInt), { error: 'not a list of integers' });
const entries = z.custom<number[]>((v) => Array.isArray(v) && v.every(isEntry), { error: 'not a list of entries' });

const DeltaCodec = z.object({
  kind: z.literal('offers-delta'),
  family: z.enum(OFFER_FAMILIES),
  base: z.string().check(z.minLength(1)),
  size: z.number().check(z.int(), z.minimum(0)),
  removed: ints,
  added: ints,
  blocks: z.array(z.union([z.string(), z.tuple([z.number().check(z.int(), z.minimum(0)), z.number().check(z.int())])])),
  members: z.array(ints),
  columns: z.record(z.string(), z.tuple([ints, z.array(z.unknown())])),
  orders: z.record(z.string(), z.tuple([ints, entries])),
  figuresAsOf: z.nullable(z.iso.datetime()),
});

/** A list of entries from its differences; a value below 0 is no entry. */
function sums(list: number[]): number[] {
  const out = list.slice();
  for (let i = 1; i < out.length; i++) out[i] += out[i - 1];
  if (!out.every(isEntry)) throw new CorruptDataError('an index delta names a negative entry');
  return out;
}

/** The delta stored for `version` in `segments` segments, in steps (unzipped, parsed, checked). */
function* decodedIndexDelta(version: string, segments: (Record<string, unknown> | undefined)[]): Steps<IndexDeltaData> {
  const what = `the index delta of version ${version}`;
  segments.forEach((item, i) => {
    if (item === undefined) throw new MissingItemError(`${what}: segment ${i} is missing`);
  });
  const text = joinedBody(segments, what, 'segment');
  yield;
  const stored = parsed(text, what);
  yield;
  const result = DeltaCodec.safeParse(stored);
  if (!result.success) throw new CorruptDataError(`${what} is malformed`);
  const delta = mapLists(result.data as IndexDeltaData, sums);
  for (const [name, [changed, values]] of Object.entries(delta.columns)) {
    const valid = ENTRY_VALUES[name];
    if (!valid || changed.length !== values.length || !values.every(valid))
      throw new CorruptDataError(`${what}: column ${name} is malformed`);
  }
  return delta;
}

/** The delta stored for `version` in `segments` segments. */
export const decodeIndexDelta = (version: string, segments: (Record<string, unknown> | undefined)[]): IndexDeltaData =>
  finished(decodedIndexDelta(version, segments));

/** The index of `version`: its stored delta applied to `base` (of `baseVersion`) and checked, in steps; else corrupt. */
export function* appliedIndexDelta(
  version: string,
  baseVersion: string,
  base: IndexData,
  segments: (Record<string, unknown> | undefined)[],
): Steps<OfferIndexData> {
  const stored = yield* decodedIndexDelta(version, segments);
  if (base.kind !== 'offers' || stored.base !== baseVersion)
    throw new CorruptDataError(
      `the delta of ${version} applies to ${stored.base}, not to the ${base.kind} index of ${baseVersion}`,
    );
  yield;
  let data: OfferIndexData;
  try {
    data = yield* applyDeltaSteps(base, stored);
  } catch (error) {
    throw new CorruptDataError(`the delta of ${version} does not apply: ${(error as Error).message}`);
  }
  yield;
  return checkIndex(data, `the index of version ${version}`, base) as OfferIndexData;
}
