/**
 * The codec of every stored item kind of the accounts and their usage (docs/data-model.md,
 * "Items"): API keys, users, a user's key references and quota counters. Each kind is decoded here
 * and nowhere else, and a stored item that does not decode fails here with a CorruptDataError
 * naming its kind and the attributes at fault, never their values (a key item is addressed by the
 * hash of its secret: no message holds a hash or a secret). The items the code writes whole (keys,
 * users, references) are encoded here too, checked by the same codec: what is written decodes.
 *
 * The served data's items have theirs in items/, one module per kind. This module is in the authorizer's
 * bundle, so it imports zod/mini and nothing heavier (no zlib, no dataset schema).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import * as z from 'zod/mini';
import { apiKeyKey, type Key, QUOTA_ATTRIBUTES, userKey, userKeyRefKey } from '../data/keys';
import { KEY_HASH_PATTERN, KEY_ID_PATTERN, KEY_LIMIT_MAX, USER_ID_PATTERN } from '../platform/account-rules';
import { CorruptDataError } from '../platform/errors';
import { isFileTimestamp } from '../platform/timestamps';

/** The attributes at fault, by name (never a value: a value could be a hash). */
function faults(error: z.core.$ZodError): string {
  const names = [...new Set(error.issues.map((issue) => issue.path.map(String).join('.') || '(item)'))];
  return names.join(', ');
}

function decoded<T>(codec: z.ZodMiniType<T>, item: unknown, kind: string): T {
  const result = codec.safeParse(item);
  if (!result.success) throw new CorruptDataError(`${kind} is malformed (${faults(result.error)})`);
  return result.data;
}

