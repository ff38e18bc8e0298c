/**
 * One CloudWatch Embedded Metric Format line per request, per route: requests, latency, the
 * DynamoDB work the request did (calls, sequential round trips, consumed capacity, from
 * dynamo-accounting) and its outcome class. It must be the first middleware of the chain, so that
 * its `after` and `onError` run last and see the final status: error envelopes and 429s included.
 */
import { performance } from 'node:perf_hooks';
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type AccountingSummary, enterRequestAccounting, type RequestAccounting } from '../platform/dynamo-accounting';
import { logger } from '../platform/logger';
import { METRICS_NAMESPACE, REQUEST_METRICS, type RequestMetricName, ROUTE_DIMENSION } from '../platform/metric-names';
import type { ApiEvent, ApiResult } from './http';
import { operationOfResource } from './routes';

/** @internal (exported for its tests) */
/** @internal (exported for its tests) */
export { METRICS_NAMESPACE, REQUEST_METRICS };

/**
 * The route's operationId (the metric dimension), from the API Gateway resource of the event.
 * @internal (exported for its tests)
 */
export const routeOf = (event: ApiEvent): string => operationOfResource(event?.resource) ?? 'unknown';

export interface RequestMetricsOptions {
  /** The function's clock, for the EMF timestamp. */
  now: () => Date;
}

/**
 * The metric values of one request from its final status, duration and DynamoDB work.
 * @internal (exported for its tests)
 */
export function requestMetricValues(
  statusCode: number,
  latencyMs: number,
  work: AccountingSummary,
): Record<RequestMetricName, number> {
  return {
    Requests: 1,
    Latency: Math.round(latencyMs * 100) / 100,
    ConsumedReadCapacity: work.readCapacity,
    ConsumedWriteCapacity: work.writeCapacity,
    DynamoCalls: work.calls,
    RoundTrips: work.roundTrips,
    // 429 is also a 4xx, as in API Gateway's 4XXError.
    Errors4xx: statusCode >= 400 && statusCode < 500 ? 1 : 0,
    Errors5xx: statusCode >= 500 ? 1 : 0,
    QuotaRefusals: statusCode === 429 ? 1 : 0,
    CacheHits: work.cacheHits,
    CacheMisses: work.cacheMisses,
    CacheBytes: work.cacheBytes,
    IndexLoads: work.indexLoads,
  };
}

/**
 * The EMF document: metadata under `_aws`, the dimension and the values at the root.
 * @internal (exported for its tests)
 */
export function emfDocument(
  route: string,
  values: Record<RequestMetricName, number>,
  timestamp: number,
): Record<string, unknown> {
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [[ROUTE_DIMENSION]],
          Metrics: Object.entries(REQUEST_METRICS).map(([Name, Unit]) => ({ Name, Unit })),
        },
      ],
    },
    [ROUTE_DIMENSION]: route,
    ...values,
  };
}

/** What the request metrics write on `request.internal`, from their `before` to their `after` / `onError`. */
export type RequestMetricsInternal = {
  /** The request's DynamoDB accounting scope and its start. */
  requestMetrics?: { accounting: RequestAccounting; start: number };
};

type MetricsFn = middy.MiddlewareFn<ApiEvent, ApiResult, Error, Context, RequestMetricsInternal>;

export function requestMetrics(
  options: RequestMetricsOptions,
): middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context, RequestMetricsInternal> {
  const { now } = options;

  // Synchronous up to enterWith: the scope must be set in the invocation's own async context,
  // before the next middleware (the quota charge) and the handler start their calls.
  const requestMetricsBefore: MetricsFn = async (request) => {
    request.internal.requestMetrics = { accounting: enterRequestAccounting(), start: performance.now() };
  };

  const emitRequestMetrics: MetricsFn = async (request) => {
    const scope = request.internal.requestMetrics;
    if (!scope) return;
    delete request.internal.requestMetrics;
    const latency = performance.now() - scope.start;
    const work = scope.accounting.close();
    // No response here means the error escapes every middleware: the client sees a 5xx.
    const statusCode = request.response?.statusCode ?? 500;
    logger.metric(emfDocument(routeOf(request.event), requestMetricValues(statusCode, latency, work), now().getTime()));
  };

  return { before: requestMetricsBefore, after: emitRequestMetrics, onError: emitRequestMetrics };
}
