/** The owner's view of webhooks (docs/api.md, "Webhooks"): the calling key's user's subscriptions and their deliveries. */

import { z } from 'zod/mini';
import type { WebhookStore } from '../../shared/data/webhook-store';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, jsonResult, queryValues } from '../../shared/http/http';
import { type ApiContext, apiHandler } from '../../shared/http/middleware/api-handler';
import { chargedRequest } from '../../shared/http/middleware/usage-quota';
import { PAGE_QUERY, parseQuery, WEBHOOK_ID_PATH } from '../../shared/http/query';
import { ValidationError } from '../../shared/platform/errors';
import { listDeliveries, listSubscriptions } from '../../shared/webhooks/owner-view';

export function webhooksHandler(deps: ApiDeps, store: WebhookStore) {
  return apiHandler(
    'webhooks',
    {
      listWebhooks: async (event: ApiEvent, context: ApiContext) => {
        const query = parseQuery(PAGE_QUERY(), queryValues(event));
        const { caller } = await chargedRequest(context);
        return jsonResult(JSON.stringify(await listSubscriptions(store, caller.userId, query)));
      },
      listWebhookDeliveries: async (event: ApiEvent, context: ApiContext) => {
        const path = z.safeParse(WEBHOOK_ID_PATH(), { id: event.pathParameters?.id ?? '' });
        if (!path.success) throw new ValidationError(path.error.issues.map((issue) => issue.message));
        const query = parseQuery(PAGE_QUERY(), queryValues(event));
        const { caller } = await chargedRequest(context);
        return jsonResult(
          JSON.stringify(await listDeliveries(store, caller.userId, path.data.id, deps.clock(), query)),
        );
      },
    },
    deps,
  );
}
