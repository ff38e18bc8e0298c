/**
 * The one route table. The CDK stack builds API Gateway resources and methods from it and the
 * local gateway matches requests against it, so the two can never disagree. The offer families' routes come from their declarations.
 */
import { HISTORY_FAMILIES, OFFER_FAMILIES, OFFER_FAMILY, type OfferFamily } from '../model/offer-families';

export const FUNCTION_NAMES = [
  'platforms',
  'currencies',
  'offers',
  'history',
  'search',
  'usage',
  'webhooks',
  'mcp',
] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

/**
 * How a function's answers leave it (ADR 0014): `buffer`, one Lambda proxy result (Lambda refuses
 * one over 6 MB); `stream`, a streamed response (`awslambda.streamifyResponse`, the integration's
 * `ResponseTransferMode.STREAM`), which no size limit refuses. A function answers one way on every
 * route it serves: only one whose answers can pass Lambda's 6 MB streams.
 */
export type Transfer = 'buffer' | 'stream';
const TRANSFER: Record<FunctionName, Transfer> = {
  platforms: 'buffer',
  // A currency detail embeds every offer of its asset: more than 6 MB as offers grow (docs/performance.md).
  currencies: 'stream',
  offers: 'buffer',
  // Several offers' history: up to 50,000 buckets of 64-digit values, some 9 MB of JSON (CONTRACT §12).
  history: 'stream',
  usage: 'buffer',
  webhooks: 'buffer',
  search: 'buffer',
  // A tool's result stays under 100 KB of text (ADR 0027).
  mcp: 'buffer',
};

/** How the function answers (see Transfer). */
export const transferOf = (fn: FunctionName): Transfer => TRANSFER[fn];

/**
 * The MCP tool a route is (ADR 0027): the tools of `POST /mcp` are derived from these declarations,
 * the route's parameters and its operation's summary, and call the route's own handler.
 */
export interface ToolDeclaration {
  /** The tool's name; several routes may make one tool. */
  name: string;
  /** The arguments that choose this route among the tool's routes, and their values (`{ family: 'earn' }`). */
  choose?: Readonly<Record<string, string>>;
  /** The answer's embedded lists are given as their counts: an answer no page bounds (a currency's offers). */
  counts?: true;
}

export interface Route {
  /** HTTP method: the data API is read-only (GET); the MCP endpoint takes JSON-RPC messages (POST). */
  method: 'GET' | 'POST';
  /** API Gateway resource path, with `{param}` placeholders. */
  path: string;
  /** The family function that serves it. */
  fn: FunctionName;
  /** Stable operation id (OpenAPI `operationId`, metric dimension). */
  operationId: string;
  /**
   * What a 200 is: a `list` or `detail` of the served snapshot (carries an ETag and answers
   * conditional requests), a `history` window (moves with the clock), a `search` (matches across
   * families, no validator), the caller's `usage`, or an `mcp` message.
   */
  kind: RouteKind;
  /** How its answer leaves the function: its function's Transfer. */
  transfer: Transfer;
  /**
   * Marks the route, or some of its query parameters, deprecated (docs/api.md, "Versioning and
   * deprecation"): its answers then carry `Deprecation`, `Sunset` and a `Link` to the policy
   * (shared/http/deprecation.ts), and the description says `deprecated: true`. Nothing is today.
   */
  deprecated?: Deprecated;
  /** The MCP tool it is, if any. */
  tool?: ToolDeclaration;
  /**
   * Its path takes this method only: any other (but the CORS preflight) answers `405` with
   * `Allow`, before authentication and uncharged, where another path answers an unknown method
   * 404 (CONTRACT §1). The MCP endpoint's: the protocol's answer for a server that offers no
   * stream on `GET` and no session to `DELETE` (ADR 0027).
   */
  onlyMethod?: true;
}

/** When a route or parameter was (or will be) deprecated, and the sunset after which it may stop working. */
export interface Deprecation {
  /** An ISO 8601 instant: the `Deprecation` date (RFC 9745). */
  since: string;
  /** An ISO 8601 instant, at least the policy's notice after `since`: the `Sunset` date (RFC 8594). */
  sunset: string;
}

/** The whole route, or only the named query parameters (a request that sends one). */
export interface Deprecated {
  route?: Deprecation;
  parameters?: Readonly<Record<string, Deprecation>>;
}

export type RouteKind = 'list' | 'detail' | 'history' | 'search' | 'usage' | 'mcp';

export const API_PREFIX = '/api/v1';

