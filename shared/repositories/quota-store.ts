/**
 * Per-key usage counters: one item per key and fixed UTC window (minute, calendar month),
 * incremented by a conditional atomic ADD that refuses to go past the limit, so no concurrency can
 * push a key over its budget. Items expire through TTL after their window.
 */
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { CorruptDataError } from '../errors';
import { quotaKey, type QuotaWindow } from '../keys';
import { TTL_ATTRIBUTE } from '../table';

/** One counter's window, as the domain defines it (shared/domain/quota.ts). */
export interface WindowSpec {
  window: QuotaWindow;
  /** `202611221043` or `202611`. */
  id: string;
  /** Unix second at which the next window starts. */
  resetAt: number;
}

/** How long a counter item outlives its window before TTL removes it. */
const GRACE_SECONDS = { MIN: 3_600, MON: 7 * 86_400 } as const;

function countOf(attributes: Record<string, unknown> | undefined): number {
  const count = attributes?.count;
  if (typeof count !== 'number' || !Number.isSafeInteger(count)) throw new CorruptDataError('a quota counter has no count');
  return count;
}

export type CounterResult = { taken: true; count: number } | { taken: false };

/** Errors DynamoDB returns before applying a write: retrying them cannot charge twice. */
const NOT_APPLIED = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);
const RETRIES = [20, 60];

async function retryNotApplied<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= RETRIES.length || !NOT_APPLIED.has((error as Error).name)) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRIES[attempt]));
    }
  }
}

export class QuotaStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Take one unit of the window's budget, or report that it is spent. Other failures throw. */
  async take(keyId: string, spec: WindowSpec, limit: number): Promise<CounterResult> {
    try {
      const update = new UpdateCommand({
        TableName: this.tableName,
        Key: quotaKey(keyId, spec.window, spec.id),
        UpdateExpression: 'ADD #count :one SET #ttl = if_not_exists(#ttl, :ttl)',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':ttl': spec.resetAt + GRACE_SECONDS[spec.window] },
        ReturnValues: 'UPDATED_NEW',
      });
      const out = await retryNotApplied(() => this.client.send(update));
      return { taken: true, count: countOf(out.Attributes) };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException') {
        return { taken: false };
      }
      throw error;
    }
  }

  /** The window's count, read strongly consistent (0 before the window's first unit); takes nothing. */
  async count(keyId: string, spec: WindowSpec): Promise<number> {
    const out = await retryNotApplied(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: quotaKey(keyId, spec.window, spec.id), ConsistentRead: true })),
    );
    return out.Item ? countOf(out.Item) : 0;
  }

  /** Give back a unit taken by a request that another budget refused. */
  async giveBack(keyId: string, spec: WindowSpec): Promise<number> {
    const out = await retryNotApplied(() => this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: quotaKey(keyId, spec.window, spec.id),
        UpdateExpression: 'ADD #count :minus',
        ConditionExpression: 'attribute_exists(#count)',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':minus': -1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    ));
    return countOf(out.Attributes);
  }
}
