/**
 * BatchGetItem in batches of 100, several in flight, retrying unprocessed keys with exponential
 * backoff and jitter: the import's history candidates, a page's document blocks, keys, subscriptions.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eachBatch, untilProcessed } from './batches';
import type { Key } from './keys';

export interface BatchGetOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The attributes read (all when absent). */
  projection?: string[];
  /** Strongly consistent reads (an import comparing against what it just wrote). */
  consistent?: boolean;
  concurrency?: number;
  maxAttempts?: number;
}

const BATCH_SIZE = 100;

/** The stored items among `keys` (absent ones are left out), in no particular order. */
export async function getItems(keys: Key[], options: BatchGetOptions): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const names = options.projection && Object.fromEntries(options.projection.map((name, i) => [`#a${i}`, name]));
  const keysOnly: Record<string, unknown>[] = keys.map(({ PK, SK }) => ({ PK, SK }));
  await eachBatch(keysOnly, BATCH_SIZE, options.concurrency ?? 8, (batch) =>
    untilProcessed(
      batch,
      async (pending) => {
        const out = await options.client.send(
          new BatchGetCommand({
            RequestItems: {
              [options.tableName]: {
                Keys: pending,
                ProjectionExpression: names && Object.keys(names).join(', '),
                ExpressionAttributeNames: names,
                ConsistentRead: options.consistent,
              },
            },
          }),
        );
        found.push(...(out.Responses?.[options.tableName] ?? []));
        return (out.UnprocessedKeys?.[options.tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      },
      { describe: (n) => `BatchGetItem: ${n} key(s)`, maxAttempts: options.maxAttempts ?? 10 },
    ),
  );
  return found;
}

/** Items that never change under their key, by partition key: eventually consistent, then strongly the unseen. */
export async function getByContent(
  keys: Key[],
  options: BatchGetOptions,
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const keep = (items: Record<string, unknown>[]) => items.forEach((item) => found.set(String(item.PK), item));
  keep(await getItems(keys, options));
  const unseen = keys.filter((key) => !found.has(key.PK));
  if (unseen.length > 0) keep(await getItems(unseen, { ...options, consistent: true }));
  return found;
}
