/**
 * The ordered index of a family version, read once per instance and kept (docs/adr/0009). A
 * version never changes once published, so a kept index never goes stale: the bound only keeps
 * memory in check. It is a budget of heap, estimated from each index's JSON (about three times its
 * length: 7 MB for BENCH's 20,000 earn offers) and what lists build on it (family-index.ts `heapBytes`); the least recently used versions leave first, so a
 * replaced version that no request names any more leaves as soon as the budget needs its room,
 * while the served version of each family and the ones pinned lists read stay. The segments are
 * read in parallel; concurrent requests for one version share the read.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { type FamilyIndex, indexOf } from './family-index';
import { indexSegmentKey } from './keys';
import { decodeIndex } from './stored-items';

export class IndexStore {
  private readonly kept = new Map<string, { index: Promise<FamilyIndex>; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** The heap the kept indexes may take, estimated (BENCH's seven served families: about 15 MB). */
    private readonly maxBytes = 48 * 1024 * 1024,
  ) {}

  /** The index of `version`, stored in `segments` segments. */
  async load(version: string, segments: number): Promise<FamilyIndex> {
    const found = this.kept.get(version);
    if (found) {
      this.kept.delete(version);
      this.kept.set(version, found);
      return found.index;
    }
    const entry = { index: this.read(version, segments), bytes: 0 };
    this.kept.set(version, entry);
    entry.index.then(
      (index) => {
        if (this.kept.get(version) !== entry) return;
        entry.bytes = index.heapBytes;
        this.bytes += entry.bytes;
        this.evict(version);
      },
      () => {
        // A failed read is never kept: the next request tries again.
        if (this.kept.get(version) === entry) this.kept.delete(version);
      },
    );
    return entry.index;
  }

  /** Least recently used first, never the one just loaded nor one still being read. */
  private evict(loaded: string): void {
    for (const [version, entry] of this.kept) {
      if (this.bytes <= this.maxBytes) return;
      if (version === loaded || entry.bytes === 0) continue;
      this.kept.delete(version);
      this.bytes -= entry.bytes;
    }
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