const route = <const P extends string, const F extends FunctionName, const O extends string>(
  path: P,
  fn: F,
  operationId: O,
  kind: RouteKind,
  marks: { tool?: ToolDeclaration; deprecated?: Deprecated } = {},
) => ({
  method: 'GET' as const,
  path: `${API_PREFIX}${path}` as `${typeof API_PREFIX}${P}`,
  fn,
  operationId,
  kind,
  transfer: TRANSFER[fn],
  ...marks,
});

/** The MCP endpoint (ADR 0027): JSON-RPC messages of the Model Context Protocol, beside the API's paths. */
export const MCP_PATH = '/mcp';

/** `earn` → `Earn`: the family's part of its operations' ids. */
const capitalized = <F extends string>(family: F) => `${family[0].toUpperCase()}${family.slice(1)}` as Capitalize<F>;

/** The operations every offer family has, each id made of the family's name. */
export type OfferOperations<F extends OfferFamily> = {
  list: `list${Capitalize<F>}Offers`;
  changes: `list${Capitalize<F>}Changes`;
  histories: `get${Capitalize<F>}Histories`;
  detail: `get${Capitalize<F>}Offer`;
  history: `get${Capitalize<F>}History`;
};
export type OfferOperationKind = keyof OfferOperations<OfferFamily>;

const OFFER_OPERATION_IDS: { [K in OfferOperationKind]: (name: string) => string } = {
  list: (name) => `list${name}Offers`,
  changes: (name) => `list${name}Changes`,
  histories: (name) => `get${name}Histories`,
  detail: (name) => `get${name}Offer`,
  history: (name) => `get${name}History`,
};

/** The id of a family's operation of a kind (`list`, `earn` → `listEarnOffers`). */
const offerOperationId = <F extends OfferFamily, K extends OfferOperationKind>(
  family: F,
  kind: K,
): OfferOperations<F>[K] => OFFER_OPERATION_IDS[kind](capitalized(family)) as OfferOperations<F>[K];

/**
 * One value per family for an operation kind, keyed by the operation's id: a function's route
 * handlers (or the description's operations) for every family, so that a new family's are never
 * forgotten.
 */
export const perOfferFamily = <K extends OfferOperationKind, V>(
  kind: K,
  make: (family: OfferFamily) => V,
): Record<OfferOperations<OfferFamily>[K], V> =>
  Object.fromEntries(OFFER_FAMILIES.map((family) => [offerOperationId(family, kind), make(family)])) as Record<
    OfferOperations<OfferFamily>[K],
    V
  >;

type OfferPath<F extends OfferFamily> = (typeof OFFER_FAMILY)[F]['path'];

/**
 * An offer family's routes, from its declaration (shared/model/offer-families.ts): its list, its
 * changes and several offers' history (static segments, before `{id}`: `changes` and `history` are
 * routes, not ids, as API Gateway prefers a static segment), and one offer.
 */
const offerRoutes = <F extends OfferFamily>(family: F) => {
  const path = OFFER_FAMILY[family].path as OfferPath<F>;
  const tool = (tool: string) => ({ tool: { name: tool, choose: { family } } });
  return [
    route(path, 'offers', offerOperationId(family, 'list'), 'list', tool('list_offers')),
    route(`${path}/changes`, 'offers', offerOperationId(family, 'changes'), 'list', tool('offer_changes')),
    route(`${path}/history`, 'history', offerOperationId(family, 'histories'), 'history', historyTool(family)),
    route(`${path}/{id}`, 'offers', offerOperationId(family, 'detail'), 'detail', tool('get_offer')),
  ] as const;
};

/** `offer_history`, for the families whose offers have history (collateral's routes always answer 404). */
const historyTool = (family: OfferFamily) =>
  (HISTORY_FAMILIES as readonly string[]).includes(family)
    ? { tool: { name: 'offer_history', choose: { family } } }
    : {};

/** A platform family's list and detail, the tools `list_platforms` and `get_platform` chosen by `type`. */
const platformRoutes = <const P extends string, const T extends string>(path: P, names: T, type: string) =>
  [
    route(`/${path}`, 'platforms', `list${names}s`, 'list', { tool: { name: 'list_platforms', choose: { type } } }),
    route(`/${path}/{slug}`, 'platforms', `get${names}`, 'detail', {
      tool: { name: 'get_platform', choose: { type } },
    }),
  ] as const;

