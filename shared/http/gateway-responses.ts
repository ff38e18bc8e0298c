/**
 * What API Gateway itself answers (gateway responses): the error envelope for failures that
 * happen before a family function runs. The CDK stack configures them from this table and the
 * local gateway answers from it, so the two give the same answers.
 */
import type { ErrorCode } from '../platform/errors';

/** The one content type of every JSON answer: the functions', the gateway responses', the local gateway's. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Every answer may come in another content coding for a client that accepts one (the functions
 * compress large bodies), so every answer says it varies on Accept-Encoding, an uncompressed one
 * included, or a cache could serve a stored coding to a client that cannot read it.
 */
export const VARY_ENCODING = 'Accept-Encoding';

/** What an answer that may not be kept says (shared/http/http.ts CACHE_CONTROL.none). */
export const NO_STORE = 'no-store';

export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'THROTTLED'
  | 'INTEGRATION_TIMEOUT'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayResponseSpec {
  statusCode: number;
  code: ErrorCode;
  message: string;
  headers?: Record<string, string>;
  details?: Record<string, unknown>;
}

/**
 * The Bearer challenge of every 401 (RFC 6750). API Gateway gives one response type, UNAUTHORIZED,
 * to a missing header, a value its identity validation refuses and a key the authorizer refuses,
 * and can only set static headers, so it cannot tell "no key" from "bad key": every 401 carries
 * `error="invalid_token"` (docs/adr/0003-infrastructure.md), locally too.
 */
export const BEARER_CHALLENGE = 'Bearer error="invalid_token"';

export const GATEWAY_RESPONSES: Record<GatewayResponseType, GatewayResponseSpec> = {
  UNAUTHORIZED: {
    statusCode: 401,
    code: 'invalid_api_key',
    message: 'The Bearer API key is missing, invalid or revoked.',
    headers: { 'WWW-Authenticate': BEARER_CHALLENGE },
  },
  ACCESS_DENIED: {
    statusCode: 403,
    code: 'subscription_required',
    message: 'The API key owner has no active premium subscription.',
  },
  // API Gateway answers unknown routes and methods with this type.
  MISSING_AUTHENTICATION_TOKEN: { statusCode: 404, code: 'not_found', message: 'No such route.' },
  AUTHORIZER_FAILURE: {
    statusCode: 503,
    code: 'service_unavailable',
    message: 'A required internal dependency is unavailable. Retry later.',
    headers: { 'Retry-After': '1' },
  },
  AUTHORIZER_CONFIGURATION_ERROR: {
    statusCode: 503,
    code: 'service_unavailable',
    message: 'A required internal dependency is unavailable. Retry later.',
    headers: { 'Retry-After': '1' },
  },
  // The stage-wide throttle sheds load for everybody; a key's own budget is the 429 of the
  // functions, which alone can tell its window and limit (docs/adr/0002).
  THROTTLED: {
    statusCode: 503,
    code: 'service_unavailable',
    message: 'The service is shedding load. Retry later.',
    headers: { 'Retry-After': '1' },
  },
  INTEGRATION_TIMEOUT: {
    statusCode: 503,
    code: 'service_unavailable',
    message: 'A required internal dependency is unavailable. Retry later.',
    headers: { 'Retry-After': '1' },
  },
  // validation_error always lists its violated rules (docs/api.md, "Errors").
  DEFAULT_4XX: {
    statusCode: 400,
    code: 'validation_error',
    message: 'The request is invalid.',
    details: { message: ['the request was rejected by the gateway before reaching the API'] },
  },
  DEFAULT_5XX: { statusCode: 500, code: 'internal_error', message: 'An unexpected error occurred.' },
};

/**
 * A method a path does not take, where the route table says its path takes one only
 * (`Route.onlyMethod`: `GET` or `DELETE` on `/mcp`): no gateway response type of API Gateway, but
 * a mock method answering before the authorizer (lib/constructs/rest-api.ts) and the local gateway
 * give it alike, with the headers of a gateway response.
 */
export const methodNotAllowedResponse = (allow: string): GatewayResponseSpec => ({
  statusCode: 405,
  code: 'method_not_allowed',
  message: `This path takes ${allow} only.`,
  headers: { Allow: allow },
});

/**
 * What the web application firewall answers (custom responses of its block actions, on stages
 * that enable it): its per-address rate rule is a 429 the client may retry after the window; a
 * request refused for its content is a 400, which retrying will not change. WAF knows neither the
 * key's window nor the request id, so `details` of the 429 is null and there is no X-Request-Id.
 */
export const WAF_RESPONSES = {
  rateLimited: {
    statusCode: 429,
    code: 'rate_limit_exceeded',
    message: 'Too many requests from this address. Retry later.',
    headers: { 'Retry-After': '60' },
  },
  refused: {
    statusCode: 400,
    code: 'validation_error',
    message: 'The request is invalid.',
    details: { message: ['the request was refused by the web application firewall'] },
  },
} as const satisfies Record<string, GatewayResponseSpec>;

/**
 * Headers of every gateway response, beside CORS and the request id: the one JSON content type,
 * nothing to keep (`Cache-Control: no-store`, which the description promises on every answer),
 * and `Vary: Accept-Encoding` like every other answer.
 */
export const GATEWAY_RESPONSE_HEADERS: Record<string, string> = {
  'Content-Type': JSON_CONTENT_TYPE,
  'Cache-Control': NO_STORE,
  Vary: VARY_ENCODING,
};

/** The envelope body of a gateway response. */
export const gatewayResponseBody = (spec: GatewayResponseSpec) =>
  JSON.stringify({ error: { code: spec.code, message: spec.message, details: spec.details ?? null } });
