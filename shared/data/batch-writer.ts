/**
 * BatchWriteItem in batches of 25, several in flight, retrying unprocessed items with exponential
 * backoff and jitter. Puts and deletes are idempotent, so a retried or re-run batch is harmless.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eachBatch, untilProcessed } from './batches';

type WriteRequest =
  | { PutRequest: { Item: Record<string, unknown> } }
  | { DeleteRequest: { Key: Record<string, unknown> } };

export interface BatchWriteOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  concurrency?: number;
  maxAttempts?: number;
  onProgress?: (done: number, total: number) => void;
  sleep?: (ms: number) => Promise<void>;
  /** Awaited before each batch is sent (an import holds its lease there). */
  beforeBatch?: () => Promise<void>;
}

const BATCH_SIZE = 25;

async function writeAll(requests: WriteRequest[], options: BatchWriteOptions): Promise<void> {
  let done = 0;
  await eachBatch(
    requests,
    BATCH_SIZE,
    options.concurrency ?? 8,
    async (batch) => {
      await untilProcessed(
        batch,
        async (pending) => {
          const out = await options.client.send(
            new BatchWriteCommand({ RequestItems: { [options.tableName]: pending } }),
          );
          return (out.UnprocessedItems?.[options.tableName] as WriteRequest[] | undefined) ?? [];
        },
        {
          describe: (n) => `BatchWriteItem: ${n} item(s)`,
          maxAttempts: options.maxAttempts ?? 10,
          sleep: options.sleep,
        },
      );
      done += batch.length;
      options.onProgress?.(done, requests.length);
    },
    options.beforeBatch,
  );
}

export const putItems = (items: Record<string, unknown>[], options: BatchWriteOptions) =>
  writeAll(
    items.map((Item) => ({ PutRequest: { Item } })),
    options,
  );

export const deleteItems = (keys: Record<string, unknown>[], options: BatchWriteOptions) =>
  writeAll(
    keys.map((Key) => ({ DeleteRequest: { Key } })),
    options,
  );
