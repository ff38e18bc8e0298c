/**
 * The API description as a product: the committed docs/openapi.json is what the code generates,
 * documents every route with the specification's required and nullable fields, is served without
 * a key with its docs page, and the service's uniform answers (envelope, Content-Type,
 * X-Request-Id, CORS, gzip) hold on the local stack. `checkResponse` is shown to pass real
 * answers and to fail a wrong one.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { docsHandler as buildDocsHandler } from '../../functions/docs/docs-handler';
import { publicRoutes } from '../../local/public-routes';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { DEFAULT_SORT } from '../../shared/domain/orderings';
import type { ApiEvent } from '../../shared/http/http';
import { ROUTES } from '../../shared/http/routes';
import { HISTORY_FAMILIES, OFFER_FAMILIES } from '../../shared/model/offer-families';
import {
  buildOpenApiDocument,
  RATE_LIMIT_HEADER_DESCRIPTIONS,
  serializeDocument,
  USAGE_HEADER_DESCRIPTIONS,
} from '../../tools/openapi/document';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { bundlesUnderTest, clockUnderTest } from '../helpers/bundles';
import { get } from '../helpers/client';
import { checkResponse, contractProblems, DOCUMENT_PATH } from '../helpers/contract';

const PREMIUM_KEY = 'premium_key_0123456789abcdefghijklmnop';
const FREE_KEY = 'free_key_0123456789abcdefghijklmnopqrs';
const ONE_PER_MINUTE_KEY = 'slow_key_0123456789abcdefghijklmnopqrs';

const ACCOUNTS = {
  users: [
    { id: 'premium', premium: true, keys: [{ key: PREMIUM_KEY }, { key: ONE_PER_MINUTE_KEY, per_minute: 1 }] },
    { id: 'free', premium: false, keys: [{ key: FREE_KEY }] },
  ],
};

type Json = Record<string, any>;
const committed = readFileSync(DOCUMENT_PATH, 'utf8');
const doc = JSON.parse(committed) as Json;
const schemas = doc.components.schemas as Record<string, Json>;
const deref = (node: Json): Json =>
  node?.$ref
    ? (node.$ref as string)
        .slice(2)
        .split('/')
        .reduce((n: Json, part: string) => n[part], doc)
    : node;

/** Whether a property schema admits `null` (`type: [.., "null"]` or an `anyOf` branch). */
const isNullable = (schema: Json): boolean =>
  (Array.isArray(schema.type) && schema.type.includes('null')) ||
  (schema.anyOf ?? []).some((s: Json) => s.type === 'null');

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({
    dataset: fixtureDataset(),
    accounts: ACCOUNTS,
    publicRoutes: publicRoutes(),
    env: { SNAPSHOT_CACHE_MS: '0' },
    bundles: bundlesUnderTest(),
    clock: clockUnderTest(NOW),
  });
});

afterAll(async () => {
  await stack?.close();
});

