/**
 * The OpenAPI 3.1 document, built from the route table, the zod schemas (parameters and bodies), the
 * error table and the gateway responses. `npm run openapi` writes it to docs/openapi.json; the
 * contract tests validate every response they see against that file.
 */
import * as z from 'zod/mini';
import { CORS_ALLOW_ORIGIN } from '../../shared/http/cors';
import { CSV_CONTENT_TYPE } from '../../shared/http/csv';
import { shortNotices } from '../../shared/http/deprecation';
import { BEARER_CHALLENGE, GATEWAY_RESPONSES, WAF_RESPONSES } from '../../shared/http/gateway-responses';
import { CACHE_CONTROL } from '../../shared/http/http';
import {
  API_PREFIX,
  type Deprecation,
  DOCS_PATH,
  OPENAPI_PATH,
  type OperationId,
  ROUTES,
  type Route,
  STATUS_PATH,
} from '../../shared/http/routes';
import { HISTORY_FAMILIES, inWords, OFFER_FAMILIES } from '../../shared/model/offer-families';
import { componentSchemas, type JsonSchema, schemaRef } from './components';
import { overview } from './descriptions';
import { BODY_EXAMPLES, IF_NONE_MATCH_EXAMPLE, SNAPSHOT_EXAMPLES } from './examples';
import { OPERATIONS, type OperationSpec, type ParameterOverride, type Tag } from './operations';
import { type DocumentedSchema, PARAMETER_DESCRIPTIONS, PARAMETER_EXAMPLES, type ParameterName } from './parameters';
import type { SchemaName } from './response-schemas';

const OPENAPI_VERSION = '3.1.0';
const API_VERSION = '1.4.0';
/** Where the local stack listens (`npm start`, local/stack.ts): a base URL for generated clients. */
const LOCAL_SERVER = 'http://127.0.0.1:3000';
/** Who answers for the API: problems are reported with the answer's `X-Request-Id` (docs/api.md, "Errors"). */
const CONTACT = { name: 'Market Data API maintainers' };
const SECURITY_SCHEME = 'bearerAuth';

/** @internal (exported for its tests) */
export const USAGE_HEADER_DESCRIPTIONS = [
  ['X-RateLimit-Limit', 'Effective requests-per-minute limit of the key.'],
  ['X-RateLimit-Remaining', 'Requests left in the current minute window (`0` on a per-minute refusal).'],
  ['X-RateLimit-Reset', 'Unix timestamp (seconds) of the next per-minute window: the next UTC minute.'],
  ['X-Quota-Limit', 'Effective monthly quota of the key.'],
  ['X-Quota-Remaining', 'Requests left in the current monthly window (`0` on a monthly refusal).'],
  ['X-Quota-Reset', 'Unix timestamp (seconds) of the next monthly reset: the next 1st of the month, 00:00 UTC.'],
] as const;

/**
 * The standard twins of the usage headers: draft-ietf-httpapi-ratelimit-headers-11 (23 May 2026),
 * one policy per budget (shared/domain/quota.ts).
 * @internal (exported for its tests)
 */
export const RATE_LIMIT_HEADER_DESCRIPTIONS = [
  [
    'RateLimit-Policy',
    'The key\'s quota policies as defined by the IETF httpapi draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-11): ' +
      'a Structured Fields List of two policies, `"minute"` with its quota `q` and window `w=60` seconds, and `"month"` with its quota `q` ' +
      '(a calendar month in UTC, whose length varies, so no fixed `w`). Example: `"minute";q=60;w=60, "month";q=100000`.',
    '^"minute";q=[0-9]+;w=60, "month";q=[0-9]+$',
  ],
  [
    'RateLimit',
    "The service limits of both policies (same draft): `r` the units remaining, `t` the seconds to the window's reset (rounded up, at least 1). " +
      'They equal `X-RateLimit-Remaining` and `X-Quota-Remaining`. Example: `"minute";r=57;t=42, "month";r=98766;t=1234567`.',
    '^"minute";r=[0-9]+;t=[1-9][0-9]*, "month";r=[0-9]+;t=[1-9][0-9]*$',
  ],
] as const;

/** Every header that comes with a charged request: the `X-*` fields and their standard twins. */
const CHARGED_HEADER_NAMES = [
  ...USAGE_HEADER_DESCRIPTIONS.map(([name]) => name),
  ...RATE_LIMIT_HEADER_DESCRIPTIONS.map(([name]) => name),
];

