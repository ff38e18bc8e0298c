/**
 * Headers every response carries: CORS, the usage headers of the request's charge (when it was
 * charged), the request id, the one JSON content type on every body (errors included),
 * `Vary: Accept-Encoding`, and `Cache-Control: no-store` unless the answer says what may be kept
 * (conditional-requests.ts).
 */
import type middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { CORS_HEADERS } from '../cors';
import { JSON_CONTENT_TYPE } from '../gateway-responses';
import { type ApiEvent, type ApiResult, CACHE_CONTROL, varyOnEncoding } from '../http';
import type { QuotaInternal } from './usage-quota';

/** It reads the usage headers the quota middleware settled. */
type ResponseHeadersInternal = Pick<QuotaInternal, 'usageHeaders'>;

export function responseHeaders(): middy.MiddlewareObj<ApiEvent, ApiResult, Error, Context, ResponseHeadersInternal> {
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
    // Bodies are JSON: one content type for all, errors included (http-error-handler writes a bare `application/json`).
    if (request.response.body && (!headers['Content-Type'] || headers['Content-Type'] === 'application/json'))
      headers['Content-Type'] = JSON_CONTENT_TYPE;
    request.response = { ...request.response, headers };
  };
  return { after: addHeaders, onError: addHeaders };
}
