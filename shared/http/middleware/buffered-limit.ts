/**
 * A buffered function's answer that Lambda would refuse (its proxy result over 6 MB, ADR 0014):
 * the invocation would fail and API Gateway answer DEFAULT_5XX, a 500 the function never saw and
 * its metrics line counted as a 200. The function answers that 500 itself instead, in the error
 * envelope with the request's headers, logged and counted. A streamed function has no such limit.
 */
import type middy from '@middy/core';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../platform/constants';
import { logger } from '../../platform/logger';
import { JSON_CONTENT_TYPE } from '../gateway-responses';
import type { ApiEvent, ApiResult } from '../http';
import type { Transfer } from '../routes';
import { INTERNAL_ERROR_BODY } from './error-envelope';

/** The headers that described the refused body, not the envelope. */
const BODY_HEADERS = new Set(['content-encoding', 'content-length', 'etag', 'content-type']);

/** The bytes Lambda counts: the proxy result's JSON (a body of n bytes is at least n of it). */
function proxyResultBytes(result: ApiResult): number {
  if (Buffer.byteLength(result.body) <= LAMBDA_RESPONSE_LIMIT_BYTES / 2) return 0;
  return Buffer.byteLength(JSON.stringify(result));
}

export function bufferedLimit(transfer: Transfer): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const bufferedLimitAfter: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    const { response } = request;
    if (transfer === 'stream' || !response) return;
    const bytes = proxyResultBytes(response);
    if (bytes <= LAMBDA_RESPONSE_LIMIT_BYTES) return;
    logger.error('answer over the buffered response limit', { bytes, limit: LAMBDA_RESPONSE_LIMIT_BYTES });
    const kept = Object.entries(response.headers ?? {}).filter(([name]) => !BODY_HEADERS.has(name.toLowerCase()));
    request.response = {
      statusCode: 500,
      headers: { ...Object.fromEntries(kept), 'Content-Type': JSON_CONTENT_TYPE },
      body: INTERNAL_ERROR_BODY,
    };
  };
  return { after: bufferedLimitAfter };
}
