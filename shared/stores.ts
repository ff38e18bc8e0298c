/** The read stores of the served snapshot, built once per process from the configuration. */
import { config } from './config';
import { documentClient } from './dynamodb';
import { SnapshotStore } from './repositories/snapshot-store';
import { ViewStore } from './repositories/view-store';

export interface Stores {
  snapshot: SnapshotStore;
  views: ViewStore;
}

let built: Stores | undefined;

export function stores(): Stores {
  if (!built) {
    const { tableName, snapshotCacheMs } = config();
    built = { snapshot: new SnapshotStore(documentClient(), tableName, snapshotCacheMs), views: new ViewStore(documentClient(), tableName) };
  }
  return built;
}

export const resetStores = () => {
  built = undefined;
};
