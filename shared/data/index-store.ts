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
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULTS } from '../platform/config';
import { recordIndexLoad } from '../platform/dynamo-accounting';
import { type FamilyIndex, indexOf } from './family-index';
import { decodeIndex } from './items/index-segment';
import type { VersionedFamily } from './keys';
import { indexSegmentKey } from './keys';
import { ByteLru } from './lru';

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

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    readonly budget: IndexBudget = indexBudget(DEFAULTS.memoryMb),
  ) {
    this.servedKept = new ByteLru({ maxBytes: budget.servedBytes, sizeOf });
    this.retiredKept = new ByteLru({ maxBytes: budget.retiredBytes, sizeOf, keepOversized: false });
  }

  /** The index of `version`, the one the current pointer names for `family`, stored in `segments` segments. */
  served(family: VersionedFamily, version: string, segments: number): Promise<FamilyIndex> {
    const previous = this.current.get(family);
    if (previous !== version) {
      this.current.set(family, version);
      const replaced = previous === undefined ? undefined : this.servedKept.take(previous);
      // Still readable for an hour: a client paging it keeps it warm among the retired ones.
      if (replaced) this.retiredKept.get(previous!, () => replaced).catch(() => undefined);
    }
    return this.servedKept.get(version, () => this.retiredKept.take(version) ?? this.read(version, segments));
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
    const get = (segment: number, consistent: boolean) =>
      this.client
        .send(
          new GetCommand({
            TableName: this.tableName,
            Key: indexSegmentKey(version, segment),
            ConsistentRead: consistent,
          }),
        )
        .then((out) => out.Item);
    let items = await Promise.all(Array.from({ length: segments }, (_, i) => get(i, false)));
    // Written before the pointer named them, but an eventually consistent read may not see them yet.
    if (items.some((item) => item === undefined))
      items = await Promise.all(items.map((item, i) => item ?? get(i, true)));
    const { data, textLength } = decodeIndex(version, items);
    return indexOf(version, data, textLength);
  }
}
