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
 * A version's index is stored whole, its own items (`V#<version>#INDEX`), and an offer version's
 * also as a delta against the version it replaced (`V#<version>#DELTA`, docs/adr/0017-index-deltas.md).
 * The pointer names the content hash of each (items/content.ts `segmentsHash`); every read checks
 * it, as a block is checked against its address: a tampered delta that still decodes is refused
 * (the whole index is read instead), a tampered index is a CorruptDataError (a 500), never a wrong
 * answer. A cold instance reads the whole index.
 *
 * After a publish, an instance that holds the version a delta applies to (the one it served until
 * now, or one it keeps as retired) reads that delta instead and applies it (`indexDeltas` in the
 * accounting). Whenever it holds none, or the delta is missing, does not decode or does not apply,
 * it reads the whole index as a cold instance does: what the delta was checked against, so the
 * answer is the same, at the cost of the load (a warning is logged).
 *
 * The pointer refreshed ahead of its expiry (snapshot-store.ts) prepares the new versions before
 * any request names them (`prepare`): each family this instance serves gets its new index, from a
 * delta or read, kept among the retired ones until a request of the new pointer takes it as served.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULTS } from '../platform/config';
import { recordIndexDelta, recordIndexLoad } from '../platform/dynamo-accounting';
import { logger } from '../platform/logger';
import { finishedBetween } from '../platform/steps';
import { type FamilyIndex, indexOf } from './family-index';
import { checkedSegments } from './items/content';
import { appliedIndexDelta } from './items/index-delta';
import { decodeIndex } from './items/index-segment';
import type { Key, VersionedFamily } from './keys';
import { indexDeltaKey, indexSegmentKey } from './keys';
import { ByteLru } from './lru';

/** Where a version's index delta lies: the version it applies to, its segments and their content hash (the pointer names them). */
export interface IndexDeltaRef {
  base: string;
  segments: number;
  hash: string;
}

/**
 * Where a version's index lies (the pointer names it, items/pointer.ts): the segments of its whole
 * index and their content hash (items/content.ts `segmentsHash`; a pointer without is corrupt), and
 * its delta against the version it replaced, when the import wrote one.
 */
export interface IndexRef {
  segments: number;
  indexHash?: string;
  delta?: IndexDeltaRef;
}

/** A family version as the pointer names it, and where its index lies. */
export interface IndexVersion extends IndexRef {
  version: string;
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

  /** The index of `version`, the one the current pointer names for `family`, stored as `ref` says. */
  served(family: VersionedFamily, version: string, ref: IndexRef): Promise<FamilyIndex> {
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
      return this.build(version, ref, (base) => (base === previous ? replaced : this.retiredKept.peek(base)));
    });
  }

  /**
   * Build, before a request names them, the indexes of the new versions `next` names for the families
   * this instance serves (the pointer refreshed ahead): from its delta when it holds the index that applies to, or
   * read. Kept among the retired indexes, where `served` takes a version from; the served ones and
   * `current` stay as they are until a request of the new pointer names the new version. A failure
   * is left to that request, which reads the index itself.
   */
  async prepare(next: Partial<Record<VersionedFamily, IndexVersion>>): Promise<void> {
    const builds = [...this.current].flatMap(([family, version]) => {
      const to = next[family];
      if (!to || to.version === version || this.servedKept.peek(to.version) || this.retiredKept.peek(to.version))
        return [];
      const held = (base: string) => this.servedKept.peek(base) ?? this.retiredKept.peek(base);
      return [this.retiredKept.get(to.version, () => this.build(to.version, to, held))];
    });
    await Promise.allSettled(builds);
  }

  /** `version`'s index from its delta when `held` gives the index it applies to, else read. */
  private build(
    version: string,
    ref: IndexRef,
    held: (base: string) => Promise<FamilyIndex> | undefined,
  ): Promise<FamilyIndex> {
    const base = ref.delta && held(ref.delta.base);
    return ref.delta && base ? this.applied(version, ref, ref.delta, base) : this.read(version, ref);
  }

  /** The index of `version`, which the current pointer no longer names (`snapshot=`, `since=`). */
  retired(version: string, ref: IndexRef): Promise<FamilyIndex> {
    return this.servedKept.peek(version) ?? this.retiredKept.get(version, () => this.read(version, ref));
  }

  /** What the kept indexes are estimated to hold, bytes (the bench compares it with the budget). */
  get keptBytes(): IndexBudget {
    return { servedBytes: this.servedKept.keptBytes, retiredBytes: this.retiredKept.keptBytes };
  }

  /**
   * The index of `version` as stored, checked against the content hash the pointer names. One that
   * does not check or decode is corrupt (a 500): the import checked it before it published the
   * version, and nothing else holds its index.
   */
  private async read(version: string, ref: IndexRef): Promise<FamilyIndex> {
    recordIndexLoad();
    this.built.loads++;
    const items = checkedSegments(
      await this.segments(ref.segments, (i) => indexSegmentKey(version, i)),
      ref.indexHash,
      `the index of version ${version}`,
    );
    const { data, textLength } = decodeIndex(version, items);
    return indexOf(version, data, textLength);
  }

  /** `version`'s index from its delta against `base` (a kept index); read as stored when that fails. */
  private async applied(
    version: string,
    ref: IndexRef,
    delta: IndexDeltaRef,
    base: Promise<FamilyIndex>,
  ): Promise<FamilyIndex> {
    try {
      const [held, items] = await Promise.all([
        base,
        this.segments(delta.segments, (i) => indexDeltaKey(version, i)).then((read) =>
          checkedSegments(read, delta.hash, `the index delta of version ${version}`),
        ),
      ]);
      const index = await withDelta(version, held, items);
      recordIndexDelta();
      this.built.deltas++;
      return index;
    } catch (error) {
      logger.warn('index delta not applied: the whole index is loaded', {
        version,
        base: delta.base,
        error: error instanceof Error ? error.message : String(error),
      });
      return this.read(version, ref);
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

/**
 * The index of `version` from the delta stored in `items` and the index it applies to, checked like
 * a loaded index; a CorruptDataError when it does not apply. Built in steps with the event loop
 * turning between them: beside a request (the pointer read ahead), it holds that request's reads
 * and answer up for a step at most.
 */
async function withDelta(
  version: string,
  held: Pick<FamilyIndex, 'version' | 'data' | 'textLength' | 'size'>,
  items: (Record<string, unknown> | undefined)[],
): Promise<FamilyIndex> {
  const data = await finishedBetween(appliedIndexDelta(version, held.version, held.data, items));
  // The budget counts the stored JSON's length: estimated from the base's, per entry.
  const textLength = Math.round((held.textLength * data.block.length) / Math.max(1, held.size));
  return indexOf(version, data, textLength);
}
