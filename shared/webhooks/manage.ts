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

/**
 * A subscription item from a checked spec: active, never delivered.
 * @internal (exported for its tests)
 */
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

/** The subscriptions of an accounts file, as `parseAccounts` returns them (declared here: the import is not below webhooks). */
export interface AccountsWebhooks {
  readonly users: readonly {
    readonly id: string;
    readonly webhooks?: readonly ({ readonly id: string; readonly secret: string } & SubscriptionInput)[];
  }[];
}

/**
 * Writes an accounts file's subscriptions, each checked as `create` checks it (its problems named by
 * place: `users[0].webhooks[1].url must be …`), none written when one is refused. Idempotent: a
 * subscription keeps its id, and loading it again writes it again, active.
 */
export async function loadSubscriptions(
  store: WebhookStore,
  file: AccountsWebhooks,
  options: Omit<CreateOptions, 'secret'>,
): Promise<number> {
  const problems: string[] = [];
  const written: { item: SubscriptionItem; secret: string }[] = [];
  for (const [u, user] of file.users.entries()) {
    const webhooks = user.webhooks ?? [];
    if (webhooks.length > MAX_WEBHOOKS_PER_USER)
      problems.push(`users[${u}].webhooks must not have more than ${MAX_WEBHOOKS_PER_USER} subscriptions`);
    for (const [w, webhook] of webhooks.entries()) {
      const place = `users[${u}].webhooks[${w}]`;
      try {
        const spec = validateSubscription(webhook, options.rule);
        if (!isWebhookSecret(webhook.secret))
          throw new ValidationError(['secret must be whsec_ and the base64 of 24 to 64 bytes']);
        const refused = await checkTarget(new URL(spec.url), options.rule, options.lookup);
        if (refused !== undefined) throw new ValidationError([`url is refused: ${refused}`]);
        written.push({
          item: subscriptionItem(webhook.id, user.id, spec, options.now.toISOString()),
          secret: webhook.secret,
        });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        problems.push(...((error.details?.message as string[]) ?? []).map((message) => `${place}.${message}`));
      }
    }
  }
  if (problems.length > 0) throw new ValidationError(problems);
  await store.load(written);
  return written.length;
}
