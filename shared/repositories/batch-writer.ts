/**
 * BatchWriteItem in batches of 25, several in flight, retrying unprocessed items with exponential
 * backoff and jitter. Puts and deletes are idempotent, so a retried or re-run batch is harmless.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

export interface BatchWriteOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  concurrency?: number;
  maxAttempts?: number;
  onProgress?: (done: number, total: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

const BATCH_SIZE = 25;
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const backoffMs = (attempt: number) => Math.min(5_000, 50 * 2 ** attempt) * (0.5 + Math.random() / 2);

async function writeBatch(requests: WriteRequest[], options: BatchWriteOptions): Promise<void> {
  const sleep = options.sleep ?? defaultSleep;
  const maxAttempts = options.maxAttempts ?? 10;
  let pending = requests;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= maxAttempts) throw new Error(`BatchWriteItem: ${pending.length} item(s) still unprocessed after ${maxAttempts} attempts`);
    if (attempt > 0) await sleep(backoffMs(attempt));
    const out = await options.client.send(new BatchWriteCommand({ RequestItems: { [options.tableName]: pending } }));
    pending = (out.UnprocessedItems?.[options.tableName] as WriteRequest[] | undefined) ?? [];
  }
}

async function writeAll(requests: WriteRequest[], options: BatchWriteOptions): Promise<void> {
  const batches: WriteRequest[][] = [];
  for (let i = 0; i < requests.length; i += BATCH_SIZE) batches.push(requests.slice(i, i + BATCH_SIZE));
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      await writeBatch(batch, options);
      done += batch.length;
      options.onProgress?.(done, requests.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 8, batches.length) }, worker));
}

export const putItems = (items: Record<string, unknown>[], options: BatchWriteOptions) =>
  writeAll(items.map((Item) => ({ PutRequest: { Item } })), options);

export const deleteItems = (keys: Record<string, unknown>[], options: BatchWriteOptions) =>
  writeAll(keys.map((Key) => ({ DeleteRequest: { Key } })), options);
