/** Search: currencies and platforms by slug, symbol or name (docs/api.md, "Search"). */

import { lookupsAhead, searchCatalog } from '../../shared/domain/search';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, jsonResult, queryValues } from '../../shared/http/http';
import { apiHandler, type RouteHandlers } from '../../shared/http/middleware/api-handler';
import { parseQuery, SEARCH_QUERY } from '../../shared/http/query';
import type { OperationOf } from '../../shared/http/routes';

/** The search function's route handlers, by operation: the function serves them, the MCP endpoint calls them (ADR 0027). */
export function searchRoutes(deps: ApiDeps): RouteHandlers<OperationOf<'search'>> {
  const { stores } = deps;
  lookupsAhead(stores);
  return {
    searchCatalog: async (event: ApiEvent) => {
      const query = parseQuery(SEARCH_QUERY(), queryValues(event));
      return jsonResult(JSON.stringify({ data: await searchCatalog(stores, query) }));
    },
  };
}

export const searchHandler = (deps: ApiDeps) => apiHandler('search', searchRoutes(deps), deps);
