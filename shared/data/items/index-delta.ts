/**
 * An offer version's index delta (shared/data/index-delta.ts), stored gzip-compressed in segments
 * (`V#<version>#DELTA` / `000000`…) like the index itself. Decoded with a zod/mini codec: every
 * changed value checked as its column's values are (items/index-segment.ts `ENTRY_VALUES`), every
 * entry and place a non-negative integer; whether it applies is the applier's to say.
 */
import * as z from 'zod/mini';
import { CorruptDataError, MissingItemError } from '../../platform/errors';
import type { IndexDeltaData } from '../index-delta';
import { indexDeltaKey, OFFER_FAMILIES } from '../keys';
import { type Item, joinedBody, parsed } from './content';
import { ENTRY_VALUES, segmented } from './index-segment';

export const encodeIndexDelta = (version: string, delta: IndexDeltaData): Item[] =>
  segmented(delta, (segment) => indexDeltaKey(version, segment));

const isEntry = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const entries = z.custom<number[]>((v) => Array.isArray(v) && v.every(isEntry), { error: 'not a list of entries' });

const DeltaCodec = z.object({
  kind: z.literal('offers-delta'),
  family: z.enum(OFFER_FAMILIES),
  base: z.string().check(z.minLength(1)),
  size: z.number().check(z.int(), z.minimum(0)),
  removed: entries,
  added: entries,
  blocks: z.array(z.union([z.string(), z.tuple([z.number().check(z.int(), z.minimum(0)), z.number().check(z.int())])])),
  columns: z.record(z.string(), z.tuple([entries, z.array(z.unknown())])),
  orders: z.record(z.string(), z.tuple([entries, entries])),
  figuresAsOf: z.nullable(z.iso.datetime()),
});

/** The delta stored for `version` in `segments` segments. */
export function decodeIndexDelta(version: string, segments: (Record<string, unknown> | undefined)[]): IndexDeltaData {
  const what = `the index delta of version ${version}`;
  segments.forEach((item, i) => {
    if (item === undefined) throw new MissingItemError(`${what}: segment ${i} is missing`);
  });
  const result = DeltaCodec.safeParse(parsed(joinedBody(segments, what, 'segment'), what));
  if (!result.success) throw new CorruptDataError(`${what} is malformed`);
  const delta = result.data;
  for (const [name, [changed, values]] of Object.entries(delta.columns)) {
    const valid = ENTRY_VALUES[name];
    if (!valid || changed.length !== values.length || !values.every(valid))
      throw new CorruptDataError(`${what}: column ${name} is malformed`);
  }
  return delta as IndexDeltaData;
}
