/** API Gateway REST proxy events for the real handlers, as API Gateway builds them after the authorizer (tests, benchmark). */
import type { ApiEvent } from '../shared/http/http';
import { matchRoute } from '../shared/http/routes';
import { proxyEvent } from './gateway';

export interface EventOptions {
  keyId?: string | null;
  perMinute?: number;
  perMonth?: number;
  /** The event's `requestTimeEpoch` (default 0): the handlers take the time from their clock, not from it. */
  requestTime?: number;
}

let counter = 0;

/** A REST proxy event for `GET path?query`, as API Gateway builds it after the authorizer. */
export function apiEvent(pathAndQuery: string, options: EventOptions = {}): ApiEvent {
  const url = new URL(pathAndQuery, 'http://test');
  const match = matchRoute('GET', url.pathname);
  if (!match) throw new Error(`no route for ${url.pathname}`);
  const keyId = options.keyId === undefined ? `test-key-${++counter}` : options.keyId;
  return proxyEvent({
    url,
    match,
    requestId: `req-${counter}`,
    requestTime: options.requestTime ?? 0,
    authorizer: keyId === null ? null : { keyId, perMinute: options.perMinute, perMonth: options.perMonth },
  });
}
