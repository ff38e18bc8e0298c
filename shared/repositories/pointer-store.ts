/**
 * The publication times of the served families, read from the snapshot pointer for the
 * freshness metric (shared/observability/data-age.ts): one GetItem of the pointer, projected to
 * `families`, the only read the freshness function's role allows.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { pointerKey } from '../keys';
import type { PublishedFamilies } from '../observability/data-age';

export class PointerStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The pointer's `families`; undefined before the first import. */
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
    const families = out.Item.families;
    return { families: typeof families === 'object' && families !== null ? (families as PublishedFamilies['families']) : {} };
  }
}
