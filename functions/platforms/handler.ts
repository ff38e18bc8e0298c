/** Exchanges, wallets and protocols: lists and details (specification 4.2, 4.3). */
import { foundDoc, getCatalogRecord, listCatalog } from '../../shared/domain/catalog';
import { jsonResult, listBody, queryValues, redirectResult, type ApiEvent } from '../../shared/http';
import type { PlatformFamily } from '../../shared/keys';
import { apiHandler, type RouteHandler } from '../../shared/middleware/api-handler';
import { API_PREFIX } from '../../shared/routes';
import { LIST_PARAMS, parseQuery, type ListQuery } from '../../shared/schemas/query';
import { stores } from '../../shared/stores';

export const listPlatforms = (family: PlatformFamily): RouteHandler => async (event: ApiEvent) => {
  const query = parseQuery<ListQuery>(queryValues(event), LIST_PARAMS);
  const { docs, page } = await listCatalog(stores(), family, query);
  return jsonResult(listBody(docs, page));
};

export const getPlatform = (family: PlatformFamily): RouteHandler => async (event: ApiEvent) => {
  const found = await getCatalogRecord(stores(), family, event.pathParameters?.slug ?? '');
  if (found && 'redirectTo' in found) return redirectResult(event, found.redirectTo);
  parseQuery(queryValues(event), {});
  return jsonResult(foundDoc(found, family));
};

const families: PlatformFamily[] = ['exchanges', 'wallets', 'protocols'];

export const routes: Record<string, RouteHandler> = Object.fromEntries(
  families.flatMap((family) => [
    [`${API_PREFIX}/${family}`, listPlatforms(family)],
    [`${API_PREFIX}/${family}/{slug}`, getPlatform(family)],
  ]),
);

export const handler = apiHandler(routes);
