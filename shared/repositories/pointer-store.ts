/**
 * The snapshot pointer's `families` map, read with one GetItem projected to it: by the serving
 * functions for the versions they serve (snapshot-store.ts) and by the freshness metric for the
 * publication times (shared/observability/data-age.ts; the only read its role allows).
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { pointerKey } from '../keys';
import type { PublishedFamilies } from '../observability/data-age';

export class PointerStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The `families` attribute as stored, unchecked; undefined before the first import. */
  async storedFamilies(): Promise<{ families: unknown } | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: pointerKey(),
        ProjectionExpression: '#families',
        ExpressionAttributeNames: { '#families': 'families' },
      }),
    );
    return out.Item ? { families: out.Item.families } : undefined;
  }

  /** The pointer's `families` for the metric (a malformed map counts as none); undefined before the first import. */
  async publishedFamilies(): Promise<PublishedFamilies | undefined> {
    const stored = await this.storedFamilies();
    if (!stored) return undefined;
    const { families } = stored;
    return { families: typeof families === 'object' && families !== null ? (families as PublishedFamilies['families']) : {} };
  }
}
