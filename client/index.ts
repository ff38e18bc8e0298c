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
 * - list parameters (`asset: ['tether', 'usd-coin']`) sent as the API takes them, one
 *   comma-separated value;
 * - `pages()`: every item of a list, following the `Link` header's `rel="next"`, which pins every
 *   page to the data version of the first (`pagination.snapshot`): a crawl sees each record once
 *   even when the data is refreshed under it;
 * - `changes()`: every offer added, changed or removed since a version, and the version to ask
 *   from next time;
 * - `csv()`: an offer list or a history window as the CSV text the API writes (`Accept: text/csv`),
 *   with the same parameters, errors and retries as `get()`.
 * - `history()`: the APY history of one offer, or of several (up to 50) in one request, for a
 *   period or a custom window (`from`, `to`, `interval`).
 * - `search()`: currencies and platforms by slug, symbol or name, best first: from "USDC" or "Aave"
 *   to the slug the other routes take.
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

/** The paths of the data API (`POST /mcp` is for MCP clients, not this one). */
type GetPath = { [P in keyof paths]: paths[P]['get'] extends { parameters: unknown } ? P : never }[keyof paths];
type Operation<P extends GetPath> = paths[P]['get'];
/** The parameters of an operation (`path`, `query`, `header`), as the description declares them. */
export type ParamsOf<P extends GetPath> = Operation<P>['parameters'];
/** The body of an operation's 200. */
export type DataOf<P extends GetPath> = Operation<P>['responses'] extends {
  200: { content: { 'application/json': infer B } };
}
  ? B
  : never;
/** Operations whose 200 has a CSV representation (offer lists and history). */
export type CsvPath = {
  [P in GetPath]: Operation<P>['responses'] extends { 200: { content: { 'text/csv': string } } } ? P : never;
}[GetPath];
/** Operations whose 200 is a page `{ data, pagination }`. */
export type ListPath = {
  [P in GetPath]: DataOf<P> extends { data: unknown[]; pagination: { has_more: boolean } } ? P : never;
}[GetPath];
export type ItemOf<P extends ListPath> = DataOf<P> extends { data: (infer Item)[] } ? Item : never;

/** The offer families, whose changes `changes()` reads: those the description gives a changes route. */
export type OfferFamily = { [P in GetPath]: P extends `/api/v1/${infer F}/changes` ? F : never }[GetPath];
type ChangesPath<F extends OfferFamily> = `/api/v1/${F}/changes`;
/** One entry of a changes page: `{ id, change, offer }`. */
export type ChangeOf<F extends OfferFamily> =
  DataOf<ChangesPath<F>> extends { data: (infer Change)[] } ? Change : never;

/** The families with history (their history route has a 200), and the window parameters of their history routes. */
export type HistoryFamily = {
  [P in GetPath]: P extends `/api/v1/${infer F}/{id}/history` ? (DataOf<P> extends never ? never : F) : never;
}[GetPath];
export type HistoryWindow = NonNullable<ParamsOf<'/api/v1/earn/{id}/history'>['query']>;
/** One offer's history answer. */
export type HistoryOf<F extends HistoryFamily> = DataOf<`/api/v1/${F}/{id}/history`>;
/** Several offers' history: `{ data: [{ id, period, interval, from, to, point_count, data }] }`, in the order of `ids`. */
export type HistoriesOf<F extends HistoryFamily> = DataOf<`/api/v1/${F}/history`>;

/** One match of a search: `{ type, slug, name, symbol }`. */
export type SearchHit = DataOf<'/api/v1/search'>['data'][number];

/** The items of a list, page after page; `snapshot` is the data version they come from, once the first page is read. */
export interface ListPages<Item> extends AsyncIterable<Item> {
  readonly snapshot: string | null;
}

/** The changes since a version; `snapshot` is the newer version (the `since` of next time), once the first page is read. */
export interface ChangesFeed<F extends OfferFamily> extends AsyncIterable<ChangeOf<F>> {
  readonly since: string;
  readonly snapshot: string | null;
}

type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];
/** The parameters argument: required when the operation has a path parameter. */
type ParamsArg<P extends GetPath> = [RequiredKeys<ParamsOf<P>>] extends [never]
  ? [params?: ParamsOf<P>]
  : [params: ParamsOf<P>];

export type Result<P extends GetPath> =
  | {
      kind: 'ok';
      data: DataOf<P>;
      response: Response /** The current URL when a former slug was followed (301). */;
      renamedTo: string | null;
    }
  | { kind: 'not_modified'; response: Response; etag: string | null }
  | { kind: 'error'; error: ApiError; response: Response };

/**
 * A CSV answer: its text (RFC 4180, a header row, CRLF line ends) and, for a list, the pagination
 * its headers carry (`X-Total-Count`, `X-Snapshot`, the `Link` targets).
 */
