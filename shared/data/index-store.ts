/**
 * The ordered index of a family version, read once per instance and kept (docs/adr/0009), served
 * and retired versions in separate budgets so a retired one never pushes out a served one. An
 * instance holding the version a delta applies to builds the new index from it (ADR 0017), else or
 * when it fails reads it whole; every read is checked against the hash the pointer names.
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
import type { FamilyState } from './items/pointer';
import type { Key, VersionedFamily } from './keys';
import { indexDeltaKey, indexSegmentKey } from './keys';
import { ByteLru } from './lru';

/** Where a version's index lies, as the pointer names it (items/pointer.ts). */
export type IndexRef = Pick<FamilyState, 'indexHash' | 'delta'> & { segments: number };
export type IndexDeltaRef = NonNullable<FamilyState['delta']>;

/**
 * What an instance's kept indexes may take in the heap (family-index.ts `heapBytes`), of `memoryMb`:
 * a quarter for the served, an eighth for retired ones (why: docs/performance.md, "Index memory").
 */
export const indexBudget = (memoryMb: number) => ({
  servedBytes: Math.floor((memoryMb * 2 ** 20) / 4),
  retiredBytes: Math.floor((memoryMb * 2 ** 20) / 8),
});

export type IndexBudget = ReturnType<typeof indexBudget>;
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
   * Build the indexes of the new versions `next` names for the families this instance serves, before
   * a request names them (ADR 0019), among the retired ones, where `served` takes them from; a
   * failure is left to that request.
   */
  async prepare(next: Partial<Record<VersionedFamily, IndexRef & { version: string }>>): Promise<void> {
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

  /** The whole index of `version`; one that does not check or decode is corrupt (a 500). */
  private async read(version: string, ref: IndexRef): Promise<FamilyIndex> {
    recordIndexLoad();
    this.built.loads++;
    const { data, textLength } = await readIndex(this.client, this.tableName, version, ref);
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
        readSegments(this.client, this.tableName, delta.segments, (i) => indexDeltaKey(version, i)).then((read) =>
          checkedSegments(read, delta.hash, `the index delta of version ${version}`),
        ),
      ]);
      // In steps, the event loop turning between them: a request beside it waits for a step at most.
      const data = await finishedBetween(appliedIndexDelta(version, held.version, held.data, items));
      recordIndexDelta();
      this.built.deltas++;
      // The budget counts the stored JSON's length: estimated from the base's, per entry.
      return indexOf(version, data, Math.round((held.textLength * data.block.length) / Math.max(1, held.size)));
    } catch (error) {
      logger.warn('index delta not applied: the whole index is loaded', {
        version,
        base: delta.base,
        error: error instanceof Error ? error.message : String(error),
      });
      return this.read(version, ref);
    }
  }
}

/** Segments by key, in parallel; any an eventually consistent read did not see yet, read again consistently. */
async function readSegments(
  client: DynamoDBDocumentClient,
  tableName: string,
  count: number,
  key: (segment: number) => Key,
): Promise<(Record<string, unknown> | undefined)[]> {
  const get = (segment: number, consistent: boolean) =>
    client
      .send(new GetCommand({ TableName: tableName, Key: key(segment), ConsistentRead: consistent }))
      .then((out) => out.Item);
  const items = await Promise.all(Array.from({ length: count }, (_, i) => get(i, false)));
  return items.every((item) => item !== undefined) ? items : Promise.all(items.map((item, i) => item ?? get(i, true)));
}

/** The index of `version` as stored, checked against the content hash the pointer names. */
export async function readIndex(client: DynamoDBDocumentClient, tableName: string, version: string, ref: IndexRef) {
  const what = `the index of version ${version}`;
  const items = await readSegments(client, tableName, ref.segments, (i) => indexSegmentKey(version, i));
  return decodeIndex(version, checkedSegments(items, ref.indexHash, what));
}
