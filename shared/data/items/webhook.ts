/**
 * The codecs of the webhook items (CONTRACT §14, docs/data-model.md "Webhooks"): a subscription, its
 * secret, a delivery's state, a reference APY. Decoded here and nowhere else; a stored item that
 * does not decode fails here, named by its kind (never by a value: a secret is one).
 */
import * as z from 'zod/mini';
import { OFFER_FAMILIES } from '../../model/offer-families';
import { USER_ID_PATTERN } from '../../platform/account-rules';
import { DECIMAL_PATTERN } from '../../platform/decimal';
import { CorruptDataError } from '../../platform/errors';
import { isFileTimestamp } from '../../platform/timestamps';

const time = () => z.string().check(z.refine(isFileTimestamp));
const nullableTime = () => z._default(z.nullable(time()), null);
const decimal = () => z.string().check(z.regex(DECIMAL_PATTERN));

const SubscriptionItemCodec = z.object({
  id: z.string().check(z.regex(/^wh_[0-9a-f]{20}$/)),
  userId: z.string().check(z.regex(USER_ID_PATTERN)),
  url: z.string().check(z.minLength(1)),
  family: z.enum(OFFER_FAMILIES),
  filter: z.string(),
  events: z.array(z.enum(['offer.added', 'offer.removed', 'offer.changed'])),
  conditions: z.object({
    apy_change: z.optional(decimal()),
    apy_above: z.optional(decimal()),
    apy_below: z.optional(decimal()),
    availability: z.optional(z.boolean()),
  }),
  status: z.enum(['active', 'disabled']),
  disabledReason: z._default(z.nullable(z.string()), null),
  createdAt: time(),
  lastSuccessAt: nullableTime(),
  lastFailureAt: nullableTime(),
  /** The first failed attempt since the last success: 24 h after it, the subscription is disabled. */
  failingSince: nullableTime(),
});
export type SubscriptionItem = z.infer<typeof SubscriptionItemCodec>;
/** What matching reads of a subscription (the family Query projects it: half the attributes to decode). */
const MATCHED = { id: true, filter: true, events: true, conditions: true, status: true, createdAt: true } as const;
const MatchedSubscriptionCodec = z.pick(SubscriptionItemCodec, MATCHED);
export type MatchedSubscription = z.infer<typeof MatchedSubscriptionCodec>;
export const MATCHED_ATTRIBUTES = Object.keys(MATCHED) as (keyof MatchedSubscription)[];

/**
 * A delivery's state, what the owner's view shows (CONTRACT §14) and what the retries need; its body
 * travels in the queue message, never here. The id and the subscription are the item's keys.
 */
const DeliveryItemCodec = z.object({
  id: z.string().check(z.regex(/^msg_[0-9]{13}[0-9a-f]{12}$/)),
  subscriptionId: z.string(),
  snapshot: z.string(),
  previousSnapshot: z.string(),
  part: z.int().check(z.positive()),
  parts: z.int().check(z.positive()),
  events: z.int().check(z.positive()),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.int().check(z.minimum(0)),
  /** The retries are due after it (delivery.ts). */
  firstAttemptAt: nullableTime(),
  lastAttemptAt: nullableTime(),
  lastStatus: z._default(z.nullable(z.int()), null),
  lastError: z._default(z.nullable(z.string()), null),
  nextAttemptAt: nullableTime(),
  deliveredAt: nullableTime(),
  /** Epoch seconds: the table's TTL deletes it a day after the owner's view stops showing it. */
  expiresAt: z.int(),
});
export type DeliveryItem = z.infer<typeof DeliveryItemCodec>;

function decoded<T>(codec: z.ZodMiniType<T>, item: unknown, kind: string): T {
  const result = codec.safeParse(item);
  if (!result.success) {
    const fields = [...new Set(result.error.issues.map((issue) => issue.path.map(String).join('.') || '(item)'))];
    throw new CorruptDataError(`${kind} is malformed (${fields.join(', ')})`);
  }
  return result.data;
}

export const decodeSubscriptionItem = (item: unknown): SubscriptionItem =>
  decoded(SubscriptionItemCodec, item, 'a webhook subscription item');

export const decodeMatchedSubscription = (item: unknown): MatchedSubscription =>
  decoded(MatchedSubscriptionCodec, item, 'a webhook subscription item');

export const decodeDeliveryItem = (item: unknown): DeliveryItem =>
  decoded(DeliveryItemCodec, item, 'a webhook delivery item');

/** What a writer writes, checked by the reader's codec: what is written decodes. */
export function encoded<T extends object>(codec: 'subscription' | 'delivery', value: T): T {
  const result = (codec === 'subscription' ? SubscriptionItemCodec : DeliveryItemCodec).safeParse(value);
  if (!result.success) throw new RangeError(`a webhook ${codec} item would not decode`);
  return value;
}

const SecretItemCodec = z.object({ secret: z.string().check(z.regex(/^whsec_[A-Za-z0-9+/=]+$/)) });
export const decodeSecretItem = (item: unknown): string =>
  decoded(SecretItemCodec, item, 'a webhook secret item').secret;

/**
 * A bucket item of reference APYs: subscription id → its references, `offerId:apy` pairs joined by
 * commas in offer-id order (a string is a third of a map's bytes, and an item's size is what a
 * publish reads and writes).
 */
/** `offerId:apy` pairs (the APY a decimal), joined by commas. */
const PAIR = `[0-9]{1,16}:${DECIMAL_PATTERN.source.slice(1, -1)}`;
const PACKED_REFERENCES = new RegExp(`^${PAIR}(,${PAIR})*$`);
const ReferenceItemCodec = z.object({
  refs: z.record(z.string().check(z.regex(/^wh_[0-9a-f]{20}$/)), z.string().check(z.regex(PACKED_REFERENCES))),
});
export type ReferenceSets = Map<string, Map<number, string>>;

export function decodeReferenceItem(item: unknown): ReferenceSets {
  const { refs } = decoded(ReferenceItemCodec, item, 'a webhook reference item');
  const found: ReferenceSets = new Map();
  for (const [subscriptionId, packed] of Object.entries(refs)) {
    const own = new Map<number, string>();
    for (const pair of packed.split(',')) {
      const at = pair.indexOf(':');
      own.set(Number(pair.slice(0, at)), pair.slice(at + 1));
    }
    found.set(subscriptionId, own);
  }
  return found;
}

/** One subscription's references as a bucket item holds them (non-empty). */
export const encodeReferences = (refs: ReadonlyMap<number, string>): string =>
  [...refs]
    .sort(([a], [b]) => a - b)
    .map(([id, apy]) => `${id}:${apy}`)
    .join(',');
