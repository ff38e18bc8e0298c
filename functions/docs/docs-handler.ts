/**
 * The deployed stack's `docs` function: everything served without a key, from the same code as
 * the local gateway. API Gateway routes `GET /openapi.json`, `GET /docs`, `GET /docs/{asset}` and
 * `GET /api/v1/status` here (no authorizer, no budget, a throttle below the stage's). The
 * documents are static (the stack copies Swagger UI's files next to the bundle, documents.ts);
 * the status reads the snapshot pointer, its only access to the table.
 */
import { randomUUID } from 'node:crypto';
import { CORS_HEADERS } from '../../shared/http/cors';
import { GATEWAY_RESPONSES, gatewayResponseBody } from '../../shared/http/gateway-responses';
import { type ApiEvent, type ApiResult, CACHE_CONTROL, queryValues } from '../../shared/http/http';
import { errorResponse, toApiError } from '../../shared/http/middleware/error-envelope';
import { NO_QUERY, parseQuery } from '../../shared/http/query';
import { STATUS_PATH } from '../../shared/http/routes';
import { publicDocument } from './documents';

export interface DocsDeps {
  /** The body of `GET /api/v1/status` at a time (epoch ms): shared/domain/status.ts on the snapshot pointer. */
  status: (nowMs: number) => Promise<unknown>;
  /** The request time: `stale` is measured against it. */
  clock: () => Date;
  /** Seconds a client is told to wait after a 503. */
  retryAfterSeconds: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** The document path of a request, independent of stage names and base path mappings. */
function documentPathOf(event: Pick<ApiEvent, 'resource' | 'pathParameters'>): string {
  if (event.resource === '/docs/{asset}') return `/docs/${event.pathParameters?.asset ?? ''}`;
  return event.resource;
}

export function docsHandler(deps: DocsDeps) {
  /**
   * `GET /api/v1/status` (docs/api.md, "Freshness"): no key, no budget; strict about its (empty)
   * query like every route. Never stored by a cache: it is the answer to "how old is the data now".
   */
  async function status(event: ApiEvent, headers: Record<string, string>): Promise<ApiResult> {
    try {
      parseQuery(NO_QUERY(), queryValues(event));
      const body = JSON.stringify(await deps.status(deps.clock().getTime()));
      return { statusCode: 200, headers: { ...headers, 'Content-Type': JSON_TYPE }, body };
    } catch (error) {
      const refusal = errorResponse(toApiError(error, deps.retryAfterSeconds));
      return { ...refusal, headers: { ...headers, ...refusal.headers } };
    }
  }

  return async function handler(event: ApiEvent): Promise<ApiResult> {
    const requestId = event.requestContext?.requestId ?? randomUUID();
    const path = documentPathOf(event);
    if (event.httpMethod === 'GET' && path === STATUS_PATH) {
      return status(event, { ...CORS_HEADERS, 'Cache-Control': CACHE_CONTROL.none, 'X-Request-Id': requestId });
    }
    const found = event.httpMethod === 'GET' ? publicDocument(path) : undefined;
    if (!found) {
      const spec = GATEWAY_RESPONSES.MISSING_AUTHENTICATION_TOKEN;
      return {
        statusCode: spec.statusCode,
        headers: { ...CORS_HEADERS, 'Content-Type': JSON_TYPE, 'X-Request-Id': requestId },
        body: gatewayResponseBody(spec),
      };
    }
    const body = typeof found.body === 'string' ? found.body : found.body.toString('utf8');
    return {
      statusCode: found.status,
      headers: { ...CORS_HEADERS, ...found.headers, 'X-Request-Id': requestId },
      body,
    };
  };
}
