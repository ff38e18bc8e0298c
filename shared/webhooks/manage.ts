/**
 * Managing subscriptions (CONTRACT §14; `npm run webhooks`, an accounts file's `webhooks`): each
 * written subscription is validated first (subscription.ts) and its target checked (target.ts). The
 * secret is returned once, to be shown once; nothing here logs it.
 */
import type { SubscriptionItem, WebhookStore } from '../data/webhook-store';
import { ValidationError } from '../platform/errors';
import {
  generateWebhookId,
  generateWebhookSecret,
  isWebhookSecret,
  MAX_WEBHOOKS_PER_USER,
  type SubscriptionInput,
  type TargetRule,
  validateSubscription,
} from './subscription';
import { checkTarget, type Lookup } from './target';

export interface CreateOptions {
  rule: TargetRule;
  lookup?: Lookup;
  now: Date;
  /** A secret the owner gives (else one is generated). */
  secret?: string;
}

/** A subscription item from a checked spec: active, never delivered. */
export function subscriptionItem(
  id: string,
  userId: string,
  spec: ReturnType<typeof validateSubscription>,
  createdAt: string,
): SubscriptionItem {
  return {
    id,
    userId,
    ...spec,
    status: 'active',
    disabledReason: null,
    createdAt,
    lastSuccessAt: null,
    lastFailureAt: null,
    failingSince: null,
  };
}

/** Validates, checks the target's addresses, then writes; the secret comes back once. */
export async function createSubscription(
  store: WebhookStore,
  userId: string,
  input: SubscriptionInput,
  options: CreateOptions,
): Promise<{ subscription: SubscriptionItem; secret: string }> {
  const spec = validateSubscription(input, options.rule);
  if (options.secret !== undefined && !isWebhookSecret(options.secret))
    throw new ValidationError(['secret must be whsec_ and the base64 of 24 to 64 bytes']);
  const refused = await checkTarget(new URL(spec.url), options.rule, options.lookup);
  if (refused !== undefined) throw new ValidationError([`url is refused: ${refused}`]);
  const secret = options.secret ?? generateWebhookSecret();
  const subscription = subscriptionItem(generateWebhookId(), userId, spec, options.now.toISOString());
  await store.create(subscription, secret, MAX_WEBHOOKS_PER_USER);
  return { subscription, secret };
}
