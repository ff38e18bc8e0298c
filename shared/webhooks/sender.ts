/**
 * One attempt of a delivery (CONTRACT §14 "Signed", "Delivered at least once"): the body POSTed
 * with the Standard Webhooks headers, signed by the `standardwebhooks` package with the
 * subscription's secret, to the address the target check returned (the connection is pinned to it:
 * the host name is never resolved again), within a deadline for the whole exchange. No redirect is
 * followed: a 3xx is an answer like any non-2xx, a failure.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { CheckedTarget } from './target';

/** A 2xx within this long is a success. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface AttemptOutcome {
  ok: boolean;
  /** The HTTP status answered, or null when none came. */
  status: number | null;
  /** A short reason when it failed. */
  error: string | null;
}

/** The Standard Webhooks headers of one attempt. */
export function signedHeaders(secret: string, id: string, at: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

/** A lookup that answers the checked address whatever it is asked. */
const pinned =
  (target: CheckedTarget): LookupFunction =>
  (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };

export function postSigned(
  url: URL,
  target: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number = ATTEMPT_TIMEOUT_MS,
): Promise<AttemptOutcome> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'market-data-webhooks',
        },
        lookup: pinned(target),
        // One connection per attempt: a pooled one could have been opened to another address.
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? null;
        // The answer's body is read and dropped: the status decides.
        response.resume();
        response.on('end', () => {
          const ok = status !== null && status >= 200 && status < 300;
          done({ ok, status, error: ok ? null : `HTTP ${status}` });
        });
        response.on('error', () => done({ ok: false, status, error: 'connection_error' }));
      },
    );
    const timer = setTimeout(() => {
      done({ ok: false, status: null, error: 'timeout' });
      request.destroy();
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      done({
        ok: false,
        status: null,
        error: error.code === 'ECONNREFUSED' ? 'connection_refused' : 'connection_error',
      }),
    );
    request.end(body);
  });
}
