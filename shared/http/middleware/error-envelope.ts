/**
 * The one place errors become the envelope (docs/api.md, "Errors"). Typed ApiErrors render as
 * they are; DynamoDB and network failures become 503 `service_unavailable` with Retry-After; any
 * other error is logged and becomes 500 `internal_error`. No stack trace, SDK message or table
 * name reaches a client. The middleware writes the response itself: the envelope object is
 * serialized once, as the body, never carried as an error message and parsed back.
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

/** The answer of an error: its status, its headers (Retry-After, …) and the envelope as JSON. */
export function errorResponse(error: ApiError): ApiResult {
  return {
    statusCode: error.statusCode,
    headers: { 'Content-Type': JSON_CONTENT_TYPE, ...error.headers },
    body: JSON.stringify(error.toEnvelope()),
  };
}

/** The body of a 500 `internal_error`, for an answer refused after the handler (buffered-limit.ts). */
export const INTERNAL_ERROR_BODY = errorResponse(new InternalError()).body;

export function errorEnvelope(options: { retryAfterSeconds: number }): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const errorEnvelopeOnError: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    if (request.response !== undefined) return;
    request.response = errorResponse(toApiError(request.error, options.retryAfterSeconds));
  };
  return { onError: errorEnvelopeOnError };
}
