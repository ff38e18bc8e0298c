/** Currencies: the list by market-cap rank and the detail with its offers (docs/api.md, "Currencies"). */

import { foundDoc, getCurrencyDetail, listCatalog } from '../../shared/domain/catalog';
import { docResult, listResult } from '../../shared/http/answers';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, queryValues, redirectResult } from '../../shared/http/http';
import { apiHandler } from '../../shared/http/middleware/api-handler';
import { LIST_QUERY, NO_QUERY, parseQuery } from '../../shared/http/query';

export function currenciesHandler(deps: ApiDeps) {
  const { stores } = deps;
  return apiHandler(
    'currencies',
    {
      listCurrencies: async (event: ApiEvent) => {
        const query = parseQuery(LIST_QUERY(), queryValues(event));
        return listResult(event, await listCatalog(stores, 'currencies', query));
      },
      getCurrency: async (event: ApiEvent) => {
        const found = await getCurrencyDetail(stores, event.pathParameters?.slug ?? '');
        if (found && 'redirectTo' in found) return redirectResult(event, found.redirectTo);
        parseQuery(NO_QUERY(), queryValues(event));
        return docResult(foundDoc(found, 'currencies'));
      },
    },
    deps,
  );
}
