/**
 * Plain values the request path needs, apart from the zod resource schemas: a function imports
 * these without building every resource schema at load time (cold start, docs/performance.md).
 */
export const PLATFORM_TYPES = ['exchange', 'wallet', 'protocol'] as const;
export type PlatformType = (typeof PLATFORM_TYPES)[number];

/** Slugs are short: DynamoDB keys hold at most 2 KB, and a longer one cannot name a record. */
export const SLUG_MAX_LENGTH = 256;

/**
 * Lambda's limit on a buffered (synchronous) invocation's response: 6 MB, the JSON of the whole
 * proxy result (status, headers, body; a base64 body counts as its base64 text). Past it the
 * invocation fails and API Gateway answers DEFAULT_5XX (ADR 0014).
 */
export const LAMBDA_RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;