const DIGITS = { type: 'string', pattern: '^[0-9]+$' };

/** An example of each header: a request charged at 10:30:18 UTC on 20 November 2026, its third of the minute. */
const HEADER_EXAMPLES: Record<string, string> = {
  'X-Request-Id': 'c6a1f0de-4b7e-4f1a-9d2b-5e8c3a7f0b12',
  'X-RateLimit-Limit': '60',
  'X-RateLimit-Remaining': '57',
  'X-RateLimit-Reset': '1795689060',
  'X-Quota-Limit': '100000',
  'X-Quota-Remaining': '98766',
  'X-Quota-Reset': '1795996800',
  'RateLimit-Policy': '"minute";q=60;w=60, "month";q=100000',
  RateLimit: '"minute";r=57;t=42, "month";r=98766;t=307782',
  ETag: '"Yx0Jr1bKQ3C0lq6F0d9w0g"',
  'Cache-Control': CACHE_CONTROL.revalidate,
  'Retry-After': '42',
  Location: '/api/v1/exchanges/binance',
  'Last-Modified': 'Fri, 20 Nov 2026 10:00:00 GMT',
  'WWW-Authenticate': BEARER_CHALLENGE,
  'Access-Control-Allow-Origin': CORS_ALLOW_ORIGIN,
  'X-Request-Id-Unless-Firewall': 'c6a1f0de-4b7e-4f1a-9d2b-5e8c3a7f0b12',
  'X-Total-Count': '128',
  'X-Snapshot': SNAPSHOT_EXAMPLES.newer,
  Vary: 'Accept, Accept-Encoding',
  Link:
    `<${API_PREFIX}/earn?asset=tether,usd-coin&limit=50&offset=100&snapshot=${SNAPSHOT_EXAMPLES.newer}>; rel="next", ` +
    `<${API_PREFIX}/earn?asset=tether,usd-coin&limit=50&offset=0&snapshot=${SNAPSHOT_EXAMPLES.newer}>; rel="prev"`,
};

const example = (name: string): string => {
  const value = HEADER_EXAMPLES[name];
  if (value === undefined) throw new Error(`header ${name} has no example (tools/openapi/document.ts)`);
  return value;
};

/** RFC 9110 §5.6.7 IMF-fixdate, as `Date.prototype.toUTCString` writes it. */
const HTTP_DATE_PATTERN =
  '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$';

/** The firewall answers its refusals itself, before API Gateway: what they lack (lib/constructs/web-acl.ts). */
const FIREWALL_REFUSAL =
  'a refusal by the web application firewall (stages that enable it), which answers before API Gateway and knows no request id';

const REQUEST_ID_SCHEMA = { type: 'string', minLength: 1, maxLength: 128 };

const HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': {
    description: `Identifier of the request, on every response but ${FIREWALL_REFUSAL}. Quote it when reporting a problem.`,
    required: true,
    schema: REQUEST_ID_SCHEMA,
  },
  // On the statuses the firewall answers (400, 429): the same header, absent on its refusals.
  'X-Request-Id-Unless-Firewall': {
    description: `Identifier of the request. Absent only on ${FIREWALL_REFUSAL}.`,
    required: false,
    schema: REQUEST_ID_SCHEMA,
  },
  'WWW-Authenticate': {
    description:
      'The Bearer challenge (RFC 6750). API Gateway cannot tell a missing key from a refused one, so every 401 says `error="invalid_token"`.',
    required: true,
    schema: { type: 'string', const: BEARER_CHALLENGE },
  },
  'Access-Control-Allow-Origin': {
    description:
      'CORS: any web origin may read the answer (no cookies are used; the key travels in `Authorization`). On every answer.',
    required: true,
    schema: { type: 'string', const: CORS_ALLOW_ORIGIN },
  },
  ...Object.fromEntries(
    USAGE_HEADER_DESCRIPTIONS.map(([name, description]) => [
      name,
      { description: `${description} A string of digits.`, required: true, schema: DIGITS },
    ]),
  ),
  ...Object.fromEntries(
    RATE_LIMIT_HEADER_DESCRIPTIONS.map(([name, description, pattern]) => [
      name,
      { description, required: true, schema: { type: 'string', pattern } },
    ]),
  ),
  ETag: {
    description:
      'Strong entity tag of the body (a hash of its bytes): it changes when and only when the body does. ' +
      'Send it back in `If-None-Match` to get `304 Not Modified` instead of an unchanged body. A gzip- or deflate-coded answer is another representation of the same body, ' +
      'with its own tag (the same hash, suffixed `-gzip` or `-deflate`).',
    required: true,
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]+"$' },
  },
  'Cache-Control': {
    description:
      `\`${CACHE_CONTROL.revalidate}\` on lists, details and their 304: a client may keep the answer but must revalidate it (\`If-None-Match\`) before each use, ` +
      `and shared caches must not store it (it was fetched with a key). Every other answer is \`${CACHE_CONTROL.none}\`.`,
    required: true,
    schema: { type: 'string', const: CACHE_CONTROL.revalidate },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying, rounded up, at least 1.',
    required: true,
    schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
  },
  Location: {
    description: 'The same path with the current slug, on the same base path, query string kept.',
    required: true,
    schema: { type: 'string', format: 'uri-reference' },
  },
  'Last-Modified': {
    description:
      'When the newest data version the body depends on was published (an HTTP-date, UTC), on every `200` and `304` of a list or detail. ' +
      'It tells the age of what is served; revalidate with `If-None-Match` (the `ETag`): `If-Modified-Since` is not evaluated, since two versions published within one second share a date.',
    required: true,
    schema: { type: 'string', pattern: HTTP_DATE_PATTERN },
  },
  Link: {
    description:
      'Links to the neighbouring pages (RFC 8288): `rel="next"` while `pagination.has_more`, `rel="prev"` when `offset` > 0 (at `offset` minus `limit`, at least 0). ' +
      'Each is a relative reference (path and query, on the base path of the request) with the parameters of the request, `offset` moved and `snapshot` set to ' +
      '`pagination.snapshot`, so that following the links reads one data version from end to end. Absent when the page has neither neighbour.',
    required: false,
    schema: { type: 'string', minLength: 1 },
  },
  'X-Total-Count': {
    description:
      'On a `text/csv` list: `pagination.total` of the JSON answer, the number of offers the filters keep. A string of digits.',
    required: false,
    schema: DIGITS,
  },
  'X-Snapshot': {
    description:
      'On a `text/csv` list: `pagination.snapshot` of the JSON answer, the data version the page was read from (send it back as `snapshot=`).',
    required: false,
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
  },
  Vary: {
    description:
      'The answer has a JSON and a CSV representation (`Accept: text/csv`) and may be gzip- or deflate-coded: caches key it on `Accept` and `Accept-Encoding`. ' +
      'Each representation has its own `ETag`.',
    required: true,
    schema: { type: 'string', const: 'Accept, Accept-Encoding' },
  },
};
for (const [name, header] of Object.entries(HEADERS)) header.example = example(name);

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const usageHeaderRefs = () => Object.fromEntries(CHARGED_HEADER_NAMES.map((name) => [name, headerRef(name)]));
/**
 * The usage headers where only a charged request has them: on 500 and 503 (charged before the
 * failure, or not), and on 400 and 429 (not on a refusal by API Gateway or the firewall).
 */
const optionalUsageHeaders = (when = 'Present when the request was charged.') =>
  Object.fromEntries(
    [
      ...USAGE_HEADER_DESCRIPTIONS.map(([name, description]) => [name, description, DIGITS] as const),
      ...RATE_LIMIT_HEADER_DESCRIPTIONS.map(
        ([name, description, pattern]) => [name, description, { type: 'string', pattern }] as const,
      ),
    ].map(([name, description, schema]) => [
      name,
      { description: `${description} ${when}`, schema, example: example(name) },
    ]),
  );

/** A JSON body of a component schema, with its example. */
function json(schema: SchemaName) {
  const value = BODY_EXAMPLES[schema];
  if (value === undefined) throw new Error(`response schema ${schema} has no example (tools/openapi/examples.ts)`);
  return { content: { 'application/json': { schema: schemaRef(schema), example: value } } };
}

/** What a 400 that never reached a function is (shared/http/gateway-responses.ts DEFAULT_4XX, WAF_RESPONSES.refused). */
const REFUSED_BEFORE_THE_API =
  'A request refused before it reaches the API gets the same envelope: one API Gateway refuses (request line and headers over 10,240 bytes, a malformed header) ' +
  `says "${GATEWAY_RESPONSES.DEFAULT_4XX.details?.message}"; on stages that enable it, one the web application firewall refuses for its content ` +
  `says "${WAF_RESPONSES.refused.details.message[0]}" and has no \`X-Request-Id\`.`;

