/** Offer history (docs/api.md, "History"): earn and borrow series; collateral history is never stored. */

import type { HistoryFamily } from '../../shared/data/keys';
import { getHistory } from '../../shared/domain/history';
import { historyResult } from '../../shared/http/answers';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, queryValues } from '../../shared/http/http';
import { apiHandler, type RouteHandler } from '../../shared/http/middleware/api-handler';
import { HISTORY_QUERY, parseOfferId, parseQuery } from '../../shared/http/query';
import { NotFoundError } from '../../shared/platform/errors';

export function historyHandler(deps: ApiDeps) {
  const { stores, clock } = deps;
  const series =
    (family: HistoryFamily): RouteHandler =>
    async (event: ApiEvent) => {
      const id = parseOfferId(event.pathParameters?.id);
      const { period } = parseQuery(HISTORY_QUERY(), queryValues(event));
      return historyResult(event, family, id, await getHistory(stores, family, id, period, clock()));
    };
  return apiHandler(
    'history',
    {
      getEarnHistory: series('earn'),
      getBorrowHistory: series('borrow'),
      // Always 404, whatever the id and query, after authentication and quotas.
      getCollateralHistory: async () => {
        throw new NotFoundError('Collateral offers have no stored history.');
      },
    },
    deps,
  );
}
