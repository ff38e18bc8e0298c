/**
 * The MCP endpoint (docs/api.md, "For assistants and agents"; ADR 0027): its tools call the route
 * handlers of the functions that serve them, in this function's process, on its stores.
 */

import type { ApiDeps } from '../../shared/http/api-deps';
import { mcpRoute } from '../../shared/http/mcp-server';
import { type ApiDescription, deriveTools, type ToolContext } from '../../shared/http/mcp-tools';
import { apiHandler, type RouteHandlers } from '../../shared/http/middleware/api-handler';
import { type OperationOf, ROUTES, type Route } from '../../shared/http/routes';
import { currenciesRoutes } from '../currencies/currencies-handler';
import { historyRoutes } from '../history/history-handler';
import { offersRoutes } from '../offers/offers-handler';
import { platformsRoutes } from '../platforms/platforms-handler';
import { searchRoutes } from '../search/search-handler';

/** `description`: the API description (docs/openapi.json); `routes`: the route table (tests give their own). */
function mcpRoutes(
  deps: ApiDeps,
  description: ApiDescription,
  routes: readonly Route[] = ROUTES,
): RouteHandlers<OperationOf<'mcp'>> {
  const handlers: ToolContext['handlers'] = {
    ...platformsRoutes(deps),
    ...currenciesRoutes(deps),
    ...offersRoutes(deps),
    ...historyRoutes(deps),
    ...searchRoutes(deps),
  };
  const tools = deriveTools(routes, description);
  // A tool whose route no function here serves would fail every call: refuse to start instead.
  const missing = tools.flatMap((t) => t.routes.filter((r) => !handlers[r.route.operationId]));
  if (missing.length > 0)
    throw new Error(`no handler for ${missing.map((r) => r.route.operationId).join(', ')}: add its function's routes`);
  return {
    postMcp: mcpRoute({
      tools,
      version: description.info.version,
      handlers,
      retryAfterSeconds: deps.retryAfterSeconds,
    }),
  };
}

export const mcpHandler = (deps: ApiDeps, description: ApiDescription) =>
  apiHandler('mcp', mcpRoutes(deps, description), deps);
