/**
 * The request and response shapes the family functions work with: API Gateway REST proxy events
 * in, proxy results out. Bodies are assembled from pre-rendered JSON documents.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Pagination } from '../domain/page';
import { JSON_CONTENT_TYPE, NO_STORE, VARY_ENCODING } from './gateway-responses';

export type ApiEvent = APIGatewayProxyEvent;
export type ApiResult = APIGatewayProxyResult;

const JSON_HEADERS = { 'Content-Type': JSON_CONTENT_TYPE } as const;

/** A `Vary` value with `Accept-Encoding` in it, the values already there kept. */
export function varyOnEncoding(vary: string | number | boolean | undefined): string {
  const values = String(vary ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  if (values.some((v) => v === '*' || v.toLowerCase() === VARY_ENCODING.toLowerCase())) return values.join(', ');
  return [...values, VARY_ENCODING].join(', ');
}

/**
 * What clients and caches may keep (docs/api.md, "Conditional requests and caching"): a list or
 * detail may be stored by the client only (`private`: it was fetched with a key) and revalidated
 * with its ETag before each use; every other answer is not stored.
 */
export const CACHE_CONTROL = { revalidate: 'private, no-cache', none: NO_STORE } as const;

/** Every value of a request header, whatever the case of its name (several fields included). */
export function headerValues(event: ApiEvent, name: string): string[] {
  const lower = name.toLowerCase();
  const multi = Object.entries(event.multiValueHeaders ?? {}).filter(([k]) => k.toLowerCase() === lower);
  if (multi.length > 0) return multi.flatMap(([, values]) => values ?? []);
  return Object.entries(event.headers ?? {})
    .filter(([k, v]) => k.toLowerCase() === lower && v !== undefined)
    .map(([, v]) => v as string);
}

/** Query parameters with every value a parameter was given (repeats are a validation error). */
export function queryValues(event: ApiEvent): Record<string, string[]> {
  const multi = event.multiValueQueryStringParameters;
  if (multi) return Object.fromEntries(Object.entries(multi).map(([k, v]) => [k, v ?? []]));
  const single = event.queryStringParameters ?? {};
  return Object.fromEntries(Object.entries(single).map(([k, v]) => [k, v === undefined ? [] : [v]]));
}

export const jsonResult = (body: string, statusCode = 200): ApiResult => ({
  statusCode,
  headers: { ...JSON_HEADERS },
  body,
});

/** `{ data, pagination }` from documents that are already JSON. */
export const listBody = (docs: string[], page: Pagination) =>
  `{"data":[${docs.join(',')}],"pagination":${JSON.stringify(page)}}`;

/** A permanent redirect to the same path with the current slug, query string kept. */
export function redirectResult(event: ApiEvent, currentSlug: string): ApiResult {
  const path = (event.requestContext?.path ?? event.path).replace(
    /[^/]+\/?$/,
    (last) => encodeURIComponent(currentSlug) + (last.endsWith('/') ? '/' : ''),
  );
  const multi = event.multiValueQueryStringParameters ?? {};
  const query = Object.entries(multi)
    .flatMap(([k, values]) => (values ?? []).map((value) => `${encodeURIComponent(k)}=${encodeURIComponent(value)}`))
    .join('&');
  return { statusCode: 301, headers: { Location: query ? `${path}?${query}` : path }, body: '' };
}
