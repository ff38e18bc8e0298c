/**
 * Plain values the request path needs, apart from the zod resource schemas: a function imports
 * these without building every resource schema at load time (cold start, docs/performance.md).
 */
export const PLATFORM_TYPES = ['exchange', 'wallet', 'protocol'] as const;
export type PlatformType = (typeof PLATFORM_TYPES)[number];

/** Slugs are short: DynamoDB keys hold at most 2 KB, and a longer one cannot name a record. */
export const SLUG_MAX_LENGTH = 256;
