/**
 * The one route table. The CDK stack builds API Gateway resources and methods from it and the
 * local gateway matches requests against it, so the two can never disagree.
 */
export const FUNCTION_NAMES = ['platforms', 'currencies', 'offers', 'history'] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

export interface Route {
  /** HTTP method; the API is read-only. */
  method: 'GET';
  /** API Gateway resource path, with `{param}` placeholders. */
  path: string;
  /** The family function that serves it. */
  fn: FunctionName;
  /** Stable operation id (OpenAPI `operationId`, metric dimension). */
  operationId: string;
}

export const API_PREFIX = '/api/v1';

const route = (path: string, fn: FunctionName, operationId: string): Route => ({
  method: 'GET',
  path: `${API_PREFIX}${path}`,
  fn,
  operationId,
});

export const ROUTES: readonly Route[] = [
  route('/exchanges', 'platforms', 'listExchanges'),
  route('/exchanges/{slug}', 'platforms', 'getExchange'),
  route('/wallets', 'platforms', 'listWallets'),
  route('/wallets/{slug}', 'platforms', 'getWallet'),
  route('/protocols', 'platforms', 'listProtocols'),
  route('/protocols/{slug}', 'platforms', 'getProtocol'),
  route('/currencies', 'currencies', 'listCurrencies'),
  route('/currencies/{slug}', 'currencies', 'getCurrency'),
  route('/earn', 'offers', 'listEarnOffers'),
  route('/earn/{id}', 'offers', 'getEarnOffer'),
  route('/borrow', 'offers', 'listBorrowOffers'),
  route('/borrow/{id}', 'offers', 'getBorrowOffer'),
  route('/collateral', 'offers', 'listCollateralOffers'),
  route('/collateral/{id}', 'offers', 'getCollateralOffer'),
  route('/earn/{id}/history', 'history', 'getEarnHistory'),
  route('/borrow/{id}/history', 'history', 'getBorrowHistory'),
  route('/collateral/{id}/history', 'history', 'getCollateralHistory'),
];

export const routesOf = (fn: FunctionName): Route[] => ROUTES.filter((r) => r.fn === fn);

/** Paths served without a key by the `docs` function: the API description and its docs page. */
export const PUBLIC_PATHS = ['/openapi.json', '/docs', '/docs/{asset}'] as const;

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string>;
}

const compiled = ROUTES.map((r) => {
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

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
