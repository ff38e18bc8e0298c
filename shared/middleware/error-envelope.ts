/**
 * The one place errors become the envelope of specification part 7. Typed ApiErrors render as
 * they are; DynamoDB and network failures become 503 `service_unavailable` with Retry-After; any
 * other error is logged and becomes 500 `internal_error`. No stack trace, SDK message or table
 * name reaches a client. @middy/http-error-handler then writes the HTTP response.
 */
import type middy from '@middy/core';
import { ApiError, InternalError, isDependencyFailure, ServiceUnavailableError } from '../errors';
import type { ApiEvent, ApiResult } from '../http';
import { logger } from '../logger';

export function toApiError(error: unknown, retryAfterSeconds: number): ApiError {
  if (error instanceof ApiError) return error;
  if (isDependencyFailure(error)) {
    logger.error('dependency failure', { error });
    return new ServiceUnavailableError(retryAfterSeconds, error);
  }
  logger.error('unhandled error', { error, stack: (error as Error)?.stack });
  return new InternalError();
}

/** The shape @middy/http-error-handler renders: a JSON message is sent as application/json. */
export const httpErrorOf = (error: ApiError) => ({
  statusCode: error.statusCode,
  expose: true,
  headers: error.headers,
  message: JSON.stringify(error.toEnvelope()),
});

export const INTERNAL_ERROR_BODY = JSON.stringify(new InternalError().toEnvelope());

export function errorEnvelope(options: { retryAfterSeconds: number }): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const errorEnvelopeOnError: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    if (request.response !== undefined) return;
    request.error = httpErrorOf(toApiError(request.error, options.retryAfterSeconds)) as unknown as Error;
  };
  return { onError: errorEnvelopeOnError };
}
