/**
 * The ordered index of a family version, read once per instance and kept (docs/adr/0009). A
 * version never changes once published, so a kept index never goes stale: the bounds only keep
 * memory in check. Each is a budget of heap, estimated from each index's JSON (a multiple of its
 * length, family-index.ts `HEAP_PER_CHARACTER`) and what lists build on it (family-index.ts
 * `heapBytes`), a share of the function's configured memory (`indexBudget`).
 *
 * Two caches, so that a retired version can never push out a served one:
 * - the served versions: the one the current pointer names for each family this instance answers,
 *   kept within the larger budget. When a request sees a family's new version, the one it replaced
 *   moves to the retired cache at once, so this cache holds one version per family and evicts
 *   (least recently used first) only when the served indexes themselves exceed the budget;
 * - the retired versions (`snapshot=` and `since=` naming a replaced version, readable for an hour
 *   after it was replaced): their own smaller budget, least recently used first. A retired index
 *   larger than that budget is loaded for its request and not kept, so every request naming it
 *   pays a full load (all its segments' read units and their decoding), and still gets its answer.
 *
 * The segments are read in parallel; concurrent requests for one version share the read. Every
 * read is counted in the request's accounting (`indexLoads`).
 *
 * After a publish, an instance that holds the index of the version the new one replaced reads the
 * new one's delta instead, when the import wrote one (docs/adr/0017-index-deltas.md), and applies
 * it (`indexDeltas` in the accounting). Whenever it does not hold that version, or the delta is
 * missing, does not decode or does not apply, it loads the whole index as a cold instance does:
 * the whole index is always stored, and is what the delta was checked against, so the answer is
 * the same, at the cost of the load (a warning is logged).
 *
 * The pointer refreshed ahead of its expiry (snapshot-store.ts) prepares the new versions before
 * any request names them (`prepare`): each family this instance serves gets its new index, from the
 * delta or loaded, kept among the retired ones until a request of the new pointer takes it as served.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULTS } from '../platform/config';
import { recordIndexDelta, recordIndexLoad } from '../platform/dynamo-accounting';
import { logger } from '../platform/logger';
import { type FamilyIndex, indexOf, type OfferIndexData } from './family-index';
import { applyDelta } from './index-delta';
import { decodeIndexDelta } from './items/index-delta';
import { checkIndex, decodeIndex } from './items/index-segment';
import type { Key, VersionedFamily } from './keys';
import { indexDeltaKey, indexSegmentKey } from './keys';
import { ByteLru } from './lru';

/** Where a version's index delta lies: the version it applies to and its segments (the pointer names them). */
export interface IndexDeltaRef {
  base: string;
  segments: number;
}

/** A family version as the pointer names it: where its index lies, and its delta when the import wrote one. */
export interface IndexVersion {
  version: string;
  segments: number;
  delta?: IndexDeltaRef;
}

/** What an instance's kept indexes may take in the heap, estimated (family-index.ts `heapBytes`). */
export interface IndexBudget {
  servedBytes: number;
  retiredBytes: number;
}

/**
 * The index budgets of a function with `memoryMb` of configured memory: a quarter of it for the
 * served indexes, an eighth for retired ones. What else the function holds sets the shares: the
 * Node runtime and the code, the block cache (`READ_CACHE_MB`), the largest answer being built (a
 * currency detail: its JSON, its envelope and its gzip) and one index being decoded next to the
 * kept ones (its segments' text and the parse, about twice its kept heap). The measured figures and
 * the reasoning: docs/performance.md, "Index memory".
 */
export const indexBudget = (memoryMb: number): IndexBudget => ({
  servedBytes: Math.floor((memoryMb * 2 ** 20) / 4),
  retiredBytes: Math.floor((memoryMb * 2 ** 20) / 8),
});

const sizeOf = (index: FamilyIndex) => index.heapBytes;