/** One offer's history (the declaration says whether the family has any: `/collateral/{id}/history` is always 404). */
const offerHistoryRoute = <F extends OfferFamily>(family: F) =>
  route(
    `${OFFER_FAMILY[family].path as OfferPath<F>}/{id}/history`,
    'history',
    offerOperationId(family, 'history'),
    'history',
    historyTool(family),
  );

type OfferRoute =
  | ReturnType<typeof offerRoutes<OfferFamily>>[number]
  | ReturnType<typeof offerHistoryRoute<OfferFamily>>;

export const ROUTES = [
  ...platformRoutes('exchanges', 'Exchange', 'exchange'),
  ...platformRoutes('wallets', 'Wallet', 'wallet'),
  ...platformRoutes('protocols', 'Protocol', 'protocol'),
  route('/currencies', 'currencies', 'listCurrencies', 'list', { tool: { name: 'list_currencies' } }),
  route('/currencies/{slug}', 'currencies', 'getCurrency', 'detail', { tool: { name: 'get_currency', counts: true } }),
  // matchRoute takes the first match: each family's static segments come before its `{id}`.
  ...OFFER_FAMILIES.flatMap((family): OfferRoute[] => [...offerRoutes(family)]),
  ...OFFER_FAMILIES.map((family): OfferRoute => offerHistoryRoute(family)),
  route('/search', 'search', 'searchCatalog', 'search', { tool: { name: 'search' } }),
  route('/usage', 'usage', 'getUsage', 'usage'),
  // The caller's own webhook subscriptions and their deliveries (CONTRACT §14): account data, like usage.
  route('/webhooks', 'webhooks', 'listWebhooks', 'usage'),
  route('/webhooks/{id}/deliveries', 'webhooks', 'listWebhookDeliveries', 'usage'),
  {
    method: 'POST',
    path: MCP_PATH,
    fn: 'mcp',
    operationId: 'postMcp',
    kind: 'mcp',
    transfer: TRANSFER.mcp,
    onlyMethod: true,
  },
] as const satisfies readonly Route[];

export type OperationId = (typeof ROUTES)[number]['operationId'];

/** The operations one function serves: its route handlers are keyed by these, so none can be missing. */
export type OperationOf<F extends FunctionName> = Extract<(typeof ROUTES)[number], { fn: F }>['operationId'];

const OPERATION_OF_RESOURCE = new Map<string, OperationId>(ROUTES.map((r) => [r.path, r.operationId]));
/** Each route by its API Gateway resource path. */
export const routesByResource = (routes: readonly Route[]): ReadonlyMap<string, Route> =>
  new Map(routes.map((r) => [r.path, r]));
const KIND_OF_OPERATION = new Map<string, RouteKind>(ROUTES.map((r) => [r.operationId, r.kind]));

/** What a 200 of the operation is (see Route.kind). */
export const kindOfOperation = (operation: OperationId): RouteKind => KIND_OF_OPERATION.get(operation) as RouteKind;

/** The operation of an API Gateway resource path (`/api/v1/earn/{id}`), if it is a route. */
export const operationOfResource = (resource: string | undefined): OperationId | undefined =>
  resource === undefined ? undefined : OPERATION_OF_RESOURCE.get(resource);

/** The freshness of every family (docs/api.md, "Freshness"): public, no key and no budget. */
export const STATUS_PATH = `${API_PREFIX}/status` as const;

/** The API description (OpenAPI) and its docs page. */
export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * Paths served without a key by the `docs` function, throttled below the stage: the API
 * description, its docs page and the data status.
 */
export const PUBLIC_PATHS = [OPENAPI_PATH, DOCS_PATH, `${DOCS_PATH}/{asset}`, STATUS_PATH] as const;

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

const compiled = ROUTES.map((r: Route) => {
  const names: string[] = [];
  const source = r.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route: r, names, regex: new RegExp(`^${source}/?$`) };
});

/** Match a request path (no query string) against the route table, as API Gateway does. */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  for (const { route: r, names, regex } of compiled) {
    const m = regex.exec(path);
    if (!m || r.method !== method) continue;
    const pathParameters: Record<string, string> = {};
    names.forEach((name, i) => {
      pathParameters[name] = safeDecode(m[i + 1]);
    });
    return { route: r, pathParameters };
  }
  return undefined;
}

/**
 * The route a request's method is not allowed on: a route whose path takes its method only
 * (`onlyMethod`) matches the path and not the method. A gateway answers the CORS preflight first.
 */
export function methodNotAllowed(method: string, path: string): Route | undefined {
  return compiled.find(({ route: r, regex }) => r.onlyMethod && r.method !== method && regex.test(path))?.route;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
