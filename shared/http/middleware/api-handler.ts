/**
 * Builds a family function: dispatch on the API Gateway resource to the handler of its route's
 * operation, wrapped in the middleware every family shares (request metrics, the buffered
 * response limit, log context, compression, response headers, error envelope, conditional requests, usage quota).
 */
import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import { BudgetMemory } from '../../domain/budget-memory';
import { SLUG_MAX_LENGTH } from '../../platform/constants';
import { NotFoundError, ValidationError } from '../../platform/errors';
import type { ApiDeps } from '../api-deps';
import type { ApiEvent, ApiResult } from '../http';
import { type RequestMetricsInternal, requestMetrics } from '../metrics';
import { type FunctionName, type OperationId, type OperationOf, operationOfResource, transferOf } from '../routes';
import { bufferedLimit } from './buffered-limit';
import { compression } from './compression';
import { conditionalRequests } from './conditional-requests';
import { errorEnvelope, INTERNAL_ERROR_BODY } from './error-envelope';
import { logContext } from './log-context';
import { responseHeaders } from './response-headers';
import { type QuotaContext, type QuotaInternal, usageQuota } from './usage-quota';

/**
 * What the middlewares hand each other on `request.internal`: each field is written by one of
 * them and typed where it is written (the request metrics' scope; the quota's charge and the usage
 * headers the response headers add).
 */
type ApiInternal = RequestMetricsInternal & QuotaInternal;

/** The Lambda context as the route handlers get it: with the request's charge the quota middleware adds (chargedRequest). */
export type ApiContext = QuotaContext;

/** A middleware of the chain: the chain's fields must be what it reads and writes, or this does not compile. */
type ApiMiddleware = middy.MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext, ApiInternal>;

export type RouteHandler = (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;

/** One handler per operation the function serves: a missing one is a compile error. */
export type RouteHandlers<Op extends OperationId> = Record<Op, RouteHandler>;

/**
 * A slug in the path is at most SLUG_MAX_LENGTH characters, as the description declares: a longer
 * one is refused by name (400, checked with the path, before the query and the lookup), not looked
 * up as absent. Characters are code points, as JSON Schema's maxLength counts them.
 */
function checkPathSlug(event: ApiEvent): void {
  const slug = event.pathParameters?.slug;
  if (slug !== undefined && [...slug].length > SLUG_MAX_LENGTH) {
    throw new ValidationError([`slug must not be longer than ${SLUG_MAX_LENGTH} characters`]);
  }
}

export function apiHandler<F extends FunctionName>(fn: F, handlers: RouteHandlers<OperationOf<F>>, deps: ApiDeps) {
  const byOperation: Partial<Record<OperationId, RouteHandler>> = handlers;
  const dispatch = async (event: ApiEvent, context: ApiContext): Promise<ApiResult> => {
    const operation = operationOfResource(event.resource);
    const route = operation && byOperation[operation];
    if (!route) throw new NotFoundError('No such route.');
    checkPathSlug(event);
    return route(event, context);
  };
  // Per function instance: the keys' budgets this instance has seen.
  const memory = new BudgetMemory();
  const chain: ApiMiddleware[] = [
    // First, so that its after/onError run last and record the final status (429s included).
    requestMetrics({ now: deps.clock }),
    // After every other `after` but the metrics': it sees the final body, and the metrics its answer.
    bufferedLimit(transferOf(fn)),
    logContext(),
    // Before the response headers, so that its after/onError compress the final body.
    compression(),
    responseHeaders(),
    // The last resort, after the envelope (onError runs in reverse): an error that ever reached it
    // without an answer would be the internal-error envelope, never middy's bare message.
    httpErrorHandler({ logger: false, fallbackMessage: INTERNAL_ERROR_BODY }),
    errorEnvelope({ retryAfterSeconds: deps.retryAfterSeconds }),
    // Before the quota, so that its `after` sees the answer the quota let through (304 or 200).
    conditionalRequests(),
    usageQuota({
      store: deps.quota,
      defaults: deps.limits,
      retryAfterSeconds: deps.retryAfterSeconds,
      now: deps.clock,
      memory,
    }),
  ];
  return middy<ApiEvent, ApiResult, Error, ApiContext, ApiInternal>(dispatch).use(chain);
}
