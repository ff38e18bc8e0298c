/**
 * The import's reads and writes of the pointer item (`SNAPSHOT` / `CURRENT`, items/pointer.ts):
 * read consistently, published in one conditional put that also ends the lease (import-lease.ts),
 * and the refresh times beside it (`SNAPSHOT` / `REFRESHED`).
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodePointer, type SnapshotPointer } from './items/pointer';
import { pointerKey, refreshedKey } from './keys';

export type { RetiredVersion, SnapshotPointer } from './items/pointer';

export class PointerWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async read(): Promise<SnapshotPointer | undefined> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: pointerKey(), ConsistentRead: true }),
    );
    return out.Item && decodePointer(out.Item);
  }

  /** Publish: one write of the pointer, which also ends the lease; refused if the lease was taken over. */
  async publish(owner: string, pointer: SnapshotPointer): Promise<void> {
    const { lease: _, ...item } = pointer;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...pointerKey(), ...item },
        ConditionExpression: '#lease.#owner = :owner',
        ExpressionAttributeNames: { '#lease': 'lease', '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  }

  /** Record that an import carried these dataset families at `at`, changed or not: one small write. */
  async markRefreshed(families: readonly string[], at: string): Promise<void> {
    if (families.length === 0) return;
    const names = Object.fromEntries(families.map((family, i) => [`#f${i}`, family]));
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: refreshedKey(),
        UpdateExpression: `SET ${Object.keys(names)
          .map((name) => `${name} = :at`)
          .join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  }
}
