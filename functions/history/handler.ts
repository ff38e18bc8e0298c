/** Offer history (specification 4.6): earn and borrow series; collateral history is never stored. */
import { getHistory } from '../../shared/domain/history';
import { NotFoundError } from '../../shared/errors';
import { jsonResult, queryValues, type ApiEvent } from '../../shared/http';
import type { HistoryFamily } from '../../shared/keys';
import { apiHandler, type RouteHandler } from '../../shared/middleware/api-handler';
import { API_PREFIX } from '../../shared/routes';
import { HISTORY_PARAMS, parseOfferId, parseQuery, type HistoryQuery } from '../../shared/schemas/query';
import { stores } from '../../shared/stores';

export const offerHistory = (family: HistoryFamily, now: () => Date = () => new Date()): RouteHandler => async (event: ApiEvent) => {
  const id = parseOfferId(event.pathParameters?.id);
  const { period } = parseQuery<HistoryQuery>(queryValues(event), HISTORY_PARAMS);
  return jsonResult(await getHistory(stores(), family, id, period, now()));
};

/** Always 404, whatever the id and query, after authentication and quotas. */
export const collateralHistory: RouteHandler = async () => {
  throw new NotFoundError('Collateral offers have no stored history.');
};

export const routes: Record<string, RouteHandler> = {
  [`${API_PREFIX}/earn/{id}/history`]: offerHistory('earn'),
  [`${API_PREFIX}/borrow/{id}/history`]: offerHistory('borrow'),
  [`${API_PREFIX}/collateral/{id}/history`]: collateralHistory,
};

export const handler = apiHandler(routes);
