/** The read stores of the served data, built by each function's composition root. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { blockCache, DocumentStore } from './document-store';
import { HistoryStore } from './history-store';
import { IndexStore } from './index-store';
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
}

/** `clock` (epoch ms) times the pointer cache. */
export function createStores(
  client: DynamoDBDocumentClient,
  options: StoreOptions,
  clock: () => number = Date.now,
): Stores {
  const cache = options.readCacheMb > 0 ? blockCache(options.readCacheMb * 1024 * 1024) : undefined;
  const pointer = new PointerStore(client, options.tableName);
  return {
    pointer,
    snapshot: new SnapshotStore(pointer, options.snapshotCacheMs, clock),
    indexes: new IndexStore(client, options.tableName),
    documents: new DocumentStore(client, options.tableName, cache),
    history: new HistoryStore(client, options.tableName),
  };
}
