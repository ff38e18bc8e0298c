/**
 * The ordered index of a family version, read once per instance and kept (docs/adr/0009). A
 * version never changes once published, so a kept index never goes stale: the bound only keeps
 * memory in check (the served version of each family, and a few pinned ones: least recently used
 * leave first). The segments are read in parallel; concurrent requests for one version share the
 * read.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { indexOf, type FamilyIndex } from '../domain/family-index';
import { indexSegmentKey } from '../keys';
import { decodeIndex } from './stored-items';

export class IndexStore {
  private readonly kept = new Map<string, Promise<FamilyIndex>>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** How many family versions an instance keeps (each family's served one, and pinned ones). */
    private readonly maxVersions = 16,
  ) {}

  /** The index of `version`, stored in `segments` segments. */
  async load(version: string, segments: number): Promise<FamilyIndex> {
    const found = this.kept.get(version);
    if (found) {
      this.kept.delete(version);
      this.kept.set(version, found);
      return found;
    }
    const loading = this.read(version, segments);
    this.kept.set(version, loading);
    loading.catch(() => {
      // A failed read is never kept: the next request tries again.
      if (this.kept.get(version) === loading) this.kept.delete(version);
    });
    while (this.kept.size > this.maxVersions) this.kept.delete(this.kept.keys().next().value!);
    return loading;
  }

  private async read(version: string, segments: number): Promise<FamilyIndex> {
    const get = (segment: number, consistent: boolean) =>
      this.client
        .send(new GetCommand({ TableName: this.tableName, Key: indexSegmentKey(version, segment), ConsistentRead: consistent }))
        .then((out) => out.Item);
    let items = await Promise.all(Array.from({ length: segments }, (_, i) => get(i, false)));
    // Written before the pointer named them, but an eventually consistent read may not see them yet.
    if (items.some((item) => item === undefined)) items = await Promise.all(items.map((item, i) => item ?? get(i, true)));
    return indexOf(version, decodeIndex(version, items));
  }
}