describe('the document', () => {
  it('is current: docs/openapi.json is exactly what `npm run openapi` generates', () => {
    expect(committed).toBe(serializeDocument(buildOpenApiDocument()));
  });

  it('is OpenAPI 3.1 with the Bearer scheme, version 1.4.0, a contact, a server relative to where it is read and the local one', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.4.0');
    expect(doc.info.contact).toEqual({ name: expect.any(String) });
    expect(doc.servers.map((s: Json) => s.url)).toEqual(['.', 'http://127.0.0.1:3000']);
    // Read from a stage's URL, the server keeps the stage (docs/adr/0002-contract-interpretations.md).
    expect(new URL(doc.servers[0].url, 'https://api.example/prod/openapi.json').href).toBe('https://api.example/prod/');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  // Every offer list, and the history of every family that has one (docs/api.md, "CSV").
  const Cap = (family: string) => `${family[0].toUpperCase()}${family.slice(1)}`;
  const CSV_OPERATIONS: string[] = [
    ...OFFER_FAMILIES.map((family) => `list${Cap(family)}Offers`),
    ...HISTORY_FAMILIES.flatMap((family) => [`get${Cap(family)}History`, `get${Cap(family)}Histories`]),
  ];
  it.each(ROUTES.map((r) => [r.operationId, r] as const))(
    'documents %s with security, parameters and its answers',
    (_, route) => {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()] as Json;
      expect(op).toBeDefined();
      expect(op.operationId).toBe(route.operationId);
      expect(op.security).toEqual([{ bearerAuth: [] }]);
      const params = (op.parameters ?? []).map(deref);
      for (const name of route.path.match(/\{(\w+)\}/g)?.map((p) => p.slice(1, -1)) ?? []) {
        expect(params).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
      const responses = Object.fromEntries(
        Object.entries(op.responses as Json).map(([status, r]) => [status, deref(r as Json)]),
      );
      const expected =
        route.operationId === 'getCollateralHistory' || route.operationId === 'getCollateralHistories'
          ? ['400', '401', '403', '404', '429', '500', '503']
          : ['200', '400', '401', '403', '429', '500', '503'];
      expect(Object.keys(responses)).toEqual(expect.arrayContaining(expected));
      // A list, a search and an MCP message have no path parameter to miss: they never answer 404
      // (unknown routes match no operation).
      expect('404' in responses).toBe(!['list', 'search', 'mcp'].includes(route.kind));
      expect('301' in responses).toBe(/\{slug\}$/.test(route.path));
      for (const [status, response] of Object.entries(responses)) {
        expect(response.headers).toHaveProperty(['X-Request-Id']);
        // CORS on every answer, the gateway's and the firewall's refusals included.
        expect([status, deref(response.headers['Access-Control-Allow-Origin'])?.required]).toEqual([status, true]);
        const usage = [...USAGE_HEADER_DESCRIPTIONS, ...RATE_LIMIT_HEADER_DESCRIPTIONS].map(([name]) => name);
        if (['200', '301', '304', '404'].includes(status))
          for (const name of usage) expect(deref(response.headers[name]).required).toBe(true);
        // A 400 or 429 may come before the API (the gateway's or the firewall's refusal): nothing charged, no request id from the firewall.
        if (['400', '429', '500', '503'].includes(status))
          for (const name of usage) expect(deref(response.headers[name]).required).toBeFalsy();
        if (['400', '429'].includes(status)) expect(deref(response.headers['X-Request-Id']).required).toBe(false);
        else expect(deref(response.headers['X-Request-Id']).required).toBe(true);
        if (['401', '403'].includes(status))
          for (const name of usage) expect(response.headers).not.toHaveProperty([name]);
        expect('WWW-Authenticate' in response.headers).toBe(status === '401');
        if (status === '401')
          expect(deref(response.headers['WWW-Authenticate'])).toMatchObject({
            required: true,
            schema: { const: 'Bearer error="invalid_token"' },
          });
        // Offer lists and history have a CSV representation of their 200 (CONTRACT §12); errors stay JSON.
        const media = status === '200' && CSV_OPERATIONS.includes(route.operationId) ? ['text/csv'] : [];
        if (!['301', '304', '202'].includes(status))
          expect(Object.keys(response.content)).toEqual(['application/json', ...media]);
        if (media.length > 0) expect(deref(response.headers.Vary).required).toBe(true);
      }
      // Lists and details answer conditional requests; history and usage do not.
      const conditional = route.kind === 'list' || route.kind === 'detail';
      expect('304' in responses).toBe(conditional);
      if (conditional) {
        expect(deref(responses['200'].headers.ETag).required).toBe(true);
        expect(deref(responses['200'].headers['Last-Modified']).required).toBe(true);
        expect(deref(responses['304'].headers['Last-Modified']).required).toBe(true);
        expect(responses['304'].content).toBeUndefined();
        expect(params).toContainEqual(expect.objectContaining({ name: 'If-None-Match', in: 'header' }));
      } else if (responses['200']) {
        expect(responses['200'].headers).not.toHaveProperty(['ETag']);
      }
      // Every list pages one version: `Link` on its 200 (when it has neighbours), 410 for a version that is gone.
      expect('Link' in (responses['200']?.headers ?? {})).toBe(route.kind === 'list');
      expect('410' in responses).toBe(route.kind === 'list');
      expect(deref(responses['429'].headers['Retry-After']).required).toBe(true);
      expect(deref(responses['503'].headers['Retry-After']).required).toBe(true);
      if (responses['301']) expect(responses['301'].content).toBeUndefined();
    },
  );

  it.each(['/openapi.json', '/docs', '/api/v1/status'])(
    'lists what %s answers besides itself: a refusal before the API, the firewall, a failure and the throttle',
    (path) => {
      const op = doc.paths[path].get;
      expect(op.security).toEqual([]);
      const responses = Object.fromEntries(
        Object.entries(op.responses as Json).map(([status, r]) => [status, deref(r as Json)]),
      );
      expect(Object.keys(responses)).toEqual(['200', '400', '429', '500', '503']);
      // The firewall's 429 only: no key, hence no budget; it sends no request id.
      expect(responses['429'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/FirewallRateLimitError',
      });
      expect(responses['429'].headers).not.toHaveProperty(['X-Request-Id']);
      expect(deref(responses['429'].headers['Retry-After']).required).toBe(true);
      expect(deref(responses['400'].headers['X-Request-Id']).required).toBe(false);
      // The throttle of key-free methods is API Gateway's THROTTLED: 503 with Retry-After.
      expect(deref(responses['503'].headers['Retry-After']).required).toBe(true);
      for (const response of Object.values(responses))
        expect(deref(response.headers['Access-Control-Allow-Origin']).required).toBe(true);
    },
  );

  it.each(CSV_OPERATIONS)('gives %s a CSV example that is its JSON example, row for row', (operationId) => {
    const route = ROUTES.find((r) => r.operationId === operationId)!;
    const content = deref(doc.paths[route.path].get.responses['200']).content as Json;
    const [header, ...rows] = parse(content['text/csv'].example, { record_delimiter: '\r\n' }) as string[][];
    const json = content['application/json'].example as Json;
    // A list's offers; one offer's points; or several offers' points, entry after entry, each with its id.
    const expected: Json[] =
      route.kind === 'list'
        ? json.data
        : 'point_count' in json
          ? json.data
          : json.data.flatMap((entry: Json) => entry.data.map((p: Json) => ({ id: String(entry.id), ...p })));
    expect(rows).toHaveLength(expected.length);
    const all = rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
    if (route.kind === 'list')
      expect(all[0]).toMatchObject({ id: String(expected[0].id), updated_at: expected[0].updated_at });
    else
      all.forEach((row, i) =>
        expect(row).toMatchObject({
          ...('id' in expected[i] ? { id: expected[i].id } : {}),
          timestamp: expected[i].timestamp,
          apy: expected[i].apy,
        }),
      );
  });

  it('gives every parameter its type, bounds, default and enum', () => {
    const params = (path: string) =>
      Object.fromEntries(
        (doc.paths[path].get.parameters as Json[])
          .map(deref)
          .filter((p) => p.in !== 'header')
          .map((p) => [p.name, p.schema]),
      );
    const snapshot = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' };
    expect(params('/api/v1/exchanges')).toEqual({
      limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
      offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
      snapshot,
    });
    const earn = params('/api/v1/earn');
    const list = (items: Json, maxItems = 20) => ({ type: 'array', minItems: 1, maxItems, uniqueItems: true, items });
    expect(earn.platform_type).toEqual(list({ type: 'string', enum: ['exchange', 'wallet', 'protocol'] }));
    expect(earn.min_apy).toEqual({
      type: 'string',
      minLength: 1,
      maxLength: 32,
      pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$',
    });
    expect(earn.min_tvl).toEqual(earn.min_apy);
    expect(earn.asset).toEqual(list({ type: 'string', minLength: 1, maxLength: 256 }));
    expect(earn.chain).toEqual(earn.asset);
    expect(earn.ids).toEqual(list({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, 200));
    expect(earn.available).toEqual({ type: 'boolean' });
    expect(earn.snapshot).toEqual(snapshot);
    expect(earn.sort).toEqual({
      type: 'string',
      enum: [
        'apy_desc',
        'apy_asc',
        'tvl_desc',
        'updated_desc',
        'apy_mean_30d_desc',
        'apy_change_7d_desc',
        'apy_stddev_30d_asc',
      ],
      default: DEFAULT_SORT.earn,
    });
    // The figures' sorts, filters and include (CONTRACT §13) on earn and borrow only.
    expect(params('/api/v1/collateral').sort.enum).toEqual(['apy_desc', 'apy_asc', 'tvl_desc', 'updated_desc']);
    expect(earn.max_apy_stddev_30d).toEqual(earn.min_apy);
    // A mean can be below zero: the grammar of min_apy with an optional leading '-'.
    expect(params('/api/v1/borrow').min_apy_mean_30d).toEqual({
      ...earn.min_apy,
      pattern: `^-?${earn.min_apy.pattern.slice(1)}`,
    });
    expect(params('/api/v1/earn/{id}').include).toEqual(earn.include);
    expect(params('/api/v1/currencies/{slug}').include).toEqual(earn.include);
    for (const path of ['/api/v1/collateral', '/api/v1/collateral/{id}', '/api/v1/currencies'])
      expect(params(path)).not.toHaveProperty('include');
    expect(params('/api/v1/borrow').sort.default).toBe(DEFAULT_SORT.borrow);
    expect(params('/api/v1/borrow')).not.toHaveProperty('available');
    expect(params('/api/v1/borrow').is_active).toEqual({ type: 'boolean' });
    expect(params('/api/v1/collateral')).not.toHaveProperty('min_apy');
    expect(params('/api/v1/collateral')).not.toHaveProperty('min_tvl');
    expect(params('/api/v1/earn/changes')).toEqual({
      since: snapshot,
      snapshot,
      limit: params('/api/v1/earn').limit,
      offset: params('/api/v1/earn').offset,
      include: earn.include,
    });
    expect(params('/api/v1/collateral/changes')).not.toHaveProperty('include');
    expect(params('/api/v1/earn/{id}/history').period).toEqual({
      type: 'string',
      enum: ['24h', '1w', '1m', '3m', '1y', 'all'],
      default: '1m',
    });
    // One integer form for every offer id: the path, `ids`, the offer and a changes row.
    const offerId = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
    expect(params('/api/v1/borrow/{id}').id).toEqual(offerId);
    expect(earn.ids.items).toEqual(offerId);
    expect(schemas.EarnOffer.properties.id).toEqual({ description: expect.any(String), ...offerId });
    for (const row of schemas.EarnChanges.properties.data.items.anyOf) expect(row.properties.id).toEqual(offerId);
    expect(JSON.stringify(doc)).not.toContain('int64');
    // Collateral history answers 404 whatever its id, but its id is an offer id like every other.
    expect(params('/api/v1/collateral/{id}/history').id).toEqual(offerId);
    expect(params('/api/v1/exchanges/{slug}').slug).toEqual({ type: 'string', minLength: 1, maxLength: 256 });
  });

  it("sends a list parameter as one comma-separated value, and only `since`, `ids` of several offers' history and the search's `q` are required query parameters", () => {
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Json>)) {
      const parameters = Object.values(methods as Record<string, Json>).flatMap(
        (op) => (op.parameters ?? []) as Json[],
      );
      for (const param of parameters.map(deref)) {
        if (param.in !== 'query') continue;
        expect([path, param.name, param.required]).toEqual([
          path,
          param.name,
          param.name === 'since' ||
            (param.name === 'ids' && path.endsWith('/history')) ||
            (param.name === 'q' && path.endsWith('/search')),
        ]);
        if (param.schema.type === 'array')
          expect([path, param.name, param.style, param.explode]).toEqual([path, param.name, 'form', false]);
      }
    }
  });

  // Every listed field is required; these are the nullable ones (docs/openapi.json).
  const NULLABLE: Record<string, string[]> = {
    Currency: ['sign', 'logo64'],
    CurrencyStats: [
      'rank_by_market_cap',
      'circulating_supply',
      'total_supply',
      'max_supply',
      'usd_price',
      'usd_volume_24h',
      'usd_market_cap',
      'usd_percent_change_24h',
      'usd_market_cap_dominance',
    ],
    EarnOffer: ['platform', 'chain', 'asset', 'duration_days', 'tvl', 'min_amount', 'max_amount'],
    BorrowOffer: [
      'platform',
      'chain',
      'term_days',
      'borrow_apy',
      'supply_apy',
      'total_supply_usd',
      'total_borrow_usd',
      'available_liquidity_usd',
    ],
    CollateralOffer: ['platform', 'chain', 'term_days', 'margin_call_ltv', 'liquidation_ltv'],
    PlatformRef: [],
    AssetRef: [],
  };

  it.each(Object.entries(NULLABLE))(
    '%s: every field required, exactly the specification nullable ones nullable',
    (name, nullable) => {
      const schema = schemas[name];
      // `apy_stats` only with include=apy_stats (docs/api.md, "APY figures"): the one optional field.
      const always = Object.keys(schema.properties).filter((field) => field !== 'apy_stats');
      expect([...schema.required].sort()).toEqual(always.sort());
      if (name === 'EarnOffer' || name === 'BorrowOffer')
        expect(schema.properties.apy_stats).toEqual({ $ref: '#/components/schemas/ApyStats' });
      const actual = Object.entries(schema.properties as Record<string, Json>)
        .filter(([, s]) => isNullable(s))
        .map(([field]) => field);
      expect(actual.sort()).toEqual([...nullable].sort());
    },
  );

  it('spells out the cases the issue names', () => {
    expect(isNullable(schemas.EarnOffer.properties.platform)).toBe(true);
    expect(isNullable(schemas.BorrowOffer.properties.asset)).toBe(false);
    expect(schemas.BorrowOffer.properties.asset).toEqual({ $ref: '#/components/schemas/AssetRef' });
    expect(isNullable(schemas.CurrencyStats.properties.rank_by_market_cap)).toBe(true);
    expect(schemas.CurrencyDetail.required).toEqual(
      expect.arrayContaining(['earn_offers', 'borrow_offers', 'collateral_offers']),
    );
  });

  it('types decimals as patterned strings and timestamps as date-time', () => {
    expect(schemas.EarnOffer.properties.apy).toMatchObject({ type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' });
    expect(schemas.EarnOffer.properties.tvl.anyOf).toContainEqual(
      expect.objectContaining({ type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' }),
    );
    expect(schemas.BorrowOffer.properties.synced_at).toMatchObject({
      type: 'string',
      format: 'date-time',
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
    });
    expect(schemas.CurrencyStats.properties.circulating_supply).toEqual({ type: ['number', 'null'] });
  });

  it('describes the errors: codes per status, quota and validation details', () => {
    expect(schemas.QuotaError.properties.error.properties.code).toEqual({
      type: 'string',
      enum: ['rate_limit_exceeded', 'monthly_quota_exceeded'],
    });
    expect(schemas.SnapshotExpiredError.properties.error.properties.code).toEqual({
      type: 'string',
      const: 'snapshot_expired',
    });
    expect(schemas.QuotaErrorDetails.required).toEqual(['reset_at', 'limit']);
    expect(schemas.ValidationErrorDetails.properties.message).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
    expect(schemas.NotFoundError.properties.error.properties.code).toEqual({ type: 'string', const: 'not_found' });
    expect(doc.info.description).toMatch(/\| `tvl_desc` orders by|orders by `stats.weekly_visits`|weekly_visits/);
    expect(doc.paths['/api/v1/borrow/{id}/history'].get.description).toContain('| `1m` | `4h` | last 30 days |');
  });
});

describe('served by the local stack', () => {
  it.each([
    ['/api/v1/earn/', '/api/v1/earn'],
    ['/api/v1/exchanges/binance/', '/api/v1/exchanges/binance'],
  ])('answers %s as %s, as the overview says', async (withSlash, canonical) => {
    expect(doc.info.description).toContain(`\`${withSlash}\``);
    const [a, b] = await Promise.all([
      get(stack.url, withSlash, { key: PREMIUM_KEY }),
      get(stack.url, canonical, { key: PREMIUM_KEY }),
    ]);
    expect(a.status).toBe(200);
    expect(a.raw).toBe(b.raw);
  });

  it('serves /openapi.json without a key: the committed document', async () => {
    const res = await get(stack.url, '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    expect(res.body).toEqual(doc);
  });

  it('serves /docs without a key: a page that loads only its own files', async () => {
    const res = await get<string>(stack.url, '/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    const sources = [...res.body.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(sources).toEqual(
      expect.arrayContaining(['docs/swagger-ui.css', 'docs/swagger-ui-bundle.js', 'docs/docs.js', 'openapi.json']),
    );
    expect(sources.filter((s) => /^(https?:)?\/\//.test(s))).toEqual([]);
    for (const [asset, type] of [
      ['docs/swagger-ui-bundle.js', 'text/javascript'],
      ['docs/swagger-ui.css', 'text/css'],
      ['docs/docs.js', 'text/javascript'],
    ]) {
      const file = await fetch(`${stack.url}/${asset}`);
      expect([asset, file.status, file.headers.get('content-type')]).toEqual([asset, 200, `${type}; charset=utf-8`]);
      expect((await file.text()).length).toBeGreaterThan(100);
    }
  });

  it('answers the CORS preflight without a key', async () => {
    const res = await get(stack.url, '/api/v1/earn', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('GET');
    expect(res.headers['access-control-allow-headers']?.toLowerCase()).toContain('authorization');
    expect(res.headers['access-control-expose-headers']).toContain('X-RateLimit-Remaining');
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('gzips a large body when the client asks for it, and only then', async () => {
    const zipped = await get(stack.url, '/api/v1/earn?limit=200', {
      key: PREMIUM_KEY,
      headers: { 'Accept-Encoding': 'gzip' },
    });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.body.data.length).toBeGreaterThan(0);
    const plain = await get(stack.url, '/api/v1/earn?limit=200', { key: PREMIUM_KEY });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toEqual(zipped.body);
  });

  // One content type everywhere: the functions' errors too (the error envelope's answer names the
  // charset, as every other body does).
  const JSON_UTF8 = 'application/json; charset=utf-8';
  const ENVELOPE = JSON_UTF8;
  it.each([
    ['success', '/api/v1/currencies?limit=2', PREMIUM_KEY, 200, JSON_UTF8],
    ['validation error', '/api/v1/currencies?limit=500', PREMIUM_KEY, 400, ENVELOPE],
    ['lookup 404', '/api/v1/earn/999999', PREMIUM_KEY, 404, ENVELOPE],
    ['collateral history', '/api/v1/collateral/1/history', PREMIUM_KEY, 404, ENVELOPE],
    ['redirect', '/api/v1/exchanges/bybit-old?limit=1', PREMIUM_KEY, 301, null],
    ['gateway 401 (no key)', '/api/v1/earn', null, 401, JSON_UTF8],
    ['gateway 403 (no subscription)', '/api/v1/earn', FREE_KEY, 403, JSON_UTF8],
    ['gateway 404 (no such route)', '/api/v2/earn', PREMIUM_KEY, 404, JSON_UTF8],
  ] as const)(
    'puts X-Request-Id, the envelope and JSON Content-Type on a %s',
    async (_, path, key, status, contentType) => {
      const res = await get(stack.url, path, { key });
      expect(res.status).toBe(status);
      expect(res.headers['x-request-id']).toMatch(/^\S+$/);
      if (status === 301) {
        expect(res.headers.location).toBe('/api/v1/exchanges/bybit?limit=1');
        expect(res.raw).toBe('');
      } else {
        expect(res.headers['content-type']).toBe(contentType);
      }
      if (status >= 400) {
        expect(Object.keys(res.body)).toEqual(['error']);
        expect(res.body.error).toEqual({
          code: expect.any(String),
          message: expect.any(String),
          details: res.body.error.details,
        });
        expect(res.body.error.details === null || typeof res.body.error.details === 'object').toBe(true);
      }
    },
  );

  it('answers a spent budget with 429, Retry-After and the usage headers, as documented', async () => {
    const first = await get(stack.url, '/api/v1/wallets', { key: ONE_PER_MINUTE_KEY });
    const second = await get(stack.url, '/api/v1/wallets', { key: ONE_PER_MINUTE_KEY });
    // A minute boundary between the two is possible: then the second one is the first of its minute.
    const refused =
      first.status === 429
        ? first
        : second.status === 429
          ? second
          : await get(stack.url, '/api/v1/wallets', { key: ONE_PER_MINUTE_KEY });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded', details: { limit: 1 } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('validates every route of the route table on the fixture', async () => {
    const paths = [
      '/api/v1/exchanges',
      '/api/v1/exchanges/binance',
      '/api/v1/wallets?limit=2&offset=1',
      '/api/v1/wallets/trezor',
      '/api/v1/protocols',
      '/api/v1/protocols/lido',
      '/api/v1/currencies',
      '/api/v1/currencies/bitcoin',
      '/api/v1/earn?sort=tvl_desc',
      '/api/v1/earn/7',
      '/api/v1/borrow?min_apy=0',
      '/api/v1/borrow/2',
      '/api/v1/collateral?platform_type=exchange',
      '/api/v1/collateral/2',
      '/api/v1/earn/1/history?period=1w',
      '/api/v1/earn/4/history?period=all',
      '/api/v1/borrow/1/history?period=1y',
      '/api/v1/earn/1/history?from=2026-11-01T00:00:00Z&interval=1w',
      '/api/v1/earn/history?ids=1,4,999&period=1w',
      '/api/v1/borrow/history?ids=1&from=2026-01-01T00:00:00Z',
      '/api/v1/collateral/9/history',
    ];
    for (const path of paths) {
      const res = await get(stack.url, path, { key: PREMIUM_KEY }); // checkResponse runs inside get()
      expect([path, res.status]).toEqual([path, path.endsWith('collateral/9/history') ? 404 : 200]);
    }
  });
});

describe('the deployed docs function', () => {
  const event = (resource: string, pathParameters: Record<string, string> | null = null) =>
    ({
      resource,
      path: `/prod${resource}`,
      httpMethod: 'GET',
      pathParameters,
      requestContext: { requestId: 'req-docs' },
    }) as unknown as ApiEvent;

  // The documents read no data: a status that would fail shows they never ask for it.
  const docsHandler = buildDocsHandler({
    status: () => Promise.reject(new Error('not read')),
    clock: () => NOW,
    retryAfterSeconds: 1,
  });

  it('serves the same documents by API Gateway resource, whatever the stage prefix', async () => {
    const spec = await docsHandler(event('/openapi.json'));
    expect([spec.statusCode, spec.headers?.['Content-Type'], spec.headers?.['X-Request-Id']]).toEqual([
      200,
      'application/json; charset=utf-8',
      'req-docs',
    ]);
    expect(JSON.parse(spec.body)).toEqual(doc);
    const page = await docsHandler(event('/docs'));
    expect(page.body).toContain('<script src="docs/swagger-ui-bundle.js"></script>');
    const asset = await docsHandler(event('/docs/{asset}', { asset: 'swagger-ui.css' }));
    expect([asset.statusCode, asset.headers?.['Content-Type']]).toEqual([200, 'text/css; charset=utf-8']);
  });

  it('answers anything else with the 404 envelope', async () => {
    const missing = await docsHandler(event('/docs/{asset}', { asset: '..%2Fpackage.json' }));
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body)).toEqual({
      error: { code: 'not_found', message: expect.any(String), details: null },
    });
  });
});

describe('checkResponse', () => {
  const offer = async () => {
    const res = await get(stack.url, '/api/v1/earn/3', { key: PREMIUM_KEY });
    return { method: 'GET', path: res.path, status: res.status, headers: res.headers, body: res.body as Json };
  };

  it('passes a real answer', async () => {
    const real = await offer();
    expect(contractProblems(real)).toEqual([]);
  });

  it('fails a body that breaks the schema', async () => {
    const real = await offer();
    const wrong = { ...real, body: { ...real.body, apy: 12.25, platform: undefined, updated_at: '2026-11-10' } };
    expect(() => checkResponse(wrong)).toThrow(/body.*apy/s);
    expect(contractProblems(wrong).join('\n')).toMatch(/must have required property 'platform'/);
  });

  it('fails missing or misplaced headers and undocumented statuses', async () => {
    const real = await offer();
    const { 'x-ratelimit-remaining': _dropped, ...fewer } = real.headers;
    expect(contractProblems({ ...real, headers: fewer })).toEqual(['missing header X-RateLimit-Remaining']);
    expect(contractProblems({ ...real, headers: { ...real.headers, 'content-type': 'text/plain' } })).toEqual([
      expect.stringMatching(/Content-Type text\/plain/),
    ]);
    expect(contractProblems({ ...real, status: 418 })).toEqual([expect.stringMatching(/status 418 is not documented/)]);
    const unauthorized = {
      ...real,
      status: 401,
      body: { error: { code: 'invalid_api_key', message: 'no', details: null } },
    };
    expect(contractProblems(unauthorized)).toEqual(
      expect.arrayContaining([expect.stringMatching(/x-ratelimit-limit is not documented/)]),
    );
    expect(contractProblems({ ...real, path: '/api/v1/nothing-here' })).toEqual(
      expect.arrayContaining([expect.stringMatching(/no documented route/)]),
    );
  });
});
