/**
 * The snapshot pointer's `families` and `retired`, read with one GetItem projected to them: by the
 * serving functions for the versions they serve (snapshot-store.ts) and by the freshness metric for
 * the publication times (shared/observability/data-age.ts; the only read its role allows). The
 * pointer's one codec is in stored-items.ts.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { pointerKey } from '../keys';
import type { PublishedFamilies } from '../observability/data-age';
import { decodePointer, type SnapshotPointer } from './stored-items';

export class PointerStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The served and retired versions; undefined before the first import. */
  async served(): Promise<Pick<SnapshotPointer, 'families' | 'retired'> | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: pointerKey(),
        ProjectionExpression: '#families, #retired',
        ExpressionAttributeNames: { '#families': 'families', '#retired': 'retired' },
      }),
    );
    return out.Item ? decodePointer(out.Item) : undefined;
  }

  /** The pointer's `families` for the metric (a malformed pointer counts as none); undefined before the first import. */
  async publishedFamilies(): Promise<PublishedFamilies | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: pointerKey(),
        ProjectionExpression: '#families',
        ExpressionAttributeNames: { '#families': 'families' },
      }),
    );
    if (!out.Item) return undefined;
    const { families } = out.Item;
    return { families: typeof families === 'object' && families !== null ? (families as PublishedFamilies['families']) : {} };
  }
}
