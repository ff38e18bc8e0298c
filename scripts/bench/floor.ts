/**
 * The floor of a request: the raw DynamoDB read (one Query or GetItem; for a currency detail, the
 * reads of its record and its three offer lists, in parallel) that returns exactly the items of
 * the request's answer, without the service around it: no quota, no view size, no middleware.
 * The latency model's floor of an authenticated request adds one raw conditional counter write.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { QUOTA_ATTRIBUTES, quotaKey, type Key, type PositionIndex } from '../../shared/keys';
import type { ItemFilter, StoredItem, ViewStore } from '../../shared/repositories/view-store';

export type FloorSpec =
  | { read: 'get'; key: Key }
  | { read: 'range'; partition: string; index: PositionIndex; from: number; to: number; filter?: ItemFilter }
  | { read: 'partition'; pk: string; from: string; to: string }
  | { read: 'parallel'; reads: FloorSpec[] };

export async function runFloor(views: ViewStore, spec: FloorSpec): Promise<StoredItem[]> {
  switch (spec.read) {
    case 'get': {
      const item = await views.getItem(spec.key);
      return item ? [item] : [];
    }
    case 'range':
      return views.range(spec.partition, spec.index, spec.from, spec.to, spec.filter);
    case 'partition':
      return views.partitionRange(spec.pk, spec.from, spec.to);
    case 'parallel':
      return (await Promise.all(spec.reads.map((read) => runFloor(views, read)))).flat();
  }
}

/** The raw conditional counter write of an authenticated request: one atomic ADD under a limit. */
export async function runCounterFloor(client: DynamoDBDocumentClient, tableName: string, keyId: string, month: string): Promise<void> {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: quotaKey(keyId, month),
      UpdateExpression: 'ADD #count :one',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': QUOTA_ATTRIBUTES.monthCount },
      ExpressionAttributeValues: { ':one': 1, ':limit': 1_000_000_000 },
    }),
  );
}

/** A short description for the report: `Query GSI1 [5000, 5050)`. */
export function describeFloor(spec: FloorSpec | undefined): string {
  if (!spec) return 'none (no read)';
  switch (spec.read) {
    case 'get':
      return 'GetItem';
    case 'range':
      return `Query ${spec.index} [${spec.from}, ${spec.to})${spec.filter ? ' + filter' : ''}`;
    case 'partition':
      return `Query PK, SK ${spec.from.split('#')[0]} chunks`;
    case 'parallel':
      return `${spec.reads.map(describeFloor).join(' ∥ ')}`;
  }
}
