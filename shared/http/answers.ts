/**
 * Lists and details of the served data as HTTP answers (docs/api.md, "Paging one version" and
 * "Freshness"): the body, `Last-Modified` (when the newest data version the body depends on was
 * published) and, on a list, `Link` (RFC 8288) to the next and previous pages of the same version.
 * Offer lists and history windows come in JSON or, to `Accept: text/csv`, in CSV (csv.ts, written
 * from the same documents). The ETag and `304` come after, from the body
 * (middleware/conditional-requests.ts). The answers are the domain's own types (a Page, a Detail,
 * a ChangesPage).
 */
import type { HistoryFamily, OfferFamily } from '../data/keys';
import type { ChangesPage } from '../domain/changes';
import type { Includes } from '../domain/offers';
import type { Detail, Page } from '../domain/page';
import { acceptsCsv, CSV_CONTENT_TYPE, historyCsv, offersCsv } from './csv';
import { type ApiEvent, type ApiResult, jsonResult, listBody } from './http';

/** An ISO 8601 instant as an HTTP-date (RFC 9110 §5.6.7, IMF-fixdate): `Tue, 15 Nov 1994 08:12:31 GMT`. */
export function httpDate(iso: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) throw new Error(`not an instant: ${iso}`);
  return new Date(time).toUTCString();
}

/** Query text: each value percent-encoded, the commas of a list left as they are (they delimit nothing else here). */
const encodeQueryPart = (text: string) => encodeURIComponent(text).replace(/%2C/g, ',');

/**
 * The relative reference of the same request at another offset, pinned to `snapshot`: the path as
 * the client sent it (its base path and stage included), its parameters in their order with
 * `offset` and `snapshot` replaced (or added at the end).
 */
function pageReference(event: ApiEvent, offset: number, snapshot: string): string {
  const path = event.requestContext?.path ?? event.path;
  const params: [string, string][] = [];
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    for (const value of values ?? []) params.push([name, value]);
  }
  const set = (name: string, value: string) => {
    const at = params.findIndex(([n]) => n === name);
    if (at === -1) params.push([name, value]);
    else params[at] = [name, value];
  };
  set('offset', String(offset));
  set('snapshot', snapshot);
  return `${path}?${params.map(([name, value]) => `${encodeQueryPart(name)}=${encodeQueryPart(value)}`).join('&')}`;
}

/**
 * The `Link` field of a list page: `rel="next"` while `has_more`, `rel="prev"` when `offset` > 0
 * (at `max(0, offset - limit)`); undefined when the page has neither (the whole list in one page).
 * @internal (exported for its tests)
 */
export function linkHeader(event: ApiEvent, page: Page['page']): string | undefined {
  const links: string[] = [];
  if (page.has_more) links.push(`<${pageReference(event, page.offset + page.limit, page.snapshot)}>; rel="next"`);
  if (page.offset > 0)
    links.push(`<${pageReference(event, Math.max(0, page.offset - page.limit), page.snapshot)}>; rel="prev"`);
  return links.length > 0 ? links.join(', ') : undefined;
}

/** A paged body (a list's, or a changes page's) with its `Link` and `Last-Modified`. */
function pagedResult(event: ApiEvent, result: ApiResult, page: Page['page'], lastModified: string): ApiResult {
  const link = linkHeader(event, page);
  result.headers = {
    ...result.headers,
    'Last-Modified': httpDate(lastModified),
    ...(link === undefined ? {} : { Link: link }),
  };
  return result;
}

/** `{ data, pagination }` of a list page, with its headers. */
export const listResult = (event: ApiEvent, answer: Page): ApiResult =>
  pagedResult(event, jsonResult(listBody(answer.docs, answer.page)), answer.page, answer.lastModified);

/**
 * An answer with a CSV representation beside its JSON one (docs/api.md, "CSV") says that it varies
 * on Accept, in both representations, so that no cache serves one for the other; the ETag of each
 * is its own body's (middleware/conditional-requests.ts).
 */
const VARY_ACCEPT = 'Accept';

const csvResult = (body: string): ApiResult => ({
  statusCode: 200,
  headers: { 'Content-Type': CSV_CONTENT_TYPE, Vary: VARY_ACCEPT },
  body,
});

const varying = (result: ApiResult): ApiResult => ({ ...result, headers: { ...result.headers, Vary: VARY_ACCEPT } });

/**
 * A page of offers in the representation the request accepts: JSON as `listResult`, or CSV with
 * the pagination in headers (`Link`, `X-Total-Count`, `X-Snapshot`), from the same documents (and
 * the `apy_stats` columns when the request includes them).
 */
export function offerListResult(
  event: ApiEvent,
  family: OfferFamily,
  answer: Page,
  includes: Includes = {},
): ApiResult {
  if (!acceptsCsv(event)) return varying(listResult(event, answer));
  const csv = offersCsv(family, answer.docs, includes.include?.includes('apy_stats'));
  const result = pagedResult(event, csvResult(csv), answer.page, answer.lastModified);
  result.headers = {
    ...result.headers,
    'X-Total-Count': String(answer.page.total),
    'X-Snapshot': answer.page.snapshot,
  };
  return result;
}

/** One offer's history window (its JSON text) in the representation the request accepts. */
export function historyResult(event: ApiEvent, family: HistoryFamily, id: number, window: string): ApiResult {
  if (!acceptsCsv(event)) return varying(jsonResult(window));
  const { data } = JSON.parse(window) as { data: Record<string, unknown>[] };
  return csvResult(historyCsv(family, [{ id, points: data }]));
}

/**
 * Several offers' history windows (`{ data: [{ id, …, data: points }] }`, the JSON text of
 * `GET /{family}/history?ids=`) in the representation the request accepts: CSV rows in the order
 * of the entries, each with its offer `id`.
 */
export function historiesResult(event: ApiEvent, family: HistoryFamily, windows: string): ApiResult {
  if (!acceptsCsv(event)) return varying(jsonResult(windows));
  const { data } = JSON.parse(windows) as { data: { id: number; data: Record<string, unknown>[] }[] };
  return csvResult(
    historyCsv(
      family,
      data.map(({ id, data: points }) => ({ id, points })),
    ),
  );
}

/** `{ since, snapshot, data, pagination }` of a changes page, with its headers. */
export function changesResult(event: ApiEvent, answer: ChangesPage): ApiResult {
  const body = `{"since":${JSON.stringify(answer.since)},"snapshot":${JSON.stringify(answer.snapshot)},"data":${answer.data},"pagination":${JSON.stringify(answer.page)}}`;
  return pagedResult(event, jsonResult(body), answer.page, answer.lastModified);
}

/** A detail with its `Last-Modified`. */
export function docResult(answer: Detail): ApiResult {
  const result = jsonResult(answer.doc);
  result.headers = { ...result.headers, 'Last-Modified': httpDate(answer.lastModified) };
  return result;
}
