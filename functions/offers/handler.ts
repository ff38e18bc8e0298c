/** Earn, borrow and collateral offers: filtered lists and details (specification 4.4, 4.5). */
import { getOffer, listOffers } from '../../shared/domain/offers';
import { jsonResult, listBody, queryValues, type ApiEvent } from '../../shared/http';
import type { OfferFamily } from '../../shared/keys';
import { apiHandler, type RouteHandler } from '../../shared/middleware/api-handler';
import { API_PREFIX } from '../../shared/routes';
import { OFFER_LIST_PARAMS, parseOfferId, parseQuery, type OfferQuery } from '../../shared/schemas/query';
import { stores } from '../../shared/stores';

export const listOfferFamily = (family: OfferFamily): RouteHandler => async (event: ApiEvent) => {
  const query = parseQuery<OfferQuery>(queryValues(event), OFFER_LIST_PARAMS[family]);
  const { docs, page } = await listOffers(stores(), family, query);
  return jsonResult(listBody(docs, page));
};

export const getOfferOfFamily = (family: OfferFamily): RouteHandler => async (event: ApiEvent) => {
  const id = parseOfferId(event.pathParameters?.id);
  parseQuery(queryValues(event), {});
  return jsonResult(await getOffer(stores(), family, id));
};

const families: OfferFamily[] = ['earn', 'borrow', 'collateral'];

export const routes: Record<string, RouteHandler> = Object.fromEntries(
  families.flatMap((family) => [
    [`${API_PREFIX}/${family}`, listOfferFamily(family)],
    [`${API_PREFIX}/${family}/{id}`, getOfferOfFamily(family)],
  ]),
);

export const handler = apiHandler(routes);
