/** The read stores of the served data, built by each function's composition root. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { blockCache, DocumentStore } from './document-store';
import { HistoryStore } from './history-store';
import { IndexStore, indexBudget } from './index-store';
import { VerifiedBlocks } from './items/document-block';
import { PointerStore } from './pointer-store';
import { SnapshotStore } from './snapshot-store';

export interface Stores {
  /** The pointer item and the refresh times, as stored (the status reads them uncached). */
  pointer: PointerStore;
  snapshot: SnapshotStore;
  indexes: IndexStore;
  documents: DocumentStore;
  history: HistoryStore;
}

export interface StoreOptions {
  tableName: string;
  snapshotCacheMs: number;
  /** Bound of the instance's cache of document blocks, in MB (0: no cache; the indexes are always kept). */
  readCacheMb: number;
  /** The function's configured memory, MB: the index budget is a share of it. */
  memoryMb: number;
}

/**
 * What the stored bytes of the blocks an instance verified may take (items/document-block.ts
 * `VerifiedBlocks`): 1/32 of the function's memory. Kept whether or not blocks are (`readCacheMb`): they are proofs, not answers.
 */
const verifiedBudget = (memoryMb: number): number => Math.floor((memoryMb * 2 ** 20) / 32);

/** `clock` (epoch ms) times the pointer cache. */
export function createStores(client: DynamoDBDocumentClient, options: StoreOptions, clock: () => number): Stores {
  const cache = options.readCacheMb > 0 ? blockCache(options.readCacheMb * 1024 * 1024) : undefined;
  const pointer = new PointerStore(client, options.tableName);
  const indexes = new IndexStore(client, options.tableName, indexBudget(options.memoryMb));
  return {
    pointer,
    // The pointer refreshed ahead builds the new versions' indexes before a request names them.
    snapshot: new SnapshotStore(pointer, options.snapshotCacheMs, clock, (next) => indexes.prepare(next.served)),
    indexes,
    documents: new DocumentStore(
      client,
      options.tableName,
      cache,
      new VerifiedBlocks(verifiedBudget(options.memoryMb)),
    ),
    history: new HistoryStore(client, options.tableName),
  };
}