/** The firewall's per-address rate rule (stages that enable it): its own 429, before any key is read. */
const FIREWALL_RATE_LIMIT =
  `On stages that enable the web application firewall, an address that sends too many requests in 5 minutes gets \`rate_limit_exceeded\` from it, whatever the key: ` +
  `a \`FirewallRateLimitError\` (\`details: null\`: it knows no key's window) with \`Retry-After: ${WAF_RESPONSES.rateLimited.headers['Retry-After']}\`.`;

/** The usage headers of a status that a charged request and a refusal before the API share (400, 429). */
const chargedUnlessRefused = () =>
  optionalUsageHeaders('Present when the request was charged: absent on a refusal by API Gateway or the firewall.');

/** The CSV representation of a 200 (shared/http/csv.ts), with its example. */
const csvContent = (example: string) => ({
  [CSV_CONTENT_TYPE.split(';')[0]]: {
    schema: {
      type: 'string',
      description:
        'RFC 4180 CSV in UTF-8 without BOM: a header row, then one CRLF-ended row per offer or point (the overview\'s "CSV").',
    },
    example,
  },
});

const RESPONSES: Record<string, JsonSchema> = {
  NotModified: {
    description:
      'The `If-None-Match` of the request matches the current `ETag`: the body the client holds is current. No body; the `ETag`, `Last-Modified`, `Cache-Control` and usage headers a 200 would carry ' +
      '(not `Link`, which goes with the body the client holds). Charged like any other request.',
    headers: {
      ETag: headerRef('ETag'),
      'Last-Modified': headerRef('Last-Modified'),
      'Cache-Control': headerRef('Cache-Control'),
      'X-Request-Id': headerRef('X-Request-Id'),
      ...usageHeaderRefs(),
    },
  },
  MovedPermanently: {
    description: 'The slug was renamed: `Location` holds the current URL. Empty body, no envelope.',
    headers: { Location: headerRef('Location'), 'X-Request-Id': headerRef('X-Request-Id'), ...usageHeaderRefs() },
  },
  BadRequest: {
    description:
      `\`validation_error\`: a query or path parameter failed validation; \`details.message\` lists the violated rules. ${REFUSED_BEFORE_THE_API} ` +
      'Those refusals carry no usage headers (nothing was charged).',
    headers: { 'X-Request-Id': headerRef('X-Request-Id-Unless-Firewall'), ...chargedUnlessRefused() },
    ...json('ValidationError'),
  },
  Unauthorized: {
    description: `\`invalid_api_key\`: ${GATEWAY_RESPONSES.UNAUTHORIZED.message} No budget is taken and no usage headers are sent.`,
    headers: { 'WWW-Authenticate': headerRef('WWW-Authenticate'), 'X-Request-Id': headerRef('X-Request-Id') },
    ...json('InvalidApiKeyError'),
  },
  Forbidden: {
    description: `\`subscription_required\`: ${GATEWAY_RESPONSES.ACCESS_DENIED.message} No budget is taken and no usage headers are sent.`,
    headers: { 'X-Request-Id': headerRef('X-Request-Id') },
    ...json('SubscriptionRequiredError'),
  },
  NotFound: {
    description:
      '`not_found`: the resource does not exist or is not public (unpublished or delisted). ' +
      'An unknown route or method answers the same envelope before authentication, without usage headers (a method `/mcp` does not take: `405 method_not_allowed`).',
    headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...usageHeaderRefs() },
    ...json('NotFoundError'),
  },
  Gone: {
    description:
      '`snapshot_expired`: the data version named by `snapshot` (or, on changes, `since`) is not, or no longer, readable. Replaced versions stay readable at least 60 minutes. ' +
      '`details.parameter` names the parameter: read the list again without `snapshot`, or (for `since`) read the whole list again. Charged like any other request.',
    headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...usageHeaderRefs() },
    ...json('SnapshotExpiredError'),
  },
  TooManyRequests: {
    description:
      '`rate_limit_exceeded` (per-minute budget spent; `X-RateLimit-Remaining: 0`) or `monthly_quota_exceeded` (monthly budget spent; `X-Quota-Remaining: 0`): a `QuotaError`. ' +
      'Wait `Retry-After` seconds; `details.reset_at` and the `X-*-Reset` headers give the next window. ' +
      `${FIREWALL_RATE_LIMIT} That refusal carries no usage headers and no \`X-Request-Id\`.`,
    headers: {
      'Retry-After': headerRef('Retry-After'),
      'X-Request-Id': headerRef('X-Request-Id-Unless-Firewall'),
      ...chargedUnlessRefused(),
    },
    content: {
      'application/json': {
        schema: { anyOf: [schemaRef('QuotaError'), schemaRef('FirewallRateLimitError')] },
        example: BODY_EXAMPLES.QuotaError,
      },
    },
  },
  FirewallTooManyRequests: {
    description: `${FIREWALL_RATE_LIMIT} No \`X-Request-Id\`.`,
    headers: { 'Retry-After': headerRef('Retry-After') },
    ...json('FirewallRateLimitError'),
  },
  RefusedBeforeTheApi: {
    description: `\`validation_error\`: ${REFUSED_BEFORE_THE_API}`,
    headers: { 'X-Request-Id': headerRef('X-Request-Id-Unless-Firewall') },
    ...json('ValidationError'),
  },
  InternalServerError: {
    description: '`internal_error`: an unexpected server failure.',
    headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...optionalUsageHeaders() },
    ...json('InternalError'),
  },
  ServiceUnavailable: {
    description:
      '`service_unavailable`: a required internal dependency failed closed (authentication and quotas included). Retry after `Retry-After` seconds.',
    headers: {
      'Retry-After': headerRef('Retry-After'),
      'X-Request-Id': headerRef('X-Request-Id'),
      ...optionalUsageHeaders(),
    },
    ...json('ServiceUnavailableError'),
  },
};

