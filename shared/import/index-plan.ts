/**
 * The delta of a new offer version's index against the served version it replaces
 * (docs/adr/0017-index-deltas.md): built against that version's index as stored, and kept only
 * when, stored and read back, it applies to exactly the new index. None for a first version, a
 * catalog family, or a replaced index that cannot be read whole (readers then load the new index
 * whole, as without a delta).
 */
import type { IndexData, OfferIndexData } from '../data/family-index';
import { applyDelta, type IndexDeltaData, indexDelta, sameIndex } from '../data/index-delta';
import { decodeIndexDelta, encodeIndexDelta } from '../data/items/index-delta';
import type { FamilyState } from '../data/items/pointer';
import type { VersionWriter } from '../data/version-writer';
import { CorruptDataError, MissingItemError } from '../platform/errors';

export async function replacedDelta(
  versions: VersionWriter,
  replaced: FamilyState | undefined,
  index: IndexData,
): Promise<IndexDeltaData | undefined> {
  if (index.kind !== 'offers' || !replaced?.version || !replaced.segments) return undefined;
  try {
    const stored = await versions.readIndex(replaced.version, { ...replaced, segments: replaced.segments });
    if (stored.kind !== 'offers') return undefined;
    const delta = indexDelta(stored, replaced.version, index);
    return delta && isStoredDelta(stored, delta, index) ? delta : undefined;
  } catch (error) {
    if (error instanceof CorruptDataError || error instanceof MissingItemError) return undefined;
    throw error;
  }
}

/** Does `delta`, stored and read back, apply to `base` as `index`? */
const isStoredDelta = (base: OfferIndexData, delta: IndexDeltaData, index: IndexData) =>
  sameIndex(applyDelta(base, decodeIndexDelta(delta.base, encodeIndexDelta(delta.base, delta))), index);
