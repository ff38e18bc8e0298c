/** The serving functions' and the freshness metric's reads of the pointer, and the refresh times beside it (status). */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { PublishedFamilies } from '../platform/data-age';
import { decodePointer, decodeRefreshed, type SnapshotPointer } from './items/pointer';
import { pointerKey, refreshedKey } from './keys';

export class PointerStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The served and retired versions and the served history's sequence number; undefined before the first import. */
  async served(): Promise<Pick<SnapshotPointer, 'families' | 'retired' | 'historySeq'> | undefined> {
    const out = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: pointerKey(),
        ProjectionExpression: '#families, #retired, #historySeq',
        ExpressionAttributeNames: { '#families': 'families', '#retired': 'retired', '#historySeq': 'historySeq' },
      }),
    );
    return out.Item ? decodePointer(out.Item) : undefined;
  }

  /** When an import last carried each dataset family, changed or not. */
  async refreshed(): Promise<Record<string, string>> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: refreshedKey() }));
    return decodeRefreshed(out.Item);
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
    return {
      families: typeof families === 'object' && families !== null ? (families as PublishedFamilies['families']) : {},
    };
  }
}
