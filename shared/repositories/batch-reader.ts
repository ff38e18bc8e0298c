/**
 * BatchGetItem in batches of 100, several in flight, retrying unprocessed keys with exponential
 * backoff and jitter. Used by imports only (the serving functions never batch-read).
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Key } from '../keys';
import { backoffMs } from './batch-writer';

export interface BatchGetOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  projection: string[];
  /** Strongly consistent reads (an import comparing against what it just wrote). */
  consistent?: boolean;
  concurrency?: number;
  maxAttempts?: number;
}

const BATCH_SIZE = 100;

async function readBatch(keys: Key[], options: BatchGetOptions): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const names = Object.fromEntries(options.projection.map((name, i) => [`#a${i}`, name]));
  let pending: Record<string, unknown>[] = keys.map(({ PK, SK }) => ({ PK, SK }));
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= (options.maxAttempts ?? 10)) throw new Error(`BatchGetItem: ${pending.length} key(s) still unprocessed after ${attempt} attempts`);
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
    const out = await options.client.send(
      new BatchGetCommand({
        RequestItems: { [options.tableName]: { Keys: pending, ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names, ConsistentRead: options.consistent } },
      }),
    );
    found.push(...(out.Responses?.[options.tableName] ?? []));
    pending = (out.UnprocessedKeys?.[options.tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
  }
  return found;
}

/** The stored items among `keys` (absent ones are left out), in no particular order. */
export async function getItems(keys: Key[], options: BatchGetOptions): Promise<Record<string, unknown>[]> {
  const batches: Key[][] = [];
  for (let i = 0; i < keys.length; i += BATCH_SIZE) batches.push(keys.slice(i, i + BATCH_SIZE));
  const found: Record<string, unknown>[] = [];
  let next = 0;
  const worker = async () => {
    while (next < batches.length) found.push(...(await readBatch(batches[next++], options)));
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 8, batches.length) }, worker));
  return found;
}
