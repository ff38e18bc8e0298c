/**
 * Conditional requests (docs/api.md, "Conditional requests and caching"): every 200 of a list or
 * detail carries a strong ETag computed from its body bytes and its content coding, so it changes
 * when and only when the body does and costs no read beyond the answer's own; a request whose
 * If-None-Match matches it answers 304 with no body, keeping the 200's `Last-Modified` (set by the
 * handler, shared/http/answers.ts). `If-Modified-Since` is not evaluated: the ETag is the validator (two
 * versions published within one second share an HTTP-date). It runs after the quota middleware: a
 * 304 is charged like any answer, and a refusal is never turned into one. History and usage
 * answers carry no ETag.
 */
import { createHash } from 'node:crypto';
import type middy from '@middy/core';
import { type ApiEvent, type ApiResult, CACHE_CONTROL, headerValues } from '../http';
import { kindOfOperation, operationOfResource } from '../routes';
import { type ContentCoding, codingOf } from './compression';

/**
 * A strong entity tag of a body: 128 bits of its SHA-256, base64url (RFC 9110 §8.8.3), and the
 * content coding it goes out in, if any (`"…-gzip"`): the coded bytes are another representation,
 * so they have another tag, which changes exactly when the body does.
 * @internal (exported for its tests)
 */
export function strongEtag(body: string, coding?: ContentCoding): string {
  const digest = createHash('sha256').update(body, 'utf8').digest().subarray(0, 16).toString('base64url');
  return `"${digest}${coding ? `-${coding}` : ''}"`;
}

/**
 * Whether an If-None-Match field value matches the current representation's tag, by RFC 9110
 * §13.1.2: `*` matches any; otherwise a list of entity tags compared weakly (`W/` ignored). A
 * value that holds no entity tag matches nothing, so the full answer goes out.
 * @internal (exported for its tests)
 */
export function ifNoneMatchMatches(values: readonly string[], etag: string): boolean {
  const opaque = etag.replace(/^W\//, '');
  for (const value of values) {
    if (value.trim() === '*') return true;
    for (const [, tag] of value.matchAll(/(?:W\/)?("[^"]*")/g)) if (tag === opaque) return true;
  }
  return false;
}

const hasEtag = (event: ApiEvent) => {
  const operation = operationOfResource(event.resource);
  const kind = operation && kindOfOperation(operation);
  return kind === 'list' || kind === 'detail';
};

export function conditionalRequests(): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const conditionalRequestsAfter: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    const response = request.response;
    if (response?.statusCode !== 200 || !hasEtag(request.event)) return;
    // The tag of the representation this request gets: the coding decided as compression.ts will.
    const etag = strongEtag(response.body, codingOf(request.event, response.body));
    const headers: NonNullable<ApiResult['headers']> = {
      ...(response.headers ?? {}),
      ETag: etag,
      'Cache-Control': CACHE_CONTROL.revalidate,
    };
    if (ifNoneMatchMatches(headerValues(request.event, 'If-None-Match'), etag)) {
      // RFC 9110 §15.4.5: the validators (ETag, Last-Modified) and cache headers a 200 would carry, no
      // body, no content metadata; no Link either (it belongs to the body the client already holds).
      const { 'Content-Type': _type, Link: _link, ...kept } = headers;
      request.response = { statusCode: 304, headers: kept, body: '' };
      return;
    }
    request.response = { ...response, headers };
  };
  return { after: conditionalRequestsAfter };
}