export type CsvResult =
  | {
      kind: 'ok';
      text: string;
      /** `X-Total-Count` of a list (null on history). */
      total: number | null;
      /** `X-Snapshot` of a list: the data version of the page (null on history). */
      snapshot: string | null;
      /** The next page, a reference relative to the request (send it with `Accept: text/csv` again); null on the last. */
      next: string | null;
      response: Response;
    }
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
function retryingFetch(
  options: Required<Pick<MarketDataClientOptions, 'maxRetries' | 'maxRetryAfterSeconds' | 'fetch' | 'sleep'>>,
) {
  return async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt++) {
      const response = await options.fetch(request.clone());
      const wait = retryAfterSeconds(response);
      if (
        !RETRIED_STATUSES.has(response.status) ||
        wait === null ||
        attempt >= options.maxRetries ||
        wait > options.maxRetryAfterSeconds
      )
        return response;
      await response.body?.cancel();
      await options.sleep(Math.max(1, wait) * 1000);
    }
  };
}

/**
 * The targets of a `Link` field (RFC 8288) by relation type. A target may hold commas (a list
 * parameter), so entries are read as `<target>` followed by parameters, not split on commas.
 */
export function parseLinkHeader(value: string | null): Record<string, string> {
  const links: Record<string, string> = {};
  for (const [, target, params] of (value ?? '').matchAll(/<([^>]*)>((?:\s*;\s*[^;,<]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    for (const type of (rel?.[1] ?? rel?.[2] ?? '').split(/\s+/).filter(Boolean)) links[type.toLowerCase()] ??= target;
  }
  return links;
}

function isEnvelope(body: unknown): body is ErrorBody {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

function apiError(body: unknown, response: Response): ApiError {
  const common = {
    status: response.status,
    requestId: response.headers.get('X-Request-Id'),
    retryAfterSeconds: retryAfterSeconds(response),
  };
  if (isEnvelope(body))
    return { ...common, code: body.error.code, message: body.error.message, details: body.error.details ?? null };
  return {
    ...common,
    code: 'unexpected_response',
    message: `HTTP ${response.status} without the error envelope`,
    details: null,
  };
}

export interface MarketDataClient {
  /** One GET; every answer is a value (a network failure rejects). */
  get<P extends GetPath>(path: P, ...params: ParamsArg<P>): Promise<Result<P>>;
  /**
   * Every item of a list, following `Link` (`rel="next"`) from the page the parameters ask for:
   * every page of one data version. An error answer throws a MarketDataApiError (a crawl longer
   * than a replaced version is kept: `410 snapshot_expired`).
   */
  pages<P extends ListPath>(path: P, ...params: ParamsArg<P>): ListPages<ItemOf<P>>;
  /** Every offer of a family added, changed or removed since the version `since`, by ascending id; errors throw as in `pages()`. */
  changes<F extends OfferFamily>(family: F, since: string, options?: { limit?: number }): ChangesFeed<F>;
  /** One GET with `Accept: text/csv`: an offer list or a history window as CSV text; errors are values, as in `get()`. */
  csv<P extends CsvPath>(path: P, ...params: ParamsArg<P>): Promise<CsvResult>;
  /**
   * The history of one offer (an id), or of several (an array of 1 to 50 ids: one request and one
   * unit of budget; unknown or unpublished ids are absent), for `window` (default `period=1m`).
   * An error answer throws a MarketDataApiError.
   */
  history<F extends HistoryFamily>(family: F, id: number, window?: HistoryWindow): Promise<HistoryOf<F>>;
  history<F extends HistoryFamily>(family: F, ids: readonly number[], window?: HistoryWindow): Promise<HistoriesOf<F>>;
  /**
   * Currencies and platforms whose slug, symbol or name matches `q` (case-insensitive), best first,
   * at most `limit` (1 to 20, default 10). An error answer throws a MarketDataApiError.
   */
  search(q: string, options?: { limit?: number }): Promise<SearchHit[]>;
  /** The openapi-fetch client underneath, with the same key and retries. */
  raw: Client<paths>;
}

export function createMarketDataClient(options: MarketDataClientOptions): MarketDataClient {
  const headers = { Authorization: `Bearer ${options.apiKey}`, Accept: 'application/json' };
  const send = retryingFetch({
    maxRetries: options.maxRetries ?? 3,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
    fetch: options.fetch ?? ((request) => fetch(request)),
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  });
  const raw = createClient<paths>({
    baseUrl: options.baseUrl,
    headers,
    // A 301 (renamed slug) is followed: fetch keeps `Authorization` on the same origin. With
    // `redirect: 'manual'` openapi-fetch would answer neither `data` nor `error` (docs/api.md).
    redirect: 'follow',
    // A list parameter is one comma-separated value (`style: form`, `explode: false`).
    querySerializer: { array: { style: 'form', explode: false } },
    fetch: send,
  });

  // One call for every path: openapi-fetch's per-path overloads cannot be named generically;
  // the signatures of get() and csv() carry the types.
  const GET = raw.GET as unknown as (
    path: string,
    init: { params?: unknown; parseAs?: 'text'; headers?: Record<string, string> },
  ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

  async function get<P extends GetPath>(path: P, ...[params]: ParamsArg<P>): Promise<Result<P>> {
    const { data, error, response } = await GET(path, { params });
    if (response.status === 304) return { kind: 'not_modified', response, etag: response.headers.get('ETag') };
    if (response.ok)
      return { kind: 'ok', data: data as DataOf<P>, response, renamedTo: response.redirected ? response.url : null };
    return { kind: 'error', error: apiError(error, response), response };
  }

  async function csv<P extends CsvPath>(path: P, ...[params]: ParamsArg<P>): Promise<CsvResult> {
    // openapi-fetch reads an error body as JSON whatever `parseAs` says: the envelope as in get().
    const { data, error, response } = await GET(path, { params, parseAs: 'text', headers: { Accept: 'text/csv' } });
    if (response.status === 304) return { kind: 'not_modified', response, etag: response.headers.get('ETag') };
    if (!response.ok) return { kind: 'error', error: apiError(error, response), response };
    const total = response.headers.get('X-Total-Count');
    return {
      kind: 'ok',
      text: data as string,
      total: total === null ? null : Number(total),
      snapshot: response.headers.get('X-Snapshot'),
      next: parseLinkHeader(response.headers.get('Link')).next ?? null,
      response,
    };
  }

  /** The page a `Link` names (a reference relative to the page that named it). */
  async function follow(target: string, from: Response): Promise<{ body: unknown; response: Response }> {
    const response = await send(new Request(new URL(target, from.url), { headers, redirect: 'follow' }));
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) throw new MarketDataApiError(apiError(body, response));
    return { body, response };
  }

  /** Every page from the first, following `rel="next"` while `has_more`; each page names its version. */
  async function* pagesOf<T>(
    first: () => Promise<{ body: unknown; response: Response }>,
    pin: (snapshot: string) => void,
  ): AsyncGenerator<T[], void, undefined> {
    let { body, response } = await first();
    for (;;) {
      const page = body as { data: T[]; snapshot?: string; pagination: { has_more: boolean; snapshot?: string } };
      const snapshot = page.snapshot ?? page.pagination.snapshot;
      if (snapshot !== undefined) pin(snapshot);
      yield page.data;
      const next = parseLinkHeader(response.headers.get('Link')).next;
      if (next === undefined || !page.pagination.has_more || page.data.length === 0) return;
      ({ body, response } = await follow(next, response));
    }
  }

  async function firstPage<P extends GetPath>(
    path: P,
    params: ParamsArg<P>,
  ): Promise<{ body: unknown; response: Response }> {
    const page = await get(path, ...params);
    if (page.kind === 'error') throw new MarketDataApiError(page.error);
    if (page.kind !== 'ok') throw new MarketDataApiError(apiError(undefined, page.response));
    return { body: page.data, response: page.response };
  }

  function iterable<T>(first: () => Promise<{ body: unknown; response: Response }>) {
    const state = { snapshot: null as string | null };
    const items = {
      get snapshot() {
        return state.snapshot;
      },
      async *[Symbol.asyncIterator]() {
        for await (const data of pagesOf<T>(first, (snapshot) => (state.snapshot = snapshot))) yield* data;
      },
    };
    return items;
  }

  function pages<P extends ListPath>(path: P, ...params: ParamsArg<P>): ListPages<ItemOf<P>> {
    return iterable<ItemOf<P>>(() => firstPage(path, params));
  }

  function changes<F extends OfferFamily>(family: F, since: string, options: { limit?: number } = {}): ChangesFeed<F> {
    const path = `/api/v1/${family}/changes` as GetPath;
    const params = [
      { query: { since, ...(options.limit === undefined ? {} : { limit: options.limit }) } },
    ] as unknown as ParamsArg<GetPath>;
    return Object.assign(
      iterable<ChangeOf<F>>(() => firstPage(path, params)),
      { since },
    );
  }

  async function history(family: HistoryFamily, ids: number | readonly number[], window: HistoryWindow = {}) {
    const [path, params] =
      typeof ids === 'number'
        ? [`/api/v1/${family}/{id}/history`, { path: { id: ids }, query: window }]
        : [`/api/v1/${family}/history`, { query: { ...window, ids } }];
    const answer = await get(path as GetPath, ...([params] as unknown as ParamsArg<GetPath>));
    if (answer.kind === 'ok') return answer.data;
    throw new MarketDataApiError(answer.kind === 'error' ? answer.error : apiError(undefined, answer.response));
  }

  async function search(q: string, options: { limit?: number } = {}): Promise<SearchHit[]> {
    const answer = await get('/api/v1/search', { query: { q, ...options } });
    if (answer.kind === 'ok') return answer.data.data;
    throw new MarketDataApiError(answer.kind === 'error' ? answer.error : apiError(undefined, answer.response));
  }

  return { get, pages, changes, csv, history: history as MarketDataClient['history'], search, raw };
}