const responseRef = (name: keyof typeof RESPONSES) => ({ $ref: `#/components/responses/${name}` });

/**
 * The parameters of a route, from the zod schemas the handlers validate with (their output side:
 * the converted value, its bounds, enum, pattern, length and default), described and exemplified
 * by name (parameters.ts). A list parameter is one comma-separated value (`form`, not exploded).
 * Offer ids and offsets go to 2^53-1 and say so with `maximum`, without a `format` (docs/api.md,
 * "Parameters"). A parameter the route table marks deprecated says so, with its sunset.
 */
function parametersOf(
  { schema, names }: DocumentedSchema,
  where: 'path' | 'query',
  overrides: Partial<Record<ParameterName, ParameterOverride>> = {},
  deprecated: Readonly<Record<string, Deprecation>> = {},
): JsonSchema[] {
  return names.map((name) => {
    const param = schema.shape[name];
    const {
      $schema: _dialect,
      default: fallback,
      readOnly: _readOnly,
      ...json
    } = z.toJSONSchema(param, { target: 'draft-2020-12', io: 'output' }) as JsonSchema;
    const override = overrides[name] ?? {};
    const defaultValue = override.default ?? fallback;
    const deprecation = Object.hasOwn(deprecated, name) ? deprecated[name] : undefined;
    const description = override.description ?? PARAMETER_DESCRIPTIONS[name];
    const isList = json.type === 'array';
    if (isList) json.uniqueItems = true;
    return {
      name,
      in: where,
      required: where === 'path' || !(param as { _zod: { optin?: string } })._zod.optin,
      description: deprecation ? `${description} ${deprecationNote(deprecation)}` : description,
      ...(deprecation ? { deprecated: true } : {}),
      ...(isList ? { style: 'form', explode: false } : {}),
      schema: defaultValue === undefined ? json : { ...json, default: defaultValue },
      example: override.example ?? PARAMETER_EXAMPLES[name],
    };
  });
}

/** What a deprecated route or parameter's description adds (docs/api.md, "Versioning and deprecation"). */
const deprecationNote = ({ since, sunset }: Deprecation) =>
  `**Deprecated** since ${since.slice(0, 10)}: it keeps working until its sunset, ${sunset.slice(0, 10)}; ` +
  'its answers carry `Deprecation`, `Sunset` and a `Link` to the policy (rel="deprecation").';

