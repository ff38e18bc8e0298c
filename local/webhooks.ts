/**
 * Webhooks on the local stack (CONTRACT §14 "Locally"): the pointer of its table read every
 * `intervalMs`, each publish it shows matched (shared/webhooks/matching.ts) and its deliveries sent
 * by the deployed sending function's handler on an in-process queue. Any publish into the table
 * counts, an `npm run import -- … --endpoint …` from another process too.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SnapshotPointer } from '../shared/data/items/pointer';
import { PointerStore } from '../shared/data/pointer-store';
import { createStores } from '../shared/data/stores';
import { WebhookStore } from '../shared/data/webhook-store';
import { logger } from '../shared/platform/logger';
import { handleDelivery } from '../shared/webhooks/delivery';
import { matchPublished } from '../shared/webhooks/matching';
import { familiesPublished } from '../shared/webhooks/published';
import type { Lookup } from '../shared/webhooks/target';
import { InProcessQueue } from './webhook-queue';

export interface LocalWebhooksOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: () => Date;
  /** How often the pointer is read and the queue drained (0: only when `poll` is called, as tests do). */
  intervalMs: number;
  lookup?: Lookup;
  timeoutMs?: number;
}

export interface LocalWebhooks {
  webhooks: WebhookStore;
  queue: InProcessQueue;
  /** Matches what was published since the last poll, then sends what is due; resolves when both are done. */
  poll: () => Promise<void>;
  stop: () => Promise<void>;
}

export async function startLocalWebhooks(options: LocalWebhooksOptions): Promise<LocalWebhooks> {
  const { client, tableName, clock } = options;
  const pointer = new PointerStore(client, tableName);
  const stores = createStores(client, { tableName, snapshotCacheMs: 0, readCacheMb: 0, memoryMb: 1024 }, () =>
    clock().getTime(),
  );
  const webhooks = new WebhookStore(client, tableName);
  const queue = new InProcessQueue(clock);
  const send = { webhooks, queue, clock, rule: 'local' as const, lookup: options.lookup, timeoutMs: options.timeoutMs };
  // A subscription starts from what is served when it is made: what was published before the stack started is no event.
  let seen: SnapshotPointer['families'] | undefined = (await pointer.served())?.families;
  let sending: Promise<unknown> = Promise.resolve();

  const match = async () => {
    const now = (await pointer.served())?.families;
    const published = familiesPublished(seen, now);
    seen = now;
    for (const family of published) {
      const result = await matchPublished({ stores, webhooks, queue, clock }, family);
      if (result.deliveries > 0) logger.info('webhooks: matched', { family: family.family, ...result });
    }
  };
  const poll = async () => {
    await match();
    // Sending runs beside the next polls: a slow receiver never holds up matching.
    sending = Promise.all([sending, queue.drain((message) => handleDelivery(send, message))]);
    await sending;
  };

  let busy = false;
  const timer =
    options.intervalMs > 0
      ? setInterval(() => {
          if (busy) return;
          busy = true;
          match()
            .then(() => {
              sending = Promise.all([sending, queue.drain((message) => handleDelivery(send, message))]);
            })
            .catch((error) => logger.error('webhooks: matching failed', { error }))
            .finally(() => {
              busy = false;
            });
        }, options.intervalMs)
      : undefined;
  return {
    webhooks,
    queue,
    poll,
    stop: async () => {
      if (timer) clearInterval(timer);
      await sending.catch(() => undefined);
    },
  };
}
