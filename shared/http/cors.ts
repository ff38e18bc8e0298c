/**
 * CORS for browser clients: any origin may call the API with a Bearer key (no cookies are used),
 * send If-None-Match (and to `POST /mcp` the MCP protocol version), and read the usage, rate-limit, validator, paging (CSV lists' `X-Total-Count` and `X-Snapshot` included), retry and deprecation
 * headers (Cache-Control and Last-Modified are safelisted). The functions add these headers to their responses, the gateway responses and
 * the key-free preflight carry them too, locally and deployed.
 */
export const CORS_ALLOW_ORIGIN = '*';
export const CORS_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'If-None-Match', 'Mcp-Protocol-Version'];
export const CORS_ALLOW_METHODS = ['GET', 'POST', 'OPTIONS'];
export const CORS_EXPOSE_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Quota-Limit',
  'X-Quota-Remaining',
  'X-Quota-Reset',
  'RateLimit-Policy',
  'RateLimit',
  'ETag',
  'Retry-After',
  'Location',
  'Link',
  'Deprecation',
  'Sunset',
  'X-Total-Count',
  'X-Snapshot',
];
export const CORS_MAX_AGE_SECONDS = 600;

/** Headers of every API response. */
export const CORS_HEADERS: Record<string, string> = {
  'Access-Control-Allow-Origin': CORS_ALLOW_ORIGIN,
  'Access-Control-Expose-Headers': CORS_EXPOSE_HEADERS.join(','),
};

/** Headers of a preflight (OPTIONS) answer. */
export const CORS_PREFLIGHT_HEADERS: Record<string, string> = {
  ...CORS_HEADERS,
  'Access-Control-Allow-Headers': CORS_ALLOW_HEADERS.join(','),
  'Access-Control-Allow-Methods': CORS_ALLOW_METHODS.join(','),
  'Access-Control-Max-Age': String(CORS_MAX_AGE_SECONDS),
};
