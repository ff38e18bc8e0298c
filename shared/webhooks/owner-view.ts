/**
 * The owner's view of webhooks (CONTRACT §14, docs/api.md "Webhooks"): a user's subscriptions and a
 * subscription's deliveries of the last 7 days, as the data API serves them. Never a secret: the
 * view reads subscription and delivery items only.
 */
import type { DeliveryItem, SubscriptionItem, WebhookStore } from '../data/webhook-store';
import { type Pagination, pagination } from '../domain/page';
import { NotFoundError } from '../platform/errors';
import { DELIVERY_LOG_MS } from './matching';

export const subscriptionView = (s: SubscriptionItem) => ({
  id: s.id,
  url: s.url,
  family: s.family,
  filter: s.filter,
  events: s.events,
  conditions: s.conditions,
  status: s.status,
  disabled_reason: s.disabledReason,
  created_at: s.createdAt,
  last_success_at: s.lastSuccessAt,
  last_failure_at: s.lastFailureAt,
});

export const deliveryView = (d: DeliveryItem) => ({
  id: d.id,
  snapshot: d.snapshot,
  previous_snapshot: d.previousSnapshot,
  part: d.part,
  parts: d.parts,
  events: d.events,
  status: d.status,
  attempts: d.attempts,
  last_attempt_at: d.lastAttemptAt,
  last_status: d.lastStatus,
  last_error: d.lastError,
  next_attempt_at: d.nextAttemptAt,
  delivered_at: d.deliveredAt,
});

interface PageQuery {
  readonly offset: number;
  readonly limit: number;
}

export interface ViewPage<T> {
  data: T[];
  pagination: Pagination;
}

const paged = <T>(all: T[], query: PageQuery): ViewPage<T> => {
  const data = all.slice(query.offset, query.offset + query.limit);
  return { data, pagination: pagination(all.length, query.offset, query.limit, data.length) };
};

/** The user's subscriptions, by `created_at` then id. */
export async function listSubscriptions(
  store: WebhookStore,
  userId: string,
  query: PageQuery,
): Promise<ViewPage<ReturnType<typeof subscriptionView>>> {
  return paged((await store.listForUser(userId)).map(subscriptionView), query);
}

/** The deliveries of the last 7 days of one of the user's subscriptions, newest first; another user's is a 404. */
export async function listDeliveries(
  store: WebhookStore,
  userId: string,
  id: string,
  now: Date,
  query: PageQuery,
): Promise<ViewPage<ReturnType<typeof deliveryView>>> {
  if (userId === '' || !(await store.getForUser(userId, id))) throw new NotFoundError('No such webhook subscription.');
  // A delivery's id starts with its creation time: the week is a range of ids.
  const from = `msg_${String(Math.max(0, now.getTime() - DELIVERY_LOG_MS)).padStart(13, '0')}`;
  return paged((await store.deliveriesSince(id, from)).map(deliveryView), query);
}
