/** Search: currencies and platforms by slug, symbol or name (docs/api.md, "Search"). */

import { searchCatalog } from '../../shared/domain/search';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, jsonResult, queryValues } from '../../shared/http/http';
import { apiHandler } from '../../shared/http/middleware/api-handler';
import { parseQuery, SEARCH_QUERY } from '../../shared/http/query';

export function searchHandler(deps: ApiDeps) {
  const { stores } = deps;
  return apiHandler(
    'search',
    {
      searchCatalog: async (event: ApiEvent) => {
        const query = parseQuery(SEARCH_QUERY(), queryValues(event));
        return jsonResult(JSON.stringify({ data: await searchCatalog(stores, query) }));
      },
    },
    deps,
  );
}
