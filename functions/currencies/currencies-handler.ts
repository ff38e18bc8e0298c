/** Currencies: the list by market-cap rank and the detail with its offers (docs/api.md, "Currencies"). */

import { foundDoc, getCurrencyDetail, listCatalog } from '../../shared/domain/catalog';
import type { Includes } from '../../shared/domain/offers';
import { docResult, listResult } from '../../shared/http/answers';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, queryValues, redirectResult } from '../../shared/http/http';
import { apiHandler, type RouteHandlers } from '../../shared/http/middleware/api-handler';
import { CURRENCY_DETAIL_QUERY, LIST_QUERY, parseQuery } from '../../shared/http/query';
import type { OperationOf } from '../../shared/http/routes';

/** The currencies function's route handlers, by operation: the function serves them, the MCP endpoint calls them (ADR 0027). */
export function currenciesRoutes(deps: ApiDeps): RouteHandlers<OperationOf<'currencies'>> {
  const { stores } = deps;
  return {
    listCurrencies: async (event: ApiEvent) => {
      const query = parseQuery(LIST_QUERY(), queryValues(event));
      return listResult(event, await listCatalog(stores, 'currencies', query));
    },
    getCurrency: async (event: ApiEvent) => {
      // A former slug redirects whatever the query (docs/api.md, "Parameters"): its refusal waits for the lookup.
      let includes: Includes = {};
      let refusal: unknown;
      try {
        includes = parseQuery(CURRENCY_DETAIL_QUERY(), queryValues(event));
      } catch (error) {
        refusal = error;
      }
      const found = await getCurrencyDetail(stores, event.pathParameters?.slug ?? '', includes);
      if (found && 'redirectTo' in found) return redirectResult(event, found.redirectTo);
      if (refusal !== undefined) throw refusal;
      return docResult(foundDoc(found, 'currencies'));
    },
  };
}

export const currenciesHandler = (deps: ApiDeps) => apiHandler('currencies', currenciesRoutes(deps), deps);
