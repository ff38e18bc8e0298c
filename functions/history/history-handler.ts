/** Offer history (docs/api.md, "History"): the series of a family's offers, of one offer or several; a family without history (its declaration's `history` empty) answers 404. */

import { getHistories, getHistory } from '../../shared/domain/history';
import { historiesResult, historyResult } from '../../shared/http/answers';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, queryValues } from '../../shared/http/http';
import { apiHandler, type RouteHandler, type RouteHandlers } from '../../shared/http/middleware/api-handler';
import { HISTORIES_QUERY, HISTORY_QUERY, parseOfferId, parseQuery } from '../../shared/http/query';
import { type OperationOf, perOfferFamily } from '../../shared/http/routes';
import { type HistoryFamily, isHistoryFamily, type OfferFamily } from '../../shared/model/offer-families';
import { NotFoundError } from '../../shared/platform/errors';

/** The history function's route handlers, by operation: the function serves them, the MCP endpoint calls them (ADR 0027). */
export function historyRoutes(deps: ApiDeps): RouteHandlers<OperationOf<'history'>> {
  const { stores, clock } = deps;
  const series =
    (family: HistoryFamily): RouteHandler =>
    async (event: ApiEvent) => {
      const id = parseOfferId(event.pathParameters?.id);
      const window = parseQuery(HISTORY_QUERY(), queryValues(event));
      return historyResult(event, family, id, await getHistory(stores, family, id, window, clock()));
    };
  const several =
    (family: HistoryFamily): RouteHandler =>
    async (event: ApiEvent) => {
      const { ids, ...window } = parseQuery(HISTORIES_QUERY(), queryValues(event));
      return historiesResult(event, family, await getHistories(stores, family, ids, window, clock()));
    };
  // A family without history: always 404, whatever the id and query, after authentication and quotas.
  const none =
    (family: OfferFamily): RouteHandler =>
    async () => {
      throw new NotFoundError(`${family[0].toUpperCase()}${family.slice(1)} offers have no stored history.`);
    };
  return {
    ...perOfferFamily('history', (family) => (isHistoryFamily(family) ? series(family) : none(family))),
    ...perOfferFamily('histories', (family) => (isHistoryFamily(family) ? several(family) : none(family))),
  };
}

export const historyHandler = (deps: ApiDeps) => apiHandler('history', historyRoutes(deps), deps);
