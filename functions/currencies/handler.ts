/** Currencies: the list by market-cap rank and the detail with its offers (specification 4.2, 4.3). */
import { foundDoc, getCurrencyDetail, listCatalog } from '../../shared/domain/catalog';
import { jsonResult, listBody, queryValues, redirectResult, type ApiEvent } from '../../shared/http';
import { apiHandler, type RouteHandler } from '../../shared/middleware/api-handler';
import { API_PREFIX } from '../../shared/routes';
import { LIST_PARAMS, parseQuery, type ListQuery } from '../../shared/schemas/query';
import { stores } from '../../shared/stores';

export const listCurrencies: RouteHandler = async (event: ApiEvent) => {
  const query = parseQuery<ListQuery>(queryValues(event), LIST_PARAMS);
  const { docs, page } = await listCatalog(stores(), 'currencies', query);
  return jsonResult(listBody(docs, page));
};

export const getCurrency: RouteHandler = async (event: ApiEvent) => {
  const found = await getCurrencyDetail(stores(), event.pathParameters?.slug ?? '');
  if (found && 'redirectTo' in found) return redirectResult(event, found.redirectTo);
  parseQuery(queryValues(event), {});
  return jsonResult(foundDoc(found, 'currencies'));
};

export const routes: Record<string, RouteHandler> = {
  [`${API_PREFIX}/currencies`]: listCurrencies,
  [`${API_PREFIX}/currencies/{slug}`]: getCurrency,
};

export const handler = apiHandler(routes);