/** The attributes of an item to write: checked by its codec, undefined ones left out. */
function encoded<T extends object>(codec: z.ZodMiniType<T>, value: T, kind: string): Partial<T> {
  const result = codec.safeParse(value);
  if (!result.success) throw new RangeError(`${kind} would not decode (${faults(result.error)})`);
  return Object.fromEntries(Object.entries(result.data).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * An item named by its key id where it has a well-formed one (public, unlike its hash), so that an
 * operator finds it; a malformed id (a line break, kilobytes) never reaches a log line.
 */
const namedByKeyId = (item: Record<string, unknown>, kind: string, named: string): string =>
  typeof item.keyId === 'string' && KEY_ID_PATTERN.test(item.keyId) ? `${named} ${item.keyId}` : kind;

// What the writers write (shared/platform/account-rules.ts), and nothing else.
const keyId = () => z.string().check(z.regex(KEY_ID_PATTERN));
const userId = () => z.string().check(z.regex(USER_ID_PATTERN));
const time = () => z.string().check(z.refine(isFileTimestamp));

// ---- API keys ---------------------------------------------------------------------------------

/** A budget: a positive integer of at most 15 digits, as accounts files and the CLI write it (RateLimit headers print it). */
const keyLimit = z.int().check(z.positive(), z.maximum(KEY_LIMIT_MAX));

/** `KEY#<hash>`: a key, addressed by the hash of its secret (docs/adr/0004-api-keys.md). */
const KeyItemCodec = z.object({
  keyId: keyId(),
  userId: userId(),
  revoked: z.boolean(),
  createdAt: time(),
  revokedAt: z.optional(time()),
  /** Its own budgets, each optional: the function's defaults apply to what it lacks. */
  perMinute: z.optional(keyLimit),
  perMonth: z.optional(keyLimit),
});

export type KeyItem = z.infer<typeof KeyItemCodec>;

/**
 * A key's budgets: requests per UTC minute and per calendar month (docs/api.md, "Quotas and
 * headers"), the key item's own or the function's defaults. The quota counters charge against
 * them (quota-store.ts).
 */
export type KeyLimits = Required<Pick<KeyItem, 'perMinute' | 'perMonth'>>;

const KEY_ITEM = 'an API key item';

/**
 * A key item as stored. One that does not decode (a `revoked` that is not a boolean, no owner, a
 * limit that is not a positive integer) throws: the authorizer answers its failure (503, logged),
 * never 401 or an Allow, and no unchecked limit reaches its context.
 */
export const decodeKeyItem = (item: Record<string, unknown>): KeyItem =>
  decoded(KeyItemCodec, item, namedByKeyId(item, KEY_ITEM, 'the API key item of'));

export const encodeKeyItem = (hash: string, key: KeyItem): Record<string, unknown> & Key => ({
  ...apiKeyKey(hash),
  ...encoded(KeyItemCodec, key, KEY_ITEM),
});

// ---- users ------------------------------------------------------------------------------------

/** `USER#<id>`: a user and their subscription. */
const UserItemCodec = z.object({
  userId: userId(),
  premium: z.boolean(),
  /**
   * End of the subscription, as an accounts file's `premium_until` or `npm run keys -- premium`
   * writes it (the files' timestamp rule); null: no end. Absent (no writer omits it) reads as null.
   */
  premiumUntil: z._default(z.nullable(time()), null),
});

export type UserItem = z.infer<typeof UserItemCodec>;

const USER_ITEM = 'a user item';

export const decodeUserItem = (item: Record<string, unknown>): UserItem => decoded(UserItemCodec, item, USER_ITEM);

export const encodeUserItem = (user: UserItem): Record<string, unknown> & Key => ({
  ...userKey(user.userId),
  ...encoded(UserItemCodec, user, USER_ITEM),
});

// ---- a user's key references ------------------------------------------------------------------

/** `USER#<id> / KEY#<keyId>`: where a user's key lies (`list` and `revoke` without a Scan). */
const KeyRefItemCodec = z.object({
  keyId: keyId(),
  /** The key item's hash (shared/accounts/key-store.ts `hashKey`). */
  hash: z.string().check(z.regex(KEY_HASH_PATTERN)),
  createdAt: time(),
});

export type KeyRefItem = z.infer<typeof KeyRefItemCodec>;

const KEY_REF_ITEM = "a user's key reference";

export const decodeKeyRefItem = (item: Record<string, unknown>): KeyRefItem =>
  decoded(KeyRefItemCodec, item, namedByKeyId(item, KEY_REF_ITEM, "the user's reference of key"));

export const encodeKeyRefItem = (userId: string, ref: KeyRefItem): Record<string, unknown> & Key => ({
  ...userKeyRefKey(userId, ref.keyId),
  ...encoded(KeyRefItemCodec, ref, KEY_REF_ITEM),
});

// ---- quota counters ---------------------------------------------------------------------------

/** A quota counter's state; absent counts are a key's first charge of the month. */
export interface QuotaCounter {
  monthCount: number;
  /** The latest minute charged (`yyyymmddhhmm`); absent before the first. */
  minute?: number;
  minuteCount: number;
}

const count = z.int().check(z.minimum(0));
const minute = z.int().check(z.positive());
const { monthCount: MONTH, minute: MINUTE, minuteCount: MINUTE_COUNT } = QUOTA_ATTRIBUTES;

/** As a successful write returns it (ALL_NEW): every write sets the three counts. */
const WrittenCounterCodec = z.object({ [MONTH]: count, [MINUTE]: minute, [MINUTE_COUNT]: count });

/**
 * As a read finds it after a failed condition: it may carry only the month's count (written
 * before the minute moved onto the counter item), or none; a minute always has its count.
 */
const FoundCounterCodec = z
  .object({ [MONTH]: z.optional(count), [MINUTE]: z.optional(minute), [MINUTE_COUNT]: z.optional(count) })
  .check(
    z.refine((item) => item[MINUTE] === undefined || item[MINUTE_COUNT] !== undefined, {
      path: [MINUTE_COUNT],
      error: 'a minute without its count',
    }),
  );

const QUOTA_COUNTER = 'a quota counter';

/** The counter a successful write returned: all three counts, or it throws. */
export function decodeWrittenQuotaCounter(item: Record<string, unknown> | undefined): QuotaCounter {
  const counter = decoded(WrittenCounterCodec, item ?? {}, QUOTA_COUNTER);
  return { monthCount: counter[MONTH], minute: counter[MINUTE], minuteCount: counter[MINUTE_COUNT] };
}

/** The counter a read found (undefined: there is none yet, this month). */
export function decodeQuotaCounter(item: Record<string, unknown> | undefined): QuotaCounter {
  const counter = decoded(FoundCounterCodec, item ?? {}, QUOTA_COUNTER);
  const found = counter[MINUTE];
  return found === undefined
    ? { monthCount: counter[MONTH] ?? 0, minuteCount: 0 }
    : { monthCount: counter[MONTH] ?? 0, minute: found, minuteCount: counter[MINUTE_COUNT] ?? 0 };
}

/**
 * The counter returned with a failed condition, in DynamoDB's wire form (the document client
 * leaves errors as they are). A count that is not a number reaches the codec as it is, and fails
 * there: it never reads as absent.
 */
export function decodeQuotaCounterWire(item: Record<string, AttributeValue>): QuotaCounter {
  const plain: Record<string, unknown> = {};
  for (const name of Object.values(QUOTA_ATTRIBUTES)) {
    const value = item[name];
    if (value !== undefined) plain[name] = value.N !== undefined ? Number(value.N) : value;
  }
  return decodeQuotaCounter(plain);
}
