/**
 * What the account items may hold: the rules their writers apply (an accounts file,
 * shared/import/dataset.ts; `npm run keys`, scripts/keys.ts; the key store, shared/accounts/key-store.ts)
 * and their codecs read by (shared/accounts/account-items.ts), declared once so that what is read is
 * exactly what can be written. An item outside them is corrupt: the authorizer fails closed (503).
 * Times (`premium_until`, when a key was created or revoked) follow the files' timestamp rule
 * (timestamps.ts).
 */
import { createHash } from 'node:crypto';

/** The characters and length of a key (its secret): 32–128 characters of [A-Za-z0-9_-]. */
export const API_KEY_CHARS = '[A-Za-z0-9_-]{32,128}';
export const API_KEY_FORMAT = new RegExp(`^${API_KEY_CHARS}$`);
export const API_KEY_RULE = 'must be 32 to 128 characters of A-Z, a-z, 0-9, _ and -';

/**
 * A user id: 1 to 128 characters that need no escaping in a key or a log line. Its items' keys
 * (`USER#<id>`) stay far below DynamoDB's 2 KB.
 */
export const USER_ID_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;
export const USER_ID_RULE = 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":", "@" and "-"';

/**
 * The largest per-key limit (`per_minute`, `per_month`): 15 digits, so that every `RateLimit` and
 * `RateLimit-Policy` value stays an RFC 9651 integer (at most 15 digits), which strict
 * structured-field parsers would otherwise drop.
 */
export const KEY_LIMIT_MAX = 999_999_999_999_999;

/** The public id of a key: derived from its hash, so re-loading a key gives it the same id. */
export const keyIdForHash = (hash: string): string =>
  `k_${createHash('sha256').update(hash).digest('hex').slice(0, 16)}`;

/** Every key id `keyIdForHash` writes, and nothing else (no line break, nothing long: it is logged and keys counters). */
export const KEY_ID_PATTERN = /^k_[0-9a-f]{16}$/;

/** A key's hash, as key items are addressed and references hold it: SHA-256 or HMAC-SHA256, hex. */
export const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;
