/**
 * The Bearer key check (docs/api.md, "Authentication"). An Authorization value that is not `Bearer <key>` with a
 * key in the key format is refused before any read; an unknown or revoked key is 401; a key whose
 * user has no active premium subscription is 403.
 *
 * Parsing follows RFC 9110 credentials (`scheme 1*SP token`): the scheme word in any case, one or
 * more spaces before the token, spaces or tabs around the value ignored, nothing after the token.
 * The expression is shared with API Gateway's identity validation (shared/platform/bearer.ts).
 */

import type { KeyLimits, KeyLookup, UserItem } from '../accounts/key-store';
import { bearerKey } from '../platform/bearer';
import { InvalidApiKeyError, SubscriptionRequiredError } from '../platform/errors';

/** The key's own limits (each optional) ride along to the authorizer context. */
export interface Authorization extends Partial<KeyLimits> {
  keyId: string;
  /** The key's owner: the owner's view of webhooks (docs/api.md, "Webhooks") reads their subscriptions. */
  userId: string;
  /** The end of the user's subscription; absent when it has none. */
  premiumUntil?: string;
}

export type KeyRefusal = 'malformed' | 'unknown' | 'revoked';
export type SubscriptionRefusal = 'no_user' | 'not_premium' | 'expired';

/** A 401 with the reason, for the authorizer's log line (the client sees only the envelope). */
export class KeyRejectedError extends InvalidApiKeyError {
  constructor(readonly reason: KeyRefusal) {
    super();
  }
}

/** A 403 with the key it concerns and the reason, for the authorizer's policy and log line. */
export class SubscriptionInactiveError extends SubscriptionRequiredError {
  constructor(
    readonly keyId: string,
    readonly reason: SubscriptionRefusal,
  ) {
    super();
  }
}

/** Why a user's subscription is not active at `now`, or undefined when it is. */
function subscriptionRefusal(user: UserItem | undefined, now: Date): SubscriptionRefusal | undefined {
  if (!user) return 'no_user';
  if (!user.premium) return 'not_premium';
  if (user.premiumUntil === null) return undefined;
  // The subscription ends at `premiumUntil`. The key store's codec refuses an unreadable date
  // (a failure); from another KeyLookup, one fails closed here.
  const until = Date.parse(user.premiumUntil);
  return Number.isNaN(until) || until <= now.getTime() ? 'expired' : undefined;
}

export async function authorizeToken(
  store: KeyLookup,
  authorization: string | undefined,
  now: Date,
): Promise<Authorization> {
  const secret = bearerKey(authorization);
  if (secret === undefined) throw new KeyRejectedError('malformed');
  const key = await store.findByKey(secret);
  if (!key) throw new KeyRejectedError('unknown');
  if (key.revoked) throw new KeyRejectedError('revoked');
  const user = await store.getUser(key.userId);
  const refusal = subscriptionRefusal(user, now);
  if (refusal) throw new SubscriptionInactiveError(key.keyId, refusal);
  return {
    keyId: key.keyId,
    userId: key.userId,
    ...(user?.premiumUntil ? { premiumUntil: user.premiumUntil } : {}),
    ...(key.perMinute !== undefined ? { perMinute: key.perMinute } : {}),
    ...(key.perMonth !== undefined ? { perMonth: key.perMonth } : {}),
  };
}
