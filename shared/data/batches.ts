/**
 * What the batch reader and writer share: work split into batches with a few in flight, and a
 * batch sent again, with exponential backoff and jitter, until DynamoDB has processed all of it.
 */

const backoffMs = (attempt: number) => Math.min(5_000, 50 * 2 ** attempt) * (0.5 + Math.random() / 2);

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Run `work` on each batch of `size` items, `concurrency` in flight, `before` awaited before each.
 * After a failure none starts, and it is thrown once those in flight settled: nothing of a failed
 * import lands after its lease ended.
 */
export async function eachBatch<T>(
  items: T[],
  size: number,
  concurrency: number,
  work: (batch: T[]) => Promise<void>,
  before?: () => Promise<void>,
): Promise<void> {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < batches.length) {
      const batch = batches[next++];
      try {
        await before?.();
        await work(batch);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
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
