/**
 * Typed errors of the API (docs/api.md, "Errors"). Domain code throws them; the
 * error middleware alone turns them into the envelope.
 */
export type ErrorCode =
  | 'invalid_api_key'
  | 'subscription_required'
  | 'not_found'
  | 'method_not_allowed'
  | 'rate_limit_exceeded'
  | 'monthly_quota_exceeded'
  | 'validation_error'
  | 'snapshot_expired'
  | 'service_unavailable'
  | 'internal_error';

export const STATUS_OF: Record<ErrorCode, number> = {
  invalid_api_key: 401,
  subscription_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  rate_limit_exceeded: 429,
  monthly_quota_exceeded: 429,
  validation_error: 400,
  snapshot_expired: 410,
  service_unavailable: 503,
  internal_error: 500,
};

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details: Record<string, unknown> | null };
}

export class ApiError extends Error {
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = STATUS_OF[code];
  }

  toEnvelope(): ErrorEnvelope {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

export class NotFoundError extends ApiError {
  constructor(message = 'The requested resource does not exist.') {
    super('not_found', message);
  }
}

export class ValidationError extends ApiError {
  constructor(readonly messages: string[]) {
    super('validation_error', 'The request parameters are invalid.', { message: messages });
  }
}

/** What a client does when a version it named is gone (docs/api.md, "Paging one version"). */
const AFTER_EXPIRY = {
  snapshot: 'read the list again without `snapshot`',
  since: 'read the whole list again and use its `pagination.snapshot` as the next `since`',
} as const;

/**
 * A well-formed data version that is not (or no longer) readable: `snapshot` of a list or of a
 * changes page, or `since` of a changes page. Replaced versions stay readable at least 60 minutes.
 */
export class SnapshotExpiredError extends ApiError {
  constructor(readonly parameter: keyof typeof AFTER_EXPIRY = 'snapshot') {
    super(
      'snapshot_expired',
      `The data version named by \`${parameter}\` is no longer readable (replaced versions stay readable at least 60 minutes): ${AFTER_EXPIRY[parameter]}.`,
      { parameter },
    );
  }
}

export class InvalidApiKeyError extends ApiError {
  constructor() {
    super('invalid_api_key', 'The Bearer API key is missing, invalid or revoked.');
  }
}

export class SubscriptionRequiredError extends ApiError {
  constructor() {
    super('subscription_required', 'The API key owner has no active premium subscription.');
  }
}

export class ServiceUnavailableError extends ApiError {
  constructor(
    retryAfterSeconds: number,
    readonly dependencyError?: unknown,
  ) {
    super('service_unavailable', 'A required internal dependency is unavailable. Retry later.', null, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

export class InternalError extends ApiError {
  constructor() {
    super('internal_error', 'An unexpected error occurred.');
  }
}

/** A stored item that does not have the shape the import writes: a bug or a corrupted table. */
export class CorruptDataError extends Error {
  constructor(what: string) {
    super(`malformed stored data: ${what}`);
    this.name = 'CorruptDataError';
  }
}

/**
 * A stored item a read names is not there. A replaced version's items are deleted after its
 * retention, so for a version a request pins this means "no longer readable" (410); anywhere else
 * it is corruption like any other (500).
 */
export class MissingItemError extends CorruptDataError {}

/** SDK errors DynamoDB returns for a request it refused as invalid: ours to fix, not an outage. */
const CLIENT_FAULTS = new Set(['ValidationException', 'SerializationException']);

/** SDK errors that mean "the dependency failed", as opposed to a bug of ours. */
export function isDependencyFailure(error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof CorruptDataError || CLIENT_FAULTS.has(error.name)) return false;
  const meta = (error as { $metadata?: unknown; $fault?: string }).$metadata;
  if (meta !== undefined) return true; // every AWS SDK service error carries $metadata
  const name = error.name;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return (
    /Timeout|Abort|Network|Socket|Throttl|ECONN|EPIPE|ENOTFOUND|EAI_AGAIN|ETIMEDOUT/i.test(name) ||
    /ECONN|EPIPE|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET/.test(code)
  );
}
