/** Earn, borrow and collateral offers: filtered lists and details (docs/api.md, "Offers"). */
import type { ApiDeps } from '../../shared/api-deps';
import { getOffer, listOffers } from '../../shared/domain/offers';
import { jsonResult, listBody, queryValues, type ApiEvent } from '../../shared/http';
import type { OfferFamily } from '../../shared/keys';
import { apiHandler, type RouteHandler } from '../../shared/middleware/api-handler';
import { NO_QUERY, OFFER_LIST_QUERY, parseOfferId, parseQuery } from '../../shared/schemas/query';

export function offersHandler(deps: ApiDeps) {
  const { stores } = deps;
  const list = (family: OfferFamily): RouteHandler => async (event: ApiEvent) => {
    const query = parseQuery(OFFER_LIST_QUERY[family](), queryValues(event));
    const { docs, page } = await listOffers(stores, family, query);
    return jsonResult(listBody(docs, page));
  };
  const detail = (family: OfferFamily): RouteHandler => async (event: ApiEvent) => {
    const id = parseOfferId(event.pathParameters?.id);
    parseQuery(NO_QUERY(), queryValues(event));
    return jsonResult(await getOffer(stores, family, id));
  };
  return apiHandler(
    'offers',
    {
      listEarnOffers: list('earn'),
      getEarnOffer: detail('earn'),
      listBorrowOffers: list('borrow'),
      getBorrowOffer: detail('borrow'),
      listCollateralOffers: list('collateral'),
      getCollateralOffer: detail('collateral'),
    },
    deps,
  );
}
