/** Exchanges, wallets and protocols: lists and details (docs/api.md, "Platforms"). */

import type { PlatformFamily } from '../../shared/data/keys';
import { foundDoc, getCatalogRecord, listCatalog } from '../../shared/domain/catalog';
import { docResult, listResult } from '../../shared/http/answers';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, queryValues, redirectResult } from '../../shared/http/http';
import { apiHandler, type RouteHandler, type RouteHandlers } from '../../shared/http/middleware/api-handler';
import { LIST_QUERY, NO_QUERY, parseQuery } from '../../shared/http/query';
import type { OperationOf } from '../../shared/http/routes';

/** The platforms function's route handlers, by operation: the function serves them, the MCP endpoint calls them (ADR 0027). */
export function platformsRoutes(deps: ApiDeps): RouteHandlers<OperationOf<'platforms'>> {
  const { stores } = deps;
  const list =
    (family: PlatformFamily): RouteHandler =>
    async (event: ApiEvent) => {
      const query = parseQuery(LIST_QUERY(), queryValues(event));
      return listResult(event, await listCatalog(stores, family, query));
    };
  const detail =
    (family: PlatformFamily): RouteHandler =>
    async (event: ApiEvent) => {
      const found = await getCatalogRecord(stores, family, event.pathParameters?.slug ?? '');
      if (found && 'redirectTo' in found) return redirectResult(event, found.redirectTo);
      parseQuery(NO_QUERY(), queryValues(event));
      return docResult(foundDoc(found, family));
    };
  return {
    listExchanges: list('exchanges'),
    getExchange: detail('exchanges'),
    listWallets: list('wallets'),
    getWallet: detail('wallets'),
    listProtocols: list('protocols'),
    getProtocol: detail('protocols'),
  };
}

export const platformsHandler = (deps: ApiDeps) => apiHandler('platforms', platformsRoutes(deps), deps);
