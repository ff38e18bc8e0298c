/**
 * Managing subscriptions (CONTRACT §14; `npm run webhooks`, an accounts file's `webhooks`, loaded
 * with its users and keys by `loadAccounts`): each
 * written subscription is validated first (subscription.ts) and its target checked (target.ts). The
 * secret is returned once, to be shown once; nothing here logs it.
 */
import type { KeyStore } from '../accounts/key-store';
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

/** The subscriptions of an accounts file, as `parseAccounts` returns them (declared here: the import is not below webhooks). */
export interface AccountsWebhooks {
  readonly users: readonly {
    readonly id: string;
    readonly webhooks?: readonly ({ readonly id: string; readonly secret: string } & SubscriptionInput)[];
  }[];
}

/**
 * An accounts file's subscriptions, each checked as `create` checks it (its problems named by place:
 * `users[0].webhooks[1].url must be …`), all of them in one ValidationError; nothing is written.
 */
async function checkedSubscriptions(
  file: AccountsWebhooks,
  options: Omit<CreateOptions, 'secret'>,
): Promise<{ item: SubscriptionItem; secret: string }[]> {
  const problems: string[] = [];
  const checked: { item: SubscriptionItem; secret: string }[] = [];
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
        checked.push({
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
  return checked;
}

/** Where an accounts file is written: its users and keys, its subscriptions. */
export interface AccountStores {
  keys: KeyStore;
  webhooks: WebhookStore;
}

/**
 * Loads an accounts file whole, the one way `npm start`, `npm run keys -- load` and
 * `npm run import -- --accounts` load one: its subscriptions are checked first (refused: a
 * ValidationError naming each by place), then its users and keys written (a duplicate refused:
 * AccountsConflictError, before any write), then its subscriptions. A refused file writes nothing.
 */
export async function loadAccounts(
  stores: AccountStores,
  file: {
    readonly users: readonly (Parameters<KeyStore['loadAccounts']>[0]['users'][number] &
      AccountsWebhooks['users'][number])[];
  },
  options: Omit<CreateOptions, 'secret'>,
): Promise<{ users: number; keys: number; webhooks: number }> {
  const subscriptions = await checkedSubscriptions(file, options);
  const { users, keys } = await stores.keys.loadAccounts(file);
  await stores.webhooks.load(subscriptions);
  return { users, keys, webhooks: subscriptions.length };
}
