/**
 * Sending one delivery (CONTRACT §14 "Delivered at least once", docs/adr/0028-webhook-delivery.md):
 * the handler of a queue message, the same deployed (SQS) and locally (an in-process queue). A
 * message names a delivery and carries its body; the delivery item says when its next attempt is due. A message that
 * comes early (the queue holds a message back at most `maxDelaySeconds`) is sent back for the rest
 * of the wait. An attempt that fails is retried about 5 s, 5 min, 30 min, 2 h, 5 h and 10 h after
 * the first, then the delivery has failed; a subscription none of whose attempts succeeded for 24 h
 * is disabled. Every attempt is recorded on the delivery (the owner's view) and the subscription.
 */
import type { DeliveryItem, WebhookStore } from '../data/webhook-store';
import { logger } from '../platform/logger';
import { DAY_MS, HOUR_MS } from '../platform/timestamps';
import type { DeliveryMessage, DeliveryQueue } from './queue';
import { ATTEMPT_TIMEOUT_MS, type AttemptOutcome, postSigned, signedHeaders } from './sender';
import type { TargetRule } from './subscription';
import { type Lookup, resolveTarget } from './target';

/**
 * When each retry is due, after the first attempt.
 * @internal (exported for its tests)
 */
export const RETRY_SCHEDULE_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * HOUR_MS, 5 * HOUR_MS, 10 * HOUR_MS] as const;
/** With no successful attempt for this long, a subscription is disabled. */
const DISABLE_AFTER_MS = DAY_MS;

export interface SendDeps {
  webhooks: WebhookStore;
  queue: DeliveryQueue;
  clock: () => Date;
  rule: TargetRule;
  lookup?: Lookup;
  timeoutMs?: number;
}

/** What became of a message: `disabled` is a failed attempt that disabled its subscription. */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'disabled' | 'held' | 'gone';

/** Handles one message: an attempt when the delivery is due, else the message back on the queue. */
export async function handleDelivery(deps: SendDeps, message: DeliveryMessage): Promise<DeliveryOutcome> {
  const { webhooks } = deps;
  const delivery = await webhooks.delivery(message.subscriptionId, message.deliveryId);
  // Gone (expired, its subscription removed) or settled by an earlier copy of the message: at least once, not twice.
  if (delivery?.status !== 'pending') return 'gone';
  const now = deps.clock();
  const due = delivery.nextAttemptAt === null ? now.getTime() : Date.parse(delivery.nextAttemptAt);
  if (due > now.getTime()) {
    await requeue(deps, message, due - now.getTime());
    return 'held';
  }
  const subscription = await webhooks.getSubscription(message.family, message.subscriptionId);
  if (subscription?.status !== 'active') {
    // Disabled: not sent what it missed, even once it is enabled again.
    await webhooks.putDelivery(settled(delivery, now, 'failed', null, 'subscription_disabled'));
    return 'failed';
  }
  const secret = await webhooks.secret(subscription.id);
  if (secret === undefined) return 'gone';

  const outcome = await attempt(deps, new URL(subscription.url), secret, delivery.id, now, message.body);
  const attempts = delivery.attempts + 1;
  const firstAttemptAt = delivery.firstAttemptAt ?? now.toISOString();
  const at = now.toISOString();
  if (outcome.ok) {
    await webhooks.putDelivery({
      ...settled(delivery, now, 'delivered', outcome.status, null),
      attempts,
      firstAttemptAt,
      deliveredAt: at,
    });
    await webhooks.recordSuccess(subscription.family, subscription.id, at);
    return 'delivered';
  }
  const after = await webhooks.recordFailure(
    subscription.family,
    subscription.id,
    at,
    DISABLE_AFTER_MS,
    `no delivery succeeded for 24 hours (last: ${outcome.error})`,
  );
  logger.info('webhook attempt failed', {
    subscription: subscription.id,
    delivery: delivery.id,
    attempts,
    status: outcome.status,
    reason: outcome.error,
  });
  const retry = RETRY_SCHEDULE_MS[attempts - 1];
  if (after?.status !== 'active' || retry === undefined) {
    await webhooks.putDelivery({
      ...settled(delivery, now, 'failed', outcome.status, outcome.error),
      attempts,
      firstAttemptAt,
    });
    return after?.status === 'disabled' ? 'disabled' : 'failed';
  }
  const next = Date.parse(firstAttemptAt) + retry;
  await webhooks.putDelivery({
    ...delivery,
    attempts,
    firstAttemptAt,
    lastAttemptAt: at,
    lastStatus: outcome.status,
    lastError: outcome.error,
    nextAttemptAt: new Date(next).toISOString(),
  });
  await requeue(deps, message, next - now.getTime());
  return 'retrying';
}

function settled(
  delivery: DeliveryItem,
  now: Date,
  status: 'delivered' | 'failed',
  lastStatus: number | null,
  lastError: string | null,
): DeliveryItem {
  return { ...delivery, status, lastAttemptAt: now.toISOString(), lastStatus, lastError, nextAttemptAt: null };
}

async function attempt(
  deps: SendDeps,
  url: URL,
  secret: string,
  id: string,
  now: Date,
  body: string,
): Promise<AttemptOutcome> {
  // Checked at every attempt: what a name resolves to may have changed since the subscription was made.
  const target = await resolveTarget(url, deps.rule, deps.lookup);
  if ('refused' in target) return { ok: false, status: null, error: 'target_refused' };
  return postSigned(url, target, signedHeaders(secret, id, now, body), body, deps.timeoutMs ?? ATTEMPT_TIMEOUT_MS);
}

/** Back on the queue for `waitMs`, in hops of at most the queue's longest delay. */
async function requeue(deps: SendDeps, message: DeliveryMessage, waitMs: number): Promise<void> {
  const seconds = Math.min(deps.queue.maxDelaySeconds, Math.max(0, Math.ceil(waitMs / 1000)));
  await deps.queue.send([message], seconds);
}