/** The headers of a deprecated operation's answers (shared/http/deprecation.ts); `always` unless only some parameters are. */
function deprecationResponseHeaders(always: boolean): Record<string, JsonSchema> {
  const when = always ? '' : ' Present when the request sends a deprecated parameter.';
  return {
    Deprecation: {
      description: `When this was deprecated (RFC 9745): \`@\` and Unix seconds.${when}`,
      required: always,
      schema: { type: 'string', pattern: '^@-?[0-9]{1,15}$' },
      example: '@1798761600',
    },
    Sunset: {
      description: `After this date it may stop working (RFC 8594, an HTTP-date).${when}`,
      required: always,
      schema: { type: 'string', pattern: HTTP_DATE_PATTERN },
      example: 'Fri, 01 Jan 2027 00:00:00 GMT',
    },
  };
}

/** The conditional-request parameter of lists and details. */
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'Entity tags of bodies the client holds (`ETag` of an earlier answer), or `*`. When one matches the current body (weak comparison, RFC 9110), ' +
    'the answer is `304` with no body. Any other value gets the full answer. API Gateway refuses a request whose headers exceed 10,240 bytes.',
  schema: { type: 'string', maxLength: 10_240 },
  example: IF_NONE_MATCH_EXAMPLE,
};

function operation(route: Route, op: OperationSpec): JsonSchema {
  const conditional = route.kind === 'list' || route.kind === 'detail';
  const parameters = [
    ...(op.path ? parametersOf(op.path, 'path', op.pathOverrides) : []),
    ...parametersOf(op.query, 'query', op.queryOverrides, route.deprecated?.parameters),
    ...(op.ok && conditional ? [IF_NONE_MATCH] : []),
  ];
  const responses: Record<string, unknown> = {};
  if (op.ok) {
    responses['200'] = {
      description: 'OK',
      headers: {
        'X-Request-Id': headerRef('X-Request-Id'),
        ...usageHeaderRefs(),
        ...(conditional
          ? {
              ETag: headerRef('ETag'),
              'Last-Modified': headerRef('Last-Modified'),
              'Cache-Control': headerRef('Cache-Control'),
            }
          : {}),
        ...(route.kind === 'list' ? { Link: headerRef('Link') } : {}),
        ...(op.csv === undefined ? {} : { Vary: headerRef('Vary') }),
        ...(op.csv !== undefined && route.kind === 'list'
          ? { 'X-Total-Count': headerRef('X-Total-Count'), 'X-Snapshot': headerRef('X-Snapshot') }
          : {}),
      },
      content: { ...json(op.ok).content, ...(op.csv === undefined ? {} : csvContent(op.csv)) },
    };
  }
  if (route.kind === 'mcp')
    responses['202'] = {
      description: 'A notification (a message without `id`) was accepted: no body.',
      headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...usageHeaderRefs() },
    };
  if (op.redirects) responses['301'] = responseRef('MovedPermanently');
  if (op.ok && conditional) responses['304'] = responseRef('NotModified');
  // Every operation: a parameter the function refuses, or a request refused before the API.
  responses['400'] = responseRef('BadRequest');
  // A version named by `snapshot` (every list) or `since` (changes) that is gone.
  const namesVersion = op.query.names.includes('snapshot') || op.query.names.includes('since');
  Object.assign(responses, {
    '401': responseRef('Unauthorized'),
    '403': responseRef('Forbidden'),
    // A list matches no path parameter, so a 404 cannot come from it (unknown routes aside, which
    // match no operation).
    ...(route.kind === 'list' || route.kind === 'search' || route.kind === 'mcp'
      ? {}
      : { '404': responseRef('NotFound') }),
    ...(namesVersion ? { '410': responseRef('Gone') } : {}),
    '429': responseRef('TooManyRequests'),
    '500': responseRef('InternalServerError'),
    '503': responseRef('ServiceUnavailable'),
  });
  const deprecation = route.deprecated?.route;
  const deprecatedParameters = Object.keys(route.deprecated?.parameters ?? {}).length > 0;
  return {
    operationId: route.operationId,
    summary: op.summary,
    description: deprecation ? `${op.description}\n\n${deprecationNote(deprecation)}` : op.description,
    ...(deprecation ? { deprecated: true } : {}),
    tags: [op.tag],
    security: [{ [SECURITY_SCHEME]: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.requestBody ? { requestBody: { required: true, ...json(op.requestBody) } } : {}),
    responses:
      deprecation || deprecatedParameters
        ? withHeaders(responses, deprecationResponseHeaders(deprecation !== undefined))
        : responses,
  };
}

