/**
 * The OpenAPI 3.1 document, built from the route table, the zod schemas (parameters and bodies), the
 * error table and the gateway responses. `npm run openapi` writes it to docs/openapi.json; the
 * contract tests validate every response they see against that file.
 */
import * as z from 'zod/mini';
import { GATEWAY_RESPONSES } from '../../shared/http/gateway-responses';
import { CACHE_CONTROL } from '../../shared/http/http';
import type { ParamSchema } from '../../shared/http/query';
import { API_PREFIX, ROUTES, type Route, STATUS_PATH } from '../../shared/http/routes';
import { componentSchemas, type JsonSchema, schemaRef } from './components';
import { overview } from './descriptions';
import { BODY_EXAMPLES, PARAMETER_EXAMPLES, SNAPSHOT_EXAMPLES } from './examples';
import { OPERATIONS, type OperationSpec, PARAMETER_DESCRIPTIONS, type ParameterOverride, type Tag } from './operations';
import type { SchemaName } from './response-schemas';

const OPENAPI_VERSION = '3.1.0';
const API_VERSION = '1.3.0';
const SECURITY_SCHEME = 'bearerAuth';
/** Served without a key next to the API (local/public-routes.ts, the deployed stack). */
const PUBLIC_PATHS = { document: '/openapi.json', docs: '/docs' } as const;

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
  Link:
    `<${API_PREFIX}/earn?asset=tether,usd-coin&limit=50&offset=100&snapshot=${SNAPSHOT_EXAMPLES.newer}>; rel="next", ` +
    `<${API_PREFIX}/earn?asset=tether,usd-coin&limit=50&offset=0&snapshot=${SNAPSHOT_EXAMPLES.newer}>; rel="prev"`,
};

const example = (name: string): string => {
  const value = HEADER_EXAMPLES[name];
  if (value === undefined) throw new Error(`header ${name} has no example (scripts/openapi/document.ts)`);
  return value;
};

/** RFC 9110 §5.6.7 IMF-fixdate, as `Date.prototype.toUTCString` writes it. */
const HTTP_DATE_PATTERN =
  '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$';

const HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': {
    description: 'Identifier of the request, on every response.',
    required: true,
    schema: { type: 'string', minLength: 1 },
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
};
for (const [name, header] of Object.entries(HEADERS)) header.example = example(name);

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const usageHeaderRefs = () => Object.fromEntries(CHARGED_HEADER_NAMES.map((name) => [name, headerRef(name)]));
/** On 500 and 503 the usage headers are there only when the request was charged before the failure. */
const optionalUsageHeaders = () =>
  Object.fromEntries(
    [
      ...USAGE_HEADER_DESCRIPTIONS.map(([name, description]) => [name, description, DIGITS] as const),
      ...RATE_LIMIT_HEADER_DESCRIPTIONS.map(
        ([name, description, pattern]) => [name, description, { type: 'string', pattern }] as const,
      ),
    ].map(([name, description, schema]) => [
      name,
      { description: `${description} Present when the request was charged.`, schema, example: example(name) },
    ]),
  );

/** A JSON body of a component schema, with its example. */
function json(schema: SchemaName) {
  const value = BODY_EXAMPLES[schema];
  if (value === undefined) throw new Error(`response schema ${schema} has no example (scripts/openapi/examples.ts)`);
  return { content: { 'application/json': { schema: schemaRef(schema), example: value } } };
}

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
      '`validation_error`: a query or path parameter failed validation; `details.message` lists the violated rules.',
    headers: { 'X-Request-Id': headerRef('X-Request-Id'), ...usageHeaderRefs() },
    ...json('ValidationError'),
  },
  Unauthorized: {
    description: `\`invalid_api_key\`: ${GATEWAY_RESPONSES.UNAUTHORIZED.message} No budget is taken and no usage headers are sent.`,
    headers: { 'X-Request-Id': headerRef('X-Request-Id') },
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
      'An unknown route or method answers the same envelope before authentication, without usage headers.',
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
      '`rate_limit_exceeded` (per-minute budget spent; `X-RateLimit-Remaining: 0`) or `monthly_quota_exceeded` (monthly budget spent; `X-Quota-Remaining: 0`). ' +
      'Wait `Retry-After` seconds; `details.reset_at` and the `X-*-Reset` headers give the next window.',
    headers: {
      'Retry-After': headerRef('Retry-After'),
      'X-Request-Id': headerRef('X-Request-Id'),
      ...usageHeaderRefs(),
    },
    ...json('QuotaError'),
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
 * The parameters of a route, from the zod schemas the handler validates with (their output side:
 * the converted value, its bounds, enum, pattern, length and default); each schema's registered
 * description becomes the parameter's. A list parameter is one comma-separated value (`form`, not
 * exploded); integers that reach 2^53-1 are `int64`.
 */
