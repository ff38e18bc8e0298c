/**
 * Headers every response carries: CORS, the usage headers of the request's charge (when it was
 * charged), the request id, the one JSON content type on every body (errors included),
 * `Vary: Accept-Encoding`, `Cache-Control: no-store` unless the answer says what may be kept
 * (conditional-requests.ts), and on the answers of a deprecated route or parameter of the route
 * table `Deprecation`, `Sunset` and the policy's `Link` (../deprecation.ts).
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { CORS_HEADERS } from '../cors';
import { deprecationHeaders, deprecationOf } from '../deprecation';
import { JSON_CONTENT_TYPE } from '../gateway-responses';
import { type ApiEvent, type ApiResult, CACHE_CONTROL, varyOnEncoding } from '../http';
import { ROUTES, type Route, routesByResource } from '../routes';
import type { QuotaInternal } from './usage-quota';

/** It reads the usage headers the quota middleware settled. */
type ResponseHeadersInternal = Pick<QuotaInternal, 'usageHeaders'>;

export interface ResponseHeadersOptions {
  /** The route table whose deprecation marks apply (a test passes its own). */
  routes?: readonly Route[];
}

export function responseHeaders({
  routes = ROUTES,
}: ResponseHeadersOptions = {}): middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context, ResponseHeadersInternal> {
  const byResource = routesByResource(routes);
  const addHeaders: middy.MiddlewareFn<ApiEvent, ApiResult, Error, Context, ResponseHeadersInternal> = async (
    request,
  ) => {
    if (!request.response) return;
    const usage = request.internal.usageHeaders ?? {};
    const requestId = request.event.requestContext?.requestId ?? request.context?.awsRequestId;
    const headers: Record<string, string | number | boolean> = {
      ...CORS_HEADERS,
      ...(request.response.headers ?? {}),
      ...usage,
    };
    if (requestId) headers['X-Request-Id'] = requestId;
    headers['Cache-Control'] ??= CACHE_CONTROL.none;
    headers.Vary = varyOnEncoding(headers.Vary);
    const { event } = request;
    const deprecation = deprecationOf(
      byResource.get(event.resource),
      Object.keys(event.multiValueQueryStringParameters ?? event.queryStringParameters ?? {}),
    );
    if (deprecation) {
      const link = headers.Link === undefined ? undefined : String(headers.Link);
      Object.assign(headers, deprecationHeaders(deprecation, event.requestContext?.path ?? event.path, link));
    }
    // Bodies are JSON: one content type for all, a handler's bare `application/json` included.
    if (request.response.body && (!headers['Content-Type'] || headers['Content-Type'] === 'application/json'))
      headers['Content-Type'] = JSON_CONTENT_TYPE;
    request.response = { ...request.response, headers };
  };
  return { after: addHeaders, onError: addHeaders };
}