/** Every response of an operation with more headers: a shared response is copied inline. */
function withHeaders(responses: Record<string, unknown>, headers: Record<string, JsonSchema>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, raw]) => {
      const ref = (raw as { $ref?: string }).$ref;
      const response = (ref ? RESPONSES[ref.split('/').pop() as string] : raw) as JsonSchema;
      return [status, { ...response, headers: { ...(response.headers as JsonSchema), ...headers } }];
    }),
  );
}

/** Identical parameters used by several operations become `components.parameters`. */
function shareParameters(paths: Record<string, Record<string, JsonSchema>>): Record<string, JsonSchema> {
  const seen = new Map<string, { text: string; param: JsonSchema; uses: number }>();
  const key = (p: JsonSchema) => `${p.in}:${p.name}`;
  const ops = Object.values(paths).flatMap((methods) => Object.values(methods));
  for (const op of ops) {
    for (const p of (op.parameters as JsonSchema[] | undefined) ?? []) {
      const text = JSON.stringify(p);
      const entry = seen.get(key(p));
      if (!entry) seen.set(key(p), { text, param: p, uses: 1 });
      else if (entry.text === text) entry.uses += 1;
      else entry.uses = -Infinity; // differs between operations: stays inline
    }
  }
  const shared: Record<string, JsonSchema> = {};
  for (const [k, entry] of seen) if (entry.uses > 1) shared[k.replace(':', '_')] = entry.param;
  for (const op of ops) {
    if (!op.parameters) continue;
    op.parameters = (op.parameters as JsonSchema[]).map((p) => {
      const name = key(p).replace(':', '_');
      return shared[name] ? { $ref: `#/components/parameters/${name}` } : p;
    });
  }
  return shared;
}

/**
 * What a key-free path may answer besides its own: a request refused before the API (400), the
 * firewall's rate rule (429), the `docs` function failing (500), and the throttle of key-free
 * methods (`docsThrottle`), which API Gateway answers 503 (GATEWAY_RESPONSES.THROTTLED).
 */
const PUBLIC_REFUSALS = {
  '400': responseRef('RefusedBeforeTheApi'),
  '429': responseRef('FirewallTooManyRequests'),
  '500': responseRef('InternalServerError'),
  '503': responseRef('ServiceUnavailable'),
};

function publicPaths(): Record<string, Record<string, JsonSchema>> {
  const requestId = { 'X-Request-Id': headerRef('X-Request-Id') };
  const noStore = {
    description: `\`${CACHE_CONTROL.none}\`: the status is the answer to "how old is the data now", never kept.`,
    required: true,
    schema: { type: 'string', const: CACHE_CONTROL.none },
    example: CACHE_CONTROL.none,
  };
  return {
    [OPENAPI_PATH]: {
      get: {
        operationId: 'getApiDescription',
        summary: 'This API description',
        description: 'The OpenAPI 3.1 document of the API. Needs no key.',
        tags: ['Documentation'],
        security: [],
        responses: {
          '200': {
            description: 'The document.',
            headers: requestId,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    openapi: { type: 'string', const: OPENAPI_VERSION },
                    info: { type: 'object' },
                    paths: { type: 'object' },
                  },
                  required: ['openapi', 'info', 'paths'],
                },
                example: {
                  openapi: OPENAPI_VERSION,
                  info: { title: 'Market Data API', version: API_VERSION },
                  paths: {},
                },
              },
            },
          },
          ...PUBLIC_REFUSALS,
        },
      },
    },
    [DOCS_PATH]: {
      get: {
        operationId: 'getApiDocs',
        summary: 'Documentation page',
        description:
          'A page that renders this description for people. Needs no key; loads nothing from outside the API.',
        tags: ['Documentation'],
        security: [],
        responses: {
          '200': {
            description: 'The page.',
            headers: requestId,
            content: {
              'text/html': { schema: { type: 'string' }, example: '<!doctype html>\n<html lang="en">…</html>\n' },
            },
          },
          ...PUBLIC_REFUSALS,
        },
      },
    },
    [STATUS_PATH]: {
      get: {
        operationId: 'getStatus',
        summary: 'Freshness of the served data',
        description:
          'For every family: the data version served (`snapshot`, as `pagination.snapshot` names it), when its content last changed (`published_at`, ' +
          'the `Last-Modified` of its lists and details), when an import last carried it, changed or not (`refreshed_at`), and whether that is longer ago than ' +
          'the stage allows (`stale`: now minus `refreshed_at` is more than `max_age_seconds`). Needs no key and takes no budget; throttled like this description. ' +
          'Takes no query parameters: any is a `validation_error`.',
        tags: ['Status'],
        security: [],
        responses: {
          '200': { description: 'OK', headers: { ...requestId, 'Cache-Control': noStore }, ...json('Status') },
          ...PUBLIC_REFUSALS,
          '400': {
            description: `\`validation_error\`: a query parameter was sent (it takes none). ${REFUSED_BEFORE_THE_API}`,
            headers: { 'X-Request-Id': headerRef('X-Request-Id-Unless-Firewall') },
            ...json('ValidationError'),
          },
        },
      },
    },
  };
}

