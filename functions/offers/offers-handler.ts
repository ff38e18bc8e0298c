/** Offers of every family: filtered lists, details and changes between versions (docs/api.md, "Offers"). */

import type { OfferFamily } from '../../shared/data/keys';
import { offerChanges } from '../../shared/domain/changes';
import { getOffer, type Includes, listOffers } from '../../shared/domain/offers';
import { changesResult, docResult, offerListResult } from '../../shared/http/answers';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, queryValues } from '../../shared/http/http';
import { apiHandler, type RouteHandler, type RouteHandlers } from '../../shared/http/middleware/api-handler';
import { CHANGES_QUERY, OFFER_DETAIL_QUERY, OFFER_LIST_QUERY, parseOfferId, parseQuery } from '../../shared/http/query';
import { type OperationOf, perOfferFamily } from '../../shared/http/routes';

/** The offers function's route handlers, by operation: the function serves them, the MCP endpoint calls them (ADR 0027). */
export function offersRoutes(deps: ApiDeps): RouteHandlers<OperationOf<'offers'>> {
  const { stores } = deps;
  const list =
    (family: OfferFamily): RouteHandler =>
    async (event: ApiEvent) => {
      const query = parseQuery(OFFER_LIST_QUERY[family](), queryValues(event));
      const includes: Includes = 'include' in query ? query : {};
      return offerListResult(event, family, await listOffers(stores, family, query), includes);
    };
  const changes =
    (family: OfferFamily): RouteHandler =>
    async (event: ApiEvent) => {
      const query = parseQuery(CHANGES_QUERY[family](), queryValues(event));
      return changesResult(event, await offerChanges(stores, family, query));
    };
  const detail =
    (family: OfferFamily): RouteHandler =>
    async (event: ApiEvent) => {
      const id = parseOfferId(event.pathParameters?.id);
      const query = parseQuery(OFFER_DETAIL_QUERY[family](), queryValues(event));
      return docResult(await getOffer(stores, family, id, query));
    };
  return {
    ...perOfferFamily('list', list),
    ...perOfferFamily('changes', changes),
    ...perOfferFamily('detail', detail),
  };
}

export const offersHandler = (deps: ApiDeps) => apiHandler('offers', offersRoutes(deps), deps);