function parametersOf(
  schema: ParamSchema,
  where: 'path' | 'query',
  overrides: Record<string, ParameterOverride> = {},
): JsonSchema[] {
  return Object.entries(schema.shape).map(([name, param]) => {
    const {
      $schema: _dialect,
      default: fallback,
      readOnly: _readOnly,
      ...json
    } = z.toJSONSchema(param, { target: 'draft-2020-12', io: 'output' }) as JsonSchema;
    const override = overrides[name] ?? {};
    const defaultValue = override.default ?? fallback;
    const description = override.description ?? PARAMETER_DESCRIPTIONS[name];
    if (description === undefined)
      throw new Error(`parameter ${name} has no description (scripts/openapi/operations.ts)`);
    const value = override.example ?? PARAMETER_EXAMPLES[name];
    if (value === undefined) throw new Error(`parameter ${name} has no example (scripts/openapi/examples.ts)`);
    const isList = json.type === 'array';
    if (isList) json.uniqueItems = true;
    int64(json);
    if (isList) int64(json.items as JsonSchema);
    return {
      name,
      in: where,
      required: where === 'path' || !(param as { _zod: { optin?: string } })._zod.optin,
      description,
      ...(isList ? { style: 'form', explode: false } : {}),
      schema: defaultValue === undefined ? json : { ...json, default: defaultValue },
      example: value,
    };
  });
}

/** Offer ids and offsets go to 2^53-1: a client needs 64-bit integers for them. */
function int64(json: JsonSchema): void {
  if (json.type === 'integer' && json.maximum === Number.MAX_SAFE_INTEGER) json.format = 'int64';
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
  example: PARAMETER_EXAMPLES['If-None-Match'],
};

function operation(route: Route, op: OperationSpec): JsonSchema {
  const conditional = route.kind === 'list' || route.kind === 'detail';
  const parameters = [
    ...(op.path ? parametersOf(op.path, 'path', op.pathOverrides) : []),
    ...parametersOf(op.query, 'query', op.queryOverrides),
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
      },
      ...json(op.ok),
    };
  }
  if (op.redirects) responses['301'] = responseRef('MovedPermanently');
  if (op.ok && conditional) responses['304'] = responseRef('NotModified');
  if (op.ok) responses['400'] = responseRef('BadRequest');
  // A version named by `snapshot` (every list) or `since` (changes) that is gone.
  const namesVersion = 'snapshot' in op.query.shape || 'since' in op.query.shape;
  Object.assign(responses, {
    '401': responseRef('Unauthorized'),
    '403': responseRef('Forbidden'),
    // A list matches no path parameter, so a 404 cannot come from it (unknown routes aside, which
    // match no operation).
    ...(route.kind === 'list' ? {} : { '404': responseRef('NotFound') }),
    ...(namesVersion ? { '410': responseRef('Gone') } : {}),
    '429': responseRef('TooManyRequests'),
    '500': responseRef('InternalServerError'),
    '503': responseRef('ServiceUnavailable'),
  });
  return {
    operationId: route.operationId,
    summary: op.summary,
    description: op.description,
    tags: [op.tag],
    security: [{ [SECURITY_SCHEME]: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
  };
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

function publicPaths(): Record<string, Record<string, JsonSchema>> {
  const requestId = { 'X-Request-Id': headerRef('X-Request-Id') };
  const noStore = {
    description: `\`${CACHE_CONTROL.none}\`: the status is the answer to "how old is the data now", never kept.`,
    required: true,
    schema: { type: 'string', const: CACHE_CONTROL.none },
    example: CACHE_CONTROL.none,
  };
  return {
    [PUBLIC_PATHS.document]: {
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
        },
      },
    },
    [PUBLIC_PATHS.docs]: {
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
          '400': { description: RESPONSES.BadRequest.description, headers: requestId, ...json('ValidationError') },
          '500': responseRef('InternalServerError'),
          '503': responseRef('ServiceUnavailable'),
        },
      },
    },
  };
}

const TAGS: { name: Tag | 'Status' | 'Documentation'; description: string }[] = [
  { name: 'Platforms', description: 'Exchanges, wallets and protocols.' },
  { name: 'Currencies', description: 'Currencies, and the offers of each.' },
  { name: 'Offers', description: 'Earn, borrow and collateral offers.' },
  { name: 'History', description: 'APY history of earn and borrow offers.' },
  { name: 'Usage', description: "The calling key's plan and budgets." },
  { name: 'Status', description: 'How fresh the served data is; no key needed.' },
  { name: 'Documentation', description: 'This description and its docs page.' },
];

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of ROUTES) {
    const op = OPERATIONS[route.operationId];
    if (!op)
      throw new Error(
        `route ${route.method} ${route.path} (${route.operationId}) has no description in scripts/openapi/operations.ts`,
      );
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route, op);
  }
  const unknown = Object.keys(OPERATIONS).filter((id) => !ROUTES.some((r) => r.operationId === id));
  if (unknown.length > 0) throw new Error(`operations without a route: ${unknown.join(', ')}`);
  const parameters = shareParameters(paths);

  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Market Data API',
      version: API_VERSION,
      summary: 'Read-only market data for crypto finance: platforms, currencies, offers and APY history.',
      description: overview(),
    },
    // Relative: it resolves against where the description is read from (`<base>/openapi.json`),
    // so a stage name or a custom-domain base path in front of `/api/v1` is kept (docs/adr/0002).
    servers: [
      {
        url: '.',
        description: 'Where this description is read from: `<base>/openapi.json` describes the API at `<base>/api/v1`.',
      },
    ],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: TAGS,
    paths: { ...paths, ...publicPaths() },
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
