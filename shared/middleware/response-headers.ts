/**
 * Headers every response carries: CORS, the usage headers of the request's charge (when it was
 * charged), the request id, JSON content type on bodies that name none (error bodies come with
 * theirs, error-envelope.ts), and `Cache-Control: no-store` unless the answer says what may be
 * kept (conditional-requests.ts).
 */
import type middy from '@middy/core';
import { CORS_HEADERS } from '../cors';
import { CACHE_CONTROL, type ApiEvent, type ApiResult } from '../http';
import { USAGE_HEADERS, type WithUsageHeaders } from './usage-quota';

export function responseHeaders(): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const addHeaders: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    if (!request.response) return;
    const usage = (request.internal as WithUsageHeaders)[USAGE_HEADERS] ?? {};
    const requestId = request.event.requestContext?.requestId ?? request.context?.awsRequestId;
    const headers: Record<string, string | number | boolean> = { ...CORS_HEADERS, ...(request.response.headers ?? {}), ...usage };
    if (requestId) headers['X-Request-Id'] = requestId;
    headers['Cache-Control'] ??= CACHE_CONTROL.none;
    if (request.response.body && !headers['Content-Type']) headers['Content-Type'] = 'application/json; charset=utf-8';
    request.response = { ...request.response, headers };
  };
  return { after: addHeaders, onError: addHeaders };
}
