/**
 * The deprecation headers of the response-headers step (shared/http/deprecation.ts) on a route
 * table with marks (test/fixtures/deprecated-routes.ts): `Deprecation` (RFC 9745), `Sunset`
 * (RFC 8594) and the policy's `Link`, after a list's own links; and none on the real table.
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../../../local/events';
import type { ApiEvent, ApiResult } from '../../../../shared/http/http';
import { responseHeaders } from '../../../../shared/http/middleware/response-headers';
import { ROUTES, type Route } from '../../../../shared/http/routes';
import { DEPRECATED_ROUTES } from '../../../fixtures/deprecated-routes';

const NEXT = '</prod/api/v1/wallets?limit=1&offset=1&snapshot=v2>; rel="next"';

/** `pathAndQuery` answered `status` (with a list's `Link` when given) through the step, on `routes`. */
async function answer(pathAndQuery: string, routes: readonly Route[], status = 200, link?: string) {
  const event = apiEvent(pathAndQuery);
  event.requestContext.path = `/prod${event.path}`;
  const headers: Record<string, string> = link ? { Link: link } : {};
  const handler = middy<ApiEvent, ApiResult>(async () => ({ statusCode: status, headers, body: '{}' })).use(
    responseHeaders({ routes }),
  );
  return (await handler(event, {} as Context)).headers ?? {};
}

describe('responseHeaders: deprecation', () => {
  it('marks every answer of a deprecated route, its errors too, with the dates and the policy on the base path', async () => {
    for (const status of [200, 400, 404]) {
      const headers = await answer('/api/v1/wallets', DEPRECATED_ROUTES, status);
      expect([status, headers.Deprecation, headers.Sunset, headers.Link]).toEqual([
        status,
        '@1796083200', // 2026-12-01T00:00:00Z
        'Tue, 01 Jun 2027 00:00:00 GMT',
        '</prod/docs>; rel="deprecation"; type="text/html"',
      ]);
    }
  });

  it("adds the policy's link after a list's own links instead of replacing them", async () => {
    const headers = await answer('/api/v1/wallets?limit=1', DEPRECATED_ROUTES, 200, NEXT);
    expect(headers.Link).toBe(`${NEXT}, </prod/docs>; rel="deprecation"; type="text/html"`);
  });

  it('marks the answer of a request that sends a deprecated parameter, and only that one', async () => {
    const sent = await answer('/api/v1/earn?min_apy=5', DEPRECATED_ROUTES);
    // 2027-01-15T00:00:00Z
    expect([sent.Deprecation, sent.Sunset]).toEqual(['@1799971200', 'Thu, 15 Jul 2027 00:00:00 GMT']);
    const without = await answer('/api/v1/earn?min_tvl=5', DEPRECATED_ROUTES);
    expect(without).not.toHaveProperty(['Deprecation']);
    expect(without).not.toHaveProperty(['Link']);
  });

  it('leaves every other route alone, and nothing is deprecated in the real route table', async () => {
    const other = await answer('/api/v1/exchanges', DEPRECATED_ROUTES, 200, NEXT);
    expect([other.Deprecation, other.Sunset, other.Link]).toEqual([undefined, undefined, NEXT]);
    expect(ROUTES.filter((route: Route) => route.deprecated)).toEqual([]);
    const real = await answer('/api/v1/wallets?min_apy=5', ROUTES);
    expect(real).not.toHaveProperty(['Deprecation']);
  });
});
