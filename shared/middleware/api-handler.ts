/**
 * Builds a family function: dispatch on the API Gateway resource to the route's handler, wrapped
 * in the middleware every family shares (request metrics, usage quota, error envelope, response
 * headers).
 */
import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import { config } from '../config';
import { counterClient } from '../dynamodb';
import { NotFoundError } from '../errors';
import type { ApiEvent, ApiResult } from '../http';
import { requestMetrics } from '../observability/metrics';
import { QuotaStore } from '../repositories/quota-store';
import { errorEnvelope, INTERNAL_ERROR_BODY } from './error-envelope';
import { logContext } from './log-context';
import { responseHeaders } from './response-headers';
import { usageQuota, type UsageQuotaOptions } from './usage-quota';

export type RouteHandler = (event: ApiEvent) => Promise<ApiResult>;

export interface ApiHandlerOptions {
  /** Overrides for tests: the quota store, the clock. */
  quota?: Partial<UsageQuotaOptions>;
}

let quotaStore: QuotaStore | undefined;
const defaultQuotaStore = () => (quotaStore ??= new QuotaStore(counterClient(), config().tableName));

/** Forget module-level stores (tests and the local stack swap the client). */
export const resetApiHandlerState = () => {
  quotaStore = undefined;
};

export function apiHandler(routes: Record<string, RouteHandler>, options: ApiHandlerOptions = {}) {
  const dispatch = async (event: ApiEvent): Promise<ApiResult> => {
    const route = routes[event.resource];
    if (!route) throw new NotFoundError('No such route.');
    return route(event);
  };
  const retryAfterSeconds = () => config().retryAfterSeconds;
  return middy<ApiEvent, ApiResult>(dispatch)
    // First, so that its after/onError run last and record the final status (429s included).
    .use(requestMetrics())
    .use(logContext())
    .use(responseHeaders())
    .use(httpErrorHandler({ logger: false, fallbackMessage: INTERNAL_ERROR_BODY }))
    .use(errorEnvelope({ retryAfterSeconds }))
    .use(
      usageQuota({
        store: defaultQuotaStore,
        defaults: () => ({ perMinute: config().ratePerMinute, perMonth: config().quotaPerMonth }),
        retryAfterSeconds,
        ...options.quota,
      }),
    );
}
