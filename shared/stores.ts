/** The read stores of the served data, built by each function's composition root. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HistoryStore } from './repositories/history-store';
import { ReadCache } from './repositories/read-cache';
import { PointerStore } from './repositories/pointer-store';
import { SnapshotStore } from './repositories/snapshot-store';
import { ViewStore } from './repositories/view-store';

export interface Stores {
  snapshot: SnapshotStore;
  views: ViewStore;
  history: HistoryStore;
}

export interface StoreOptions {
  tableName: string;
  snapshotCacheMs: number;
  /** Bound of the instance's cache of published snapshot data, in MB (0: no cache). */
  readCacheMb: number;
}

/** `clock` (epoch ms) times the pointer cache. */
export function createStores(client: DynamoDBDocumentClient, options: StoreOptions, clock: () => number = Date.now): Stores {
  const cache = options.readCacheMb > 0 ? new ReadCache(options.readCacheMb * 1024 * 1024) : undefined;
  return {
    snapshot: new SnapshotStore(new PointerStore(client, options.tableName), options.snapshotCacheMs, clock),
    views: new ViewStore(client, options.tableName, cache),
    history: new HistoryStore(client, options.tableName),
  };
}
