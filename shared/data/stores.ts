/** The read stores of the served data, built by each function's composition root. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { blockCache, DocumentStore } from './document-store';
import { HistoryStore } from './history-store';
import { IndexStore, indexBudget } from './index-store';
import { VerifiedBlocks } from './items/document-block';
import { PointerStore } from './pointer-store';
import { SearchStore } from './search-index';
import { type ServedVersions, SnapshotStore } from './snapshot-store';

export interface Stores {
  /** The pointer item and the refresh times, as stored (the status reads them uncached). */
  pointer: PointerStore;
  snapshot: SnapshotStore;
  indexes: IndexStore;
  documents: DocumentStore;
  history: HistoryStore;
  /** What a search reads of the platform and currency versions. */
  search: SearchStore;
}

export interface StoreOptions {
  tableName: string;
  snapshotCacheMs: number;
  /** Bound of the instance's cache of document blocks, in MB (0: no cache; the indexes are always kept). */
  readCacheMb: number;
  /** The function's configured memory, MB: the index budget is a share of it. */
  memoryMb: number;
}

/** `clock` (epoch ms) times the pointer cache. */
export function createStores(client: DynamoDBDocumentClient, options: StoreOptions, clock: () => number): Stores {
  const cache = options.readCacheMb > 0 ? blockCache(options.readCacheMb * 1024 * 1024) : undefined;
  const pointer = new PointerStore(client, options.tableName);
  const indexes = new IndexStore(client, options.tableName, indexBudget(options.memoryMb));
  const search = new SearchStore(client, options.tableName);
  // The pointer refreshed ahead builds the new versions' indexes and reads their search records before a request names them.
  const prepare = async (next: ServedVersions) => {
    await Promise.all([indexes.prepare(next.served), search.prepare(next.served)]);
  };
  return {
    pointer,
    snapshot: new SnapshotStore(pointer, options.snapshotCacheMs, clock, prepare),
    indexes,
    documents: new DocumentStore(
      client,
      options.tableName,
      cache,
      // 1/32 of the memory for the bytes of verified blocks, kept with or without the block cache.
      new VerifiedBlocks(Math.floor((options.memoryMb * 2 ** 20) / 32)),
    ),
    history: new HistoryStore(client, options.tableName),
    search,
  };
}
