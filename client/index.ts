/**
 * A typed client of the market-data API, on openapi-fetch and the types generated from
 * docs/openapi.json (client/api-types.ts, `npm run openapi`). What it adds to a plain fetch:
 *
 * - answers as values: `{ kind: 'ok', data }`, `{ kind: 'not_modified' }` (304 to an
 *   `If-None-Match`) or `{ kind: 'error', error }` with the envelope's `code`, typed from the
 *   description's error schemas;
 * - `Retry-After` honoured on 429 and 503, at most `maxRetries` times and only when the wait is at
 *   most `maxRetryAfterSeconds` (a spent monthly quota says days: it is answered at once);
 * - renamed slugs (301) followed, as fetch follows redirects; `renamedTo` gives the current URL;
 * - `pages()`: every item of a list, page after page while `pagination.has_more`.
 *
 * docs/api.md ("Using the API from TypeScript") shows it in use.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './api-types';

export type { components, paths } from './api-types';

type Schemas = components['schemas'];

/** Every error body the description declares (the schemas named `…Error`): the envelope. */
export type ErrorBody = { [K in keyof Schemas]: K extends `${string}Error` ? Schemas[K] : never }[keyof Schemas];

/**
 * The envelope's `code`s, from the description; `unexpected_response` is this client's own, for an
 * answer that is not the envelope (say, a proxy's HTML page).
 */
export type ErrorCode = ErrorBody['error']['code'] | 'unexpected_response';

export interface ApiError {
  status: number;
  code: ErrorCode;
  message: string;
  details: ErrorBody['error']['details'] | null;
  /** `X-Request-Id` of the answer: quote it when reporting a problem. */
  requestId: string | null;
  /** `Retry-After` seconds, on 429 and 503 (what was left after the client's own retries). */
  retryAfterSeconds: number | null;
}

type GetPath = keyof paths;
type Operation<P extends GetPath> = paths[P]['get'];
/** The parameters of an operation (`path`, `query`, `header`), as the description declares them. */
export type ParamsOf<P extends GetPath> = Operation<P>['parameters'];
/** The body of an operation's 200. */
export type DataOf<P extends GetPath> = Operation<P>['responses'] extends { 200: { content: { 'application/json': infer B } } } ? B : never;
/** Operations whose 200 is a page `{ data, pagination }`. */
export type ListPath = { [P in GetPath]: DataOf<P> extends { data: unknown[]; pagination: { has_more: boolean } } ? P : never }[GetPath];
export type ItemOf<P extends ListPath> = DataOf<P> extends { data: (infer Item)[] } ? Item : never;

type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];
/** The parameters argument: required when the operation has a path parameter. */
type ParamsArg<P extends GetPath> = [RequiredKeys<ParamsOf<P>>] extends [never] ? [params?: ParamsOf<P>] : [params: ParamsOf<P>];

export type Result<P extends GetPath> =
  | { kind: 'ok'; data: DataOf<P>; response: Response; /** The current URL when a former slug was followed (301). */ renamedTo: string | null }
  | { kind: 'not_modified'; response: Response; etag: string | null }
  | { kind: 'error'; error: ApiError; response: Response };

export interface MarketDataClientOptions {
  /** Where the API is: the base the description is served from (`<baseUrl>/openapi.json`). */
  baseUrl: string;
  apiKey: string;
  /** Retries after a 429 or 503 with `Retry-After` (default 3). */
  maxRetries?: number;
  /** A longer `Retry-After` is not waited for: the refusal is the answer (default 60 s). */
  maxRetryAfterSeconds?: number;
  fetch?: (request: Request) => Promise<Response>;
  /** How the client waits (tests pass one that moves their clock). */
  sleep?: (ms: number) => Promise<void>;
}

export class MarketDataApiError extends Error {
  constructor(readonly error: ApiError) {
    super(`${error.status} ${error.code}: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}`);
    this.name = 'MarketDataApiError';
  }
}

const RETRIED_STATUSES = new Set([429, 503]);

function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get('Retry-After');
  return value !== null && /^[0-9]+$/.test(value) ? Number(value) : null;
}

/** A fetch that waits `Retry-After` and tries again, within the bounds. */
function retryingFetch(options: Required<Pick<MarketDataClientOptions, 'maxRetries' | 'maxRetryAfterSeconds' | 'fetch' | 'sleep'>>) {
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      const response = await options.fetch(request.clone());
      const wait = retryAfterSeconds(response);
      if (!RETRIED_STATUSES.has(response.status) || wait === null || attempt >= options.maxRetries || wait > options.maxRetryAfterSeconds) return response;
      await response.body?.cancel();
      await options.sleep(Math.max(1, wait) * 1000);
    }
  };
}

function isEnvelope(body: unknown): body is ErrorBody {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

function apiError(body: unknown, response: Response): ApiError {
  const common = { status: response.status, requestId: response.headers.get('X-Request-Id'), retryAfterSeconds: retryAfterSeconds(response) };
  if (isEnvelope(body)) return { ...common, code: body.error.code, message: body.error.message, details: body.error.details ?? null };
  return { ...common, code: 'unexpected_response', message: `HTTP ${response.status} without the error envelope`, details: null };
}

export interface MarketDataClient {
  /** One GET; every answer is a value (a network failure rejects). */
  get<P extends GetPath>(path: P, ...params: ParamsArg<P>): Promise<Result<P>>;
  /** Every item of a list, page after page; an error answer throws a MarketDataApiError. */
  pages<P extends ListPath>(path: P, ...params: ParamsArg<P>): AsyncGenerator<ItemOf<P>, void, undefined>;
  /** The openapi-fetch client underneath, with the same key and retries. */
  raw: Client<paths>;
}

export function createMarketDataClient(options: MarketDataClientOptions): MarketDataClient {
  const raw = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}`, Accept: 'application/json' },
    // A 301 (renamed slug) is followed: fetch keeps `Authorization` on the same origin. With
    // `redirect: 'manual'` openapi-fetch would answer neither `data` nor `error` (docs/api.md).
    redirect: 'follow',
    fetch: retryingFetch({
      maxRetries: options.maxRetries ?? 3,
      maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
      fetch: options.fetch ?? ((request) => fetch(request)),
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    }),
  });

  async function get<P extends GetPath>(path: P, ...[params]: ParamsArg<P>): Promise<Result<P>> {
    // One call for every path: openapi-fetch's per-path overloads cannot be named generically;
    // the signature above carries the types.
    const GET = raw.GET as unknown as (path: string, init: { params?: unknown }) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await GET(path, { params });
    if (response.status === 304) return { kind: 'not_modified', response, etag: response.headers.get('ETag') };
    if (response.ok) return { kind: 'ok', data: data as DataOf<P>, response, renamedTo: response.redirected ? response.url : null };
    return { kind: 'error', error: apiError(error, response), response };
  }

  async function* pages<P extends ListPath>(path: P, ...[params]: ParamsArg<P>): AsyncGenerator<ItemOf<P>, void, undefined> {
    const given = (params ?? {}) as { query?: { offset?: number } };
    let offset = given.query?.offset ?? 0;
    for (;;) {
      const page = await get(path, ...([{ ...given, query: { ...given.query, offset } }] as ParamsArg<P>));
      if (page.kind === 'error') throw new MarketDataApiError(page.error);
      if (page.kind !== 'ok') throw new MarketDataApiError(apiError(undefined, page.response));
      const { data, pagination } = page.data as { data: ItemOf<P>[]; pagination: { has_more: boolean } };
      yield* data;
      if (!pagination.has_more || data.length === 0) return;
      offset += data.length;
    }
  }

  return { get, pages, raw };
}
