/**
 * The ordered index of a family version, read once per instance and kept (docs/adr/0009). A
 * version never changes once published, so a kept index never goes stale: the bound only keeps
 * memory in check. It is a budget of heap, estimated from each index's JSON (a multiple of its
 * length, family-index.ts `HEAP_PER_CHARACTER`) and what lists build on it (family-index.ts `heapBytes`), kept by the
 * instance's one byte-bounded LRU (lru.ts); the least recently used versions leave first, so a
 * replaced version that no request names any more leaves as soon as the budget needs its room,
 * while the served version of each family and the ones pinned lists read stay. The segments are
 * read in parallel; concurrent requests for one version share the read.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { type FamilyIndex, indexOf } from './family-index';
import { decodeIndex } from './items/index-segment';
import { indexSegmentKey } from './keys';
import { ByteLru } from './lru';

export class IndexStore {
  private readonly kept: ByteLru<FamilyIndex>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** The heap the kept indexes may take, estimated (what the served families take: docs/performance.md, "Index loads"). */
    maxBytes = 48 * 1024 * 1024,
  ) {
    this.kept = new ByteLru({ maxBytes, sizeOf: (index) => index.heapBytes });
  }

  /** The index of `version`, stored in `segments` segments. */
  load(version: string, segments: number): Promise<FamilyIndex> {
    return this.kept.get(version, () => this.read(version, segments));
  }

  private async read(version: string, segments: number): Promise<FamilyIndex> {
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
