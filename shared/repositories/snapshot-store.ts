/**
 * The version of the snapshot being served. The pointer item is read at most once per
 * `cacheMs` per process, so a warm request goes straight to its data (one round trip); an import
 * becomes visible within that time. Before any import the version is EMPTY_VERSION, which no item
 * carries, so every list is empty and every detail is 404.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CorruptDataError } from '../errors';
import { pointerKey } from '../keys';

export const EMPTY_VERSION = 'none';

export class SnapshotStore {
  private cached: { version: string; until: number } | undefined;
  private inflight: Promise<string> | undefined;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly cacheMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async version(): Promise<string> {
    if (this.cached && this.cached.until > this.clock()) return this.cached.version;
    // Concurrent requests on a cold cache share one read.
    this.inflight ??= this.readPointer().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async readPointer(): Promise<string> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: pointerKey(), ProjectionExpression: 'version' }));
    const stored = out.Item?.version;
    if (out.Item && (typeof stored !== 'string' || stored === '')) throw new CorruptDataError('the snapshot pointer names no version');
    const version = (stored as string | undefined) ?? EMPTY_VERSION;
    this.cached = { version, until: this.clock() + this.cacheMs };
    return version;
  }
}