const TAGS: { name: Tag | 'Status' | 'Documentation'; description: string }[] = [
  { name: 'Platforms', description: 'Exchanges, wallets and protocols.' },
  { name: 'Currencies', description: 'Currencies, and the offers of each.' },
  { name: 'Offers', description: `${inWords(OFFER_FAMILIES).replace(/^./, (c) => c.toUpperCase())} offers.` },
  { name: 'History', description: `APY history of ${inWords(HISTORY_FAMILIES)} offers.` },
  { name: 'Search', description: 'Currencies and platforms by slug, symbol or name.' },
  { name: 'Agents', description: 'The Model Context Protocol endpoint: the API as tools for assistants.' },
  { name: 'Usage', description: "The calling key's plan and budgets." },
  { name: 'Webhooks', description: "The calling key's user's webhook subscriptions and their deliveries." },
  { name: 'Status', description: 'How fresh the served data is; no key needed.' },
  { name: 'Documentation', description: 'This description and its docs page.' },
];

/**
 * CORS: every answer, the gateway's and the firewall's refusals included, says any origin may read
 * it (shared/http/cors.ts CORS_HEADERS, on the functions', the gateway responses' and the web
 * ACL's answers): the header goes on every response of the document.
 */
function withCorsOrigin(responses: JsonSchema[]): void {
  for (const response of responses) {
    if (response.$ref) continue;
    response.headers = {
      'Access-Control-Allow-Origin': headerRef('Access-Control-Allow-Origin'),
      ...(response.headers as JsonSchema),
    };
  }
}

/**
 * The description of a route table: ROUTES, or a test's table (its operation ids those of ROUTES)
 * to see what a deprecation mark does.
 */
export function buildOpenApiDocument(routes: readonly Route[] = ROUTES): Record<string, unknown> {
  const short = shortNotices(routes);
  if (short.length > 0) throw new Error(`deprecations with less notice than the policy's:\n${short.join('\n')}`);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const op = OPERATIONS[route.operationId as OperationId];
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, op);
  }
  const parameters = shareParameters(paths);
  const allPaths = { ...paths, ...publicPaths() };
  withCorsOrigin([
    ...Object.values(RESPONSES),
    ...Object.values(allPaths).flatMap((methods) =>
      Object.values(methods).flatMap((op) => Object.values(op.responses as Record<string, JsonSchema>)),
    ),
  ]);

  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Market Data API',
      version: API_VERSION,
      summary: 'Read-only market data for crypto finance: platforms, currencies, offers and APY history.',
      description: overview(routes),
      contact: CONTACT,
    },
    // Relative first: it resolves against where the description is read from (`<base>/openapi.json`),
    // so a stage name or a custom-domain base path in front of `/api/v1` is kept (docs/adr/0002).
    // The local stack beside it gives generated clients an absolute base URL.
    servers: [
      {
        url: '.',
        description:
          'Production, or any deployed stage: where this description is read from (`<base>/openapi.json` describes the API at `<base>/api/v1`).',
        'x-internal': false,
      },
      {
        url: LOCAL_SERVER,
        description: 'The local stack (`npm start`), with the demo key it prints.',
        'x-internal': false,
      },
    ],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: TAGS,
    paths: allPaths,
    components: {
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key of a user with an active premium subscription: `Authorization: Bearer <API_KEY>` (32 to 128 characters of `A-Z a-z 0-9 _ -`).',
        },
      },
      schemas: componentSchemas(),
      parameters,
      headers: HEADERS,
      responses: RESPONSES,
    },
  };
}

/** The file content of docs/openapi.json. */
export const serializeDocument = (doc: unknown) => `${JSON.stringify(doc, null, 2)}\n`;