export class IndexStore {
  private readonly servedKept: ByteLru<FamilyIndex>;
  private readonly retiredKept: ByteLru<FamilyIndex>;
  /** The version each family's served requests last named. */
  private readonly current = new Map<VersionedFamily, string>();
  /** The indexes this instance loaded whole and built from a delta, whatever request (or none) it was for. */
  readonly built = { loads: 0, deltas: 0 };

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    readonly budget: IndexBudget = indexBudget(DEFAULTS.memoryMb),
  ) {
    this.servedKept = new ByteLru({ maxBytes: budget.servedBytes, sizeOf });
    this.retiredKept = new ByteLru({ maxBytes: budget.retiredBytes, sizeOf, keepOversized: false });
  }

  /**
   * The index of `version`, the one the current pointer names for `family`, stored in `segments`
   * segments, and as `delta` against the version it replaced when the import wrote one.
   */
  served(family: VersionedFamily, version: string, segments: number, delta?: IndexDeltaRef): Promise<FamilyIndex> {
    const previous = this.current.get(family);
    let replaced: Promise<FamilyIndex> | undefined;
    if (previous !== version) {
      this.current.set(family, version);
      replaced = previous === undefined ? undefined : this.servedKept.take(previous);
      // Still readable for an hour: a client paging it keeps it warm among the retired ones.
      if (replaced) this.retiredKept.get(previous!, () => replaced!).catch(() => undefined);
    }
    return this.servedKept.get(version, () => {
      const kept = this.retiredKept.take(version);
      if (kept) return kept;
      // The delta's base: the index this instance served until now, or one it keeps as retired.
      const base = delta && (delta.base === previous ? replaced : this.retiredKept.peek(delta.base));
      return base ? this.applied(version, segments, delta!, base) : this.read(version, segments);
    });
  }

  /**
   * Build, before a request names them, the indexes of the new versions `next` names for the families
   * this instance serves (the pointer refreshed ahead): from the delta against the index it serves,
   * or loaded. Kept among the retired indexes, where `served` takes a version from; the served ones
   * and `current` stay as they are until a request of the new pointer names the new version. A
   * failure is left to that request, which reads the index itself.
   */
  async prepare(next: Partial<Record<VersionedFamily, IndexVersion>>): Promise<void> {
    const builds = [...this.current].flatMap(([family, version]) => {
      const to = next[family];
      if (!to || to.version === version || this.servedKept.peek(to.version) || this.retiredKept.peek(to.version))
        return [];
      const base = to.delta && (this.servedKept.peek(to.delta.base) ?? this.retiredKept.peek(to.delta.base));
      return [
        this.retiredKept.get(to.version, () =>
          base ? this.applied(to.version, to.segments, to.delta!, base) : this.read(to.version, to.segments),
        ),
      ];
    });
    await Promise.allSettled(builds);
  }

  /** The index of `version`, which the current pointer no longer names (`snapshot=`, `since=`). */
  retired(version: string, segments: number): Promise<FamilyIndex> {
    return this.servedKept.peek(version) ?? this.retiredKept.get(version, () => this.read(version, segments));
  }

  /** What the kept indexes are estimated to hold, bytes (the bench compares it with the budget). */
  get keptBytes(): IndexBudget {
    return { servedBytes: this.servedKept.keptBytes, retiredBytes: this.retiredKept.keptBytes };
  }

  private async read(version: string, segments: number): Promise<FamilyIndex> {
    recordIndexLoad();
    this.built.loads++;
    const { data, textLength } = decodeIndex(
      version,
      await this.segments(segments, (i) => indexSegmentKey(version, i)),
    );
    return indexOf(version, data, textLength);
  }

  /** `version`'s index from its delta against `base` (a kept index); its whole index when that fails. */
  private async applied(
    version: string,
    segments: number,
    delta: IndexDeltaRef,
    base: Promise<FamilyIndex>,
  ): Promise<FamilyIndex> {
    try {
      const [held, items] = await Promise.all([base, this.segments(delta.segments, (i) => indexDeltaKey(version, i))]);
      const stored = decodeIndexDelta(version, items);
      if (held.data.kind !== 'offers' || stored.base !== held.version)
        throw new Error(`the delta applies to ${stored.base}, not to the ${held.data.kind} index of ${held.version}`);
      const data = checkIndex(
        applyDelta(held.data, stored),
        `the index of version ${version}`,
        held.data,
      ) as OfferIndexData;
      recordIndexDelta();
      this.built.deltas++;
      // The budget counts the stored JSON's length: estimated from the base's, per entry.
      const textLength = Math.round((held.textLength * data.block.length) / Math.max(1, held.size));
      return indexOf(version, data, textLength);
    } catch (error) {
      logger.warn('index delta not applied: the whole index is loaded', {
        version,
        base: delta.base,
        error: error instanceof Error ? error.message : String(error),
      });
      return this.read(version, segments);
    }
  }

  /** Items by key, in parallel; those an eventually consistent read did not see yet, read again consistently. */
  private async segments(
    count: number,
    key: (segment: number) => Key,
  ): Promise<(Record<string, unknown> | undefined)[]> {
    const get = (segment: number, consistent: boolean) =>
      this.client
        .send(new GetCommand({ TableName: this.tableName, Key: key(segment), ConsistentRead: consistent }))
        .then((out) => out.Item);
    const items = await Promise.all(Array.from({ length: count }, (_, i) => get(i, false)));
    // Written before the pointer named them, but an eventually consistent read may not see them yet.
    if (items.every((item) => item !== undefined)) return items;
    return Promise.all(items.map((item, i) => item ?? get(i, true)));
  }
}
