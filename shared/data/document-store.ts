/** The documents of a page: the distinct blocks that hold them, in one round trip, kept by content when cached. */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { recordCacheAccess } from '../platform/dynamo-accounting';
import { CorruptDataError } from '../platform/errors';
import { getItems } from './batch-reader';
import type { DocumentRef } from './family-index';
import { type DocumentBlockView, decodeBlock, VerifiedBlocks } from './items/document-block';
import { DOCUMENT_PREFIX, documentBlockKey } from './keys';
import { ByteLru } from './lru';

/** An estimate of what a kept block holds in memory: the length of its JSON (UTF-16, ×2). */
const sizeOf = (block: DocumentBlockView): number => 2 * (JSON.stringify(block)?.length ?? 0) + 64;

/** The instance's cache of blocks within `maxBytes`; hits, misses and bytes go to the request metrics. */
export const blockCache = (maxBytes: number): ByteLru<DocumentBlockView> =>
  new ByteLru({ maxBytes, sizeOf, onAccess: recordCacheAccess });

export class DocumentStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Blocks kept in the instance (none: every read goes to DynamoDB). */
    private readonly cache?: ByteLru<DocumentBlockView>,
    /** The stored bytes of the blocks this instance hashed, so that the same bytes read again are not hashed again. */
    private readonly verified: VerifiedBlocks = new VerifiedBlocks(0),
  ) {}

  /** The documents at `refs`, in that order. */
  async docs(refs: readonly DocumentRef[]): Promise<string[]> {
    if (refs.length === 0) return [];
    const familyOf = new Map(refs.map((r) => [r.block, r.family]));
    const hashes = [...familyOf.keys()];
    const blocks = new Map<string, DocumentBlockView>();
    const { cache } = this;
    if (!cache) {
      for (const [hash, block] of await this.readBlocks(hashes, familyOf)) blocks.set(hash, block);
    } else {
      // The blocks no request holds or reads are read together, in one round trip.
      const missing = hashes.filter((hash) => !cache.has(hash));
      const read = missing.length > 0 ? this.readBlocks(missing, familyOf) : undefined;
      await Promise.all(
        hashes.map((hash) =>
          cache.get(hash, () => read!.then((m) => m.get(hash)!)).then((block) => void blocks.set(hash, block)),
        ),
      );
    }
    return refs.map((r) => blocks.get(r.block)!.doc(r.slot, r.id));
  }

  private async read(hashes: string[], consistent: boolean): Promise<Record<string, unknown>[]> {
    if (hashes.length === 1) {
      const out = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: documentBlockKey(hashes[0]), ConsistentRead: consistent }),
      );
      return out.Item ? [out.Item] : [];
    }
    return getItems(hashes.map(documentBlockKey), {
      client: this.client,
      tableName: this.tableName,
      projection: ['PK', 'z'],
      consistent,
      concurrency: 8,
    });
  }

  private async readBlocks(
    hashes: string[],
    familyOf: ReadonlyMap<string, string>,
  ): Promise<Map<string, DocumentBlockView>> {
    const byHash = new Map<string, Record<string, unknown>>();
    const keep = (items: Record<string, unknown>[]) =>
      items.forEach((item) => byHash.set(String(item.PK).slice(DOCUMENT_PREFIX.length), item));
    keep(await this.read(hashes, false));
    // Written before the pointer named them, but an eventually consistent read may not see them yet.
    const unseen = hashes.filter((hash) => !byHash.has(hash));
    if (unseen.length > 0) keep(await this.read(unseen, true));
    const blocks = new Map<string, DocumentBlockView>();
    for (const hash of hashes) {
      // A block an index names is written before the index is published, and deleted long after.
      if (!byHash.has(hash)) throw new CorruptDataError(`block ${hash} is missing`);
      blocks.set(hash, decodeBlock(hash, familyOf.get(hash)!, byHash.get(hash), this.verified));
    }
    return blocks;
  }
}
