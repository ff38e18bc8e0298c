/**
 * Plain values the request path needs, apart from the zod resource schemas: a function imports
 * these without building every resource schema at load time (cold start, docs/performance.md).
 */
export const PLATFORM_TYPES = ['exchange', 'wallet', 'protocol'] as const;
export type PlatformType = (typeof PLATFORM_TYPES)[number];

/** Slugs are short: DynamoDB keys hold at most 2 KB, and a longer one cannot name a record. */
export const SLUG_MAX_LENGTH = 256;

/**
 * A user id of an accounts file or `npm run keys -- --user`: 1 to 128 characters that need no
 * escaping in a key or a log line. Its items' keys (`USER#<id>`) stay far below DynamoDB's 2 KB.
 */
export const USER_ID_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;
export const USER_ID_RULE = 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":", "@" and "-"';

/**
 * The largest per-key limit (`per_minute`, `per_month`): 15 digits, so that every `RateLimit` and
 * `RateLimit-Policy` value stays an RFC 9651 integer (at most 15 digits), which strict
 * structured-field parsers would otherwise drop.
 */
export const KEY_LIMIT_MAX = 999_999_999_999_999;
