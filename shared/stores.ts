/** The read stores of the served snapshot, built by each function's composition root. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SnapshotStore } from './repositories/snapshot-store';
import { ViewStore } from './repositories/view-store';

export interface Stores {
  snapshot: SnapshotStore;
  views: ViewStore;
}

export function createStores(client: DynamoDBDocumentClient, tableName: string, snapshotCacheMs: number): Stores {
  return { snapshot: new SnapshotStore(client, tableName, snapshotCacheMs), views: new ViewStore(client, tableName) };
}
