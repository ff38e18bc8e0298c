/**
 * The one place errors become the envelope (docs/api.md, "Errors"). Typed ApiErrors render as
 * they are; DynamoDB and network failures become 503 `service_unavailable` with Retry-After; any
 * other error is logged and becomes 500 `internal_error`. No stack trace, SDK message or table
 * name reaches a client. @middy/http-error-handler then writes the HTTP response.
 */
import type middy from '@middy/core';
import { ApiError, InternalError, isDependencyFailure, ServiceUnavailableError } from '../../platform/errors';
import { logger } from '../../platform/logger';
import { JSON_CONTENT_TYPE } from '../gateway-responses';
import type { ApiEvent, ApiResult } from '../http';

export function toApiError(error: unknown, retryAfterSeconds: number): ApiError {
  if (error instanceof ApiError) return error;
  if (isDependencyFailure(error)) {
    logger.error('dependency failure', { error });
    return new ServiceUnavailableError(retryAfterSeconds, error);
  }
  logger.error('unhandled error', { error, stack: (error as Error)?.stack });
  return new InternalError();
}

/**
 * The error @middy/http-error-handler is written for: an exposed Error with its status, its
 * headers and the body as `message`. The handler labels a JSON message `application/json`; the
 * response headers middleware gives it the charset every answer names.
 * @internal (exported for its tests)
 */
export class HttpErrorResponse extends Error {
  readonly statusCode: number;
  readonly expose = true;
  readonly headers: Record<string, string>;

  constructor(error: ApiError) {
    super(JSON.stringify(error.toEnvelope()));
    this.name = 'HttpErrorResponse';
    this.statusCode = error.statusCode;
    this.headers = { 'Content-Type': JSON_CONTENT_TYPE, ...error.headers };
  }
}

export const INTERNAL_ERROR_BODY = JSON.stringify(new InternalError().toEnvelope());

export function errorEnvelope(options: { retryAfterSeconds: number }): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const errorEnvelopeOnError: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    if (request.response !== undefined) return;
    request.error = new HttpErrorResponse(toApiError(request.error, options.retryAfterSeconds));
  };
  return { onError: errorEnvelopeOnError };
}
