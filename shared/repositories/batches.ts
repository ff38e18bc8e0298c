/**
 * What the batch reader and writer share: work split into batches with a few in flight, and a
 * batch sent again, with exponential backoff and jitter, until DynamoDB has processed all of it.
 */

const backoffMs = (attempt: number) => Math.min(5_000, 50 * 2 ** attempt) * (0.5 + Math.random() / 2);

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Run `work` on each batch of `size` items of `items`, at most `concurrency` batches in flight. */
export async function eachBatch<T>(
  items: T[],
  size: number,
  concurrency: number,
  work: (batch: T[]) => Promise<void>,
): Promise<void> {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) await work(batches[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
}

export interface RetryOptions {
  /** What is pending, for the error: `BatchWriteItem: 2 item(s)`. */
  describe: (pending: number) => string;
  maxAttempts: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Send `pending`, then what `send` reports unprocessed, until nothing is left or attempts run out. */
export async function untilProcessed<T>(
  pending: T[],
  send: (pending: T[]) => Promise<T[]>,
  options: RetryOptions,
): Promise<void> {
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= options.maxAttempts)
      throw new Error(`${options.describe(pending.length)} still unprocessed after ${attempt} attempts`);
    if (attempt > 0) await (options.sleep ?? sleepMs)(backoffMs(attempt));
    pending = await send(pending);
  }
}
