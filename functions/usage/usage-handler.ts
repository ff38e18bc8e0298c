/** The calling key's plan and budgets (docs/api.md, "Usage"): the numbers of this request's own charge. */

import type { BudgetUsage, Usage } from '../../shared/domain/quota';
import type { ApiDeps } from '../../shared/http/api-deps';
import { type ApiEvent, jsonResult, queryValues } from '../../shared/http/http';
import { type ApiContext, apiHandler } from '../../shared/http/middleware/api-handler';
import { chargedRequest } from '../../shared/http/middleware/usage-quota';
import { NO_QUERY, parseQuery } from '../../shared/http/query';

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();
const budgetBody = (b: BudgetUsage) => ({ used: b.used, remaining: b.remaining, reset_at: iso(b.resetAt) });

/** The `/usage` body: the same numbers as the usage headers of the same response. */
function usageBody(usage: Usage, premiumUntil: string | null) {
  return {
    // Only a key of an active premium subscription gets past the authorizer.
    plan: 'premium' as const,
    premium_until: premiumUntil === null ? null : new Date(premiumUntil).toISOString(),
    limits: { per_minute: usage.limits.perMinute, per_month: usage.limits.perMonth },
    minute: budgetBody(usage.minute),
    month: budgetBody(usage.month),
  };
}

export function usageHandler(deps: ApiDeps) {
  return apiHandler(
    'usage',
    {
      // No data read: the answer is the request's charge, settled (a refusal replaces it).
      getUsage: async (event: ApiEvent, context: ApiContext) => {
        parseQuery(NO_QUERY(), queryValues(event));
        const { caller, charge } = await chargedRequest(context);
        return jsonResult(JSON.stringify(usageBody(charge.usage, caller.premiumUntil)));
      },
    },
    deps,
  );
}
