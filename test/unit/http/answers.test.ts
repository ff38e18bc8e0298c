/**
 * Lists and details as answers (shared/http/answers.ts): `Link` (RFC 8288) to the neighbouring pages of
 * the same version, relative to the request's base path with its parameters; `Last-Modified` as an
 * HTTP-date; the bodies of a list and of a changes page.
 */

import { parseLinkHeader } from '../../../client';
import { apiEvent } from '../../../local/events';
import {
  changesResult,
  docResult,
  historiesResult,
  httpDate,
  linkHeader,
  listResult,
} from '../../../shared/http/answers';
import type { ApiEvent } from '../../../shared/http/http';

const SNAPSHOT = 'v20261120T1000Z-2c41';
const page = (offset: number, limit: number, total: number, snapshot = SNAPSHOT) => ({
  total,
  offset,
  limit,
  has_more: offset + limit < total,
  snapshot,
});

/** A request as API Gateway passes it, with the path as the client sent it (a stage or base path in front). */
function event(pathAndQuery: string, basePath = ''): ApiEvent {
  const e = apiEvent(pathAndQuery);
  return { ...e, requestContext: { ...e.requestContext, path: `${basePath}${e.path}` } };
}

const links = (e: ApiEvent, p: ReturnType<typeof page>) => parseLinkHeader(linkHeader(e, p) ?? null);

describe('linkHeader', () => {
  it('names the next page while has_more, at offset + limit, pinned to the page snapshot', () => {
    expect(linkHeader(event('/api/v1/earn?limit=50'), page(0, 50, 120))).toBe(
      `</api/v1/earn?limit=50&offset=50&snapshot=${SNAPSHOT}>; rel="next"`,
    );
  });

  it('names the previous page when offset > 0, at max(0, offset - limit)', () => {
    expect(links(event('/api/v1/earn?offset=100&limit=50'), page(100, 50, 200))).toEqual({
      next: `/api/v1/earn?offset=150&limit=50&snapshot=${SNAPSHOT}`,
      prev: `/api/v1/earn?offset=50&limit=50&snapshot=${SNAPSHOT}`,
    });
    expect(links(event('/api/v1/earn?offset=30&limit=50'), page(30, 50, 60)).prev).toBe(
      `/api/v1/earn?offset=0&limit=50&snapshot=${SNAPSHOT}`,
    );
  });

  it('gives the last page only prev, and a list in one page no Link at all', () => {
    expect(links(event('/api/v1/exchanges?offset=100'), page(100, 50, 120))).toEqual({
      prev: `/api/v1/exchanges?offset=50&snapshot=${SNAPSHOT}`,
    });
    expect(linkHeader(event('/api/v1/exchanges'), page(0, 50, 12))).toBeUndefined();
  });

  it('names a page past the end its prev, and none next', () => {
    expect(links(event('/api/v1/wallets?offset=500&limit=200'), page(500, 200, 30))).toEqual({
      prev: `/api/v1/wallets?offset=300&limit=200&snapshot=${SNAPSHOT}`,
    });
  });

  it('keeps every parameter of the request in its order, with offset and snapshot replaced in place', () => {
    const e = event(`/api/v1/earn?asset=tether,usd-coin&snapshot=old_1&sort=tvl_desc&offset=20&limit=20&min_tvl=1e6`);
    expect(links(e, page(20, 20, 100)).next).toBe(
      `/api/v1/earn?asset=tether,usd-coin&snapshot=${SNAPSHOT}&sort=tvl_desc&offset=40&limit=20&min_tvl=1e6`,
    );
  });

  it('percent-encodes what the query needs encoded, leaving the commas of a list', () => {
    const e = event('/api/v1/earn?platform=a%26b,c%3Dd&asset=%C3%A9t%C3%A9');
    const next = links(e, page(0, 50, 100)).next;
    expect(next).toBe(`/api/v1/earn?platform=a%26b,c%3Dd&asset=%C3%A9t%C3%A9&offset=50&snapshot=${SNAPSHOT}`);
    const params = new URL(next, 'https://api.example').searchParams;
    expect([params.get('platform'), params.get('asset')]).toEqual(['a&b,c=d', 'été']);
  });

  it('is relative to the base path of the request: a stage or a custom domain mapping', () => {
    expect(links(event('/api/v1/borrow?limit=10', '/prod'), page(0, 10, 30)).next).toBe(
      `/prod/api/v1/borrow?limit=10&offset=10&snapshot=${SNAPSHOT}`,
    );
  });

  it('carries the changes parameters too (since kept, snapshot pinned)', () => {
    expect(links(event('/api/v1/earn/changes?since=v1&limit=2'), page(0, 2, 5)).next).toBe(
      `/api/v1/earn/changes?since=v1&limit=2&offset=2&snapshot=${SNAPSHOT}`,
    );
  });

  it('is read back by a standard parser into the same references (client/index.ts)', () => {
    const e = event('/api/v1/earn?asset=a,b&offset=10&limit=10');
    const header = linkHeader(e, page(10, 10, 100))!;
    expect(header).toMatch(/^<[^<>]+>; rel="next", <[^<>]+>; rel="prev"$/);
    expect(parseLinkHeader(header)).toEqual({
      next: `/api/v1/earn?asset=a,b&offset=20&limit=10&snapshot=${SNAPSHOT}`,
      prev: `/api/v1/earn?asset=a,b&offset=0&limit=10&snapshot=${SNAPSHOT}`,
    });
  });
});

