/**
 * Every function of the API built from the same factories their composition roots call, on the
 * given clients and configuration: the local stack, the benchmark and the tests serve these.
 */

import openapiDocument from '../docs/openapi.json';
import { type AuthorizerHandler, authorizerHandler } from '../functions/authorizer/authorizer';
import { currenciesHandler } from '../functions/currencies/currencies-handler';
import { historyHandler } from '../functions/history/history-handler';
import { mcpHandler } from '../functions/mcp/mcp-handler';
import { offersHandler } from '../functions/offers/offers-handler';
import { platformsHandler } from '../functions/platforms/platforms-handler';
import { searchHandler } from '../functions/search/search-handler';
import { usageHandler } from '../functions/usage/usage-handler';
import { webhooksHandler } from '../functions/webhooks/webhooks-handler';
import { KeyStore } from '../shared/accounts/key-store';
import { WebhookStore } from '../shared/data/webhook-store';
import { type ApiDeps, createApiDeps } from '../shared/http/api-deps';
import type { Clock } from '../shared/platform/clock';
import type { RuntimeConfig } from '../shared/platform/config';
import type { Clients } from '../shared/platform/dynamodb';

/** @internal (exported for its tests) */
export interface ApiFunctions {
  platforms: ReturnType<typeof platformsHandler>;
  currencies: ReturnType<typeof currenciesHandler>;
  offers: ReturnType<typeof offersHandler>;
  history: ReturnType<typeof historyHandler>;
  search: ReturnType<typeof searchHandler>;
  mcp: ReturnType<typeof mcpHandler>;
  usage: ReturnType<typeof usageHandler>;
  webhooks: ReturnType<typeof webhooksHandler>;
}

export interface BuiltFunctions {
  handlers: ApiFunctions;
  authorizer: AuthorizerHandler;
  keyStore: KeyStore;
  deps: ApiDeps;
}

export function buildFunctions(config: RuntimeConfig, clients: Clients, clock: Clock): BuiltFunctions {
  const deps = createApiDeps(config, clients, clock);
  const keyStore = new KeyStore(clients.client, config.tableName, config.keyPepper, clock);
  return {
    handlers: {
      platforms: platformsHandler(deps),
      currencies: currenciesHandler(deps),
      offers: offersHandler(deps),
      history: historyHandler(deps),
      search: searchHandler(deps),
      mcp: mcpHandler(deps, openapiDocument),
      usage: usageHandler(deps),
      webhooks: webhooksHandler(deps, new WebhookStore(clients.client, config.tableName)),
    },
    authorizer: authorizerHandler({ store: keyStore, clock }),
    keyStore,
    deps,
  };
}
