/**
 * The deployed stack's `docs` function: serves the API description and the docs page without a
 * key, from the same code as the local gateway. API Gateway routes `GET /openapi.json`,
 * `GET /docs` and `GET /docs/{asset}` here (no authorizer). When the function is bundled, the
 * Swagger UI files must be copied next to the bundle under `swagger-ui/` (see assets.ts).
 */
import { randomUUID } from 'node:crypto';
import { CORS_HEADERS } from '../../shared/cors';
import type { ApiEvent, ApiResult } from '../../shared/http';
import { gatewayResponseBody, GATEWAY_RESPONSES } from '../../shared/gateway-responses';
import { publicDocument } from './documents';

/** The document path of a request, independent of stage names and base path mappings. */
function documentPathOf(event: Pick<ApiEvent, 'resource' | 'pathParameters'>): string {
  if (event.resource === '/docs/{asset}') return `/docs/${event.pathParameters?.asset ?? ''}`;
  return event.resource;
}

export async function handler(event: ApiEvent): Promise<ApiResult> {
  const requestId = event.requestContext?.requestId ?? randomUUID();
  const found = event.httpMethod === 'GET' ? publicDocument(documentPathOf(event)) : undefined;
  if (!found) {
    const spec = GATEWAY_RESPONSES.MISSING_AUTHENTICATION_TOKEN;
    return {
      statusCode: spec.statusCode,
      headers: { ...CORS_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId },
      body: gatewayResponseBody(spec),
    };
  }
  const body = typeof found.body === 'string' ? found.body : found.body.toString('utf8');
  return { statusCode: found.status, headers: { ...CORS_HEADERS, ...found.headers, 'X-Request-Id': requestId }, body };
}