describe('httpDate', () => {
  it.each([
    ['2026-11-20T10:00:00.000Z', 'Fri, 20 Nov 2026 10:00:00 GMT'],
    ['2026-02-01T00:00:05.999Z', 'Sun, 01 Feb 2026 00:00:05 GMT'],
    ['1994-11-15T08:12:31Z', 'Tue, 15 Nov 1994 08:12:31 GMT'],
  ])('writes %s as the IMF-fixdate %s', (iso, date) => {
    expect(httpDate(iso)).toBe(date);
  });

  it('refuses what is not an instant', () => {
    expect(() => httpDate('yesterday')).toThrow();
  });
});

describe('answers', () => {
  it('a list: { data, pagination } with snapshot, Link and Last-Modified', () => {
    const result = listResult(event('/api/v1/earn?limit=1'), {
      docs: ['{"id":1}'],
      page: page(0, 1, 2),
      lastModified: '2026-11-20T10:00:00.000Z',
    });
    expect(JSON.parse(result.body)).toEqual({ data: [{ id: 1 }], pagination: page(0, 1, 2) });
    expect(result.headers).toMatchObject({
      'Content-Type': 'application/json; charset=utf-8',
      'Last-Modified': 'Fri, 20 Nov 2026 10:00:00 GMT',
      Link: `</api/v1/earn?limit=1&offset=1&snapshot=${SNAPSHOT}>; rel="next"`,
    });
  });

  it('a changes page: { since, snapshot, data, pagination }', () => {
    const data = '[{"id":3,"change":"removed","offer":null}]';
    const result = changesResult(event('/api/v1/borrow/changes?since=v1'), {
      since: 'v1',
      snapshot: SNAPSHOT,
      data,
      page: page(0, 50, 1),
      lastModified: '2026-11-20T10:00:00.000Z',
    });
    expect(JSON.parse(result.body)).toEqual({
      since: 'v1',
      snapshot: SNAPSHOT,
      data: JSON.parse(data),
      pagination: page(0, 50, 1),
    });
    expect(result.headers?.Link).toBeUndefined();
    expect(result.headers?.['Last-Modified']).toBe('Fri, 20 Nov 2026 10:00:00 GMT');
  });

  it('a detail: the document and Last-Modified, no Link', () => {
    const result = docResult({ doc: '{"slug":"binance"}', lastModified: '2026-11-19T23:59:59.000Z' });
    expect(result.body).toBe('{"slug":"binance"}');
    expect(result.headers).toEqual({
      'Content-Type': 'application/json; charset=utf-8',
      'Last-Modified': 'Thu, 19 Nov 2026 23:59:59 GMT',
    });
  });
});

describe('historiesResult', () => {
  const windows = JSON.stringify({
    data: [
      {
        id: 12,
        period: '24h',
        interval: '1h',
        from: 'f',
        to: 't',
        point_count: 2,
        data: [
          { timestamp: '2026-11-20T09:00:00.000Z', apy: '-0.5', tvl: null },
          { timestamp: '2026-11-20T10:00:00.000Z', apy: '4.1', tvl: '7' },
        ],
      },
      {
        id: 3,
        period: '24h',
        interval: '1h',
        from: 'f',
        to: 't',
        point_count: 1,
        data: [{ timestamp: '2026-11-20T10:00:00.000Z', apy: '2', tvl: '1' }],
      },
    ],
  });
  const withAccept = (accept: string): ApiEvent => ({
    ...apiEvent('/api/v1/earn/1/history'),
    multiValueHeaders: { Accept: [accept] },
  });

  it('answers several windows as CSV rows, in the order of the entries, each with its offer id', () => {
    const result = historiesResult(withAccept('text/csv'), 'earn', windows);
    expect(result.headers).toMatchObject({ 'Content-Type': 'text/csv; charset=utf-8', Vary: 'Accept' });
    expect(result.body).toBe(
      'id,timestamp,apy,tvl\r\n12,2026-11-20T09:00:00.000Z,-0.5,\r\n12,2026-11-20T10:00:00.000Z,4.1,7\r\n3,2026-11-20T10:00:00.000Z,2,1\r\n',
    );
  });

  it('answers the JSON text as it is otherwise, varying on Accept', () => {
    const result = historiesResult(withAccept('application/json'), 'earn', windows);
    expect(result.body).toBe(windows);
    expect(result.headers).toMatchObject({ 'Content-Type': 'application/json; charset=utf-8', Vary: 'Accept' });
  });
});
