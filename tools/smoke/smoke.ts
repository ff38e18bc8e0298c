/**
 * The smoke test's checks (`npm run smoke`; scripts/smoke.ts is the entry, with the usage): a
 * read-only pass over every route of the route table (shared/http/routes.ts) and every key-free
 * path: each list, a detail of its first item, its changes, offer history (one offer's and several
 * offers'), a search, a tool call through the MCP endpoint, the usage, the webhook subscriptions and their deliveries, the data status, the API description and its docs page, CSV, the
 * authentication errors and an unknown route. A route or key-free path that no passing check
 * reached is a failure of its own, so a new route cannot go unsmoked.
 */
import { CATALOG_FAMILIES, OFFER_FAMILIES } from '../../shared/data/keys';
import { MCP_PATH, matchRoute, OPENAPI_PATH, PUBLIC_PATHS, ROUTES, STATUS_PATH } from '../../shared/http/routes';
import { isHistoryFamily, OFFER_FAMILY } from '../../shared/model/offer-families';

interface Check {
  name: string;
  /** The path and query; a POST's is `POST <path>`. */
  path: string;
  /** A POST's JSON body. */
  body?: unknown;
  key?: string | null;
  /** The Accept header to send (JSON if absent). */
  accept?: string;
  expect: (status: number, body: any, headers: Headers) => string | undefined;
}

interface Outcome {
  name: string;
  path: string;
  status: number | string;
  ms: number;
  problem?: string;
}

const isList = (status: number, body: any) =>
  status !== 200
    ? `status ${status}`
    : !Array.isArray(body?.data) || typeof body?.pagination?.total !== 'number'
      ? 'not a {data, pagination} envelope'
      : undefined;

const isObject = (fields: string[]) => (status: number, body: any) =>
  status !== 200
    ? `status ${status}`
    : fields.find((f) => !(f in (body ?? {})))
      ? `missing ${fields.find((f) => !(f in body))}`
      : undefined;

const isError = (expected: number, code: string) => (status: number, body: any) =>
  status !== expected
    ? `status ${status}, expected ${expected}`
    : body?.error?.code !== code
      ? `code ${body?.error?.code}, expected ${code}`
      : undefined;

const isCsv = (status: number, body: any, headers: Headers) =>
  status !== 200
    ? `status ${status}`
    : !headers.get('content-type')?.startsWith('text/csv')
      ? `content type ${headers.get('content-type')}`
      : typeof body !== 'string' || !body.includes('\r\n')
        ? 'not CSV rows'
        : undefined;

const isText = (type: string) => (status: number, body: any, headers: Headers) =>
  status !== 200
    ? `status ${status}`
    : !headers.get('content-type')?.startsWith(type)
      ? `content type ${headers.get('content-type')}`
      : typeof body !== 'string' || body.length === 0
        ? 'empty body'
        : undefined;

/** A key-free path's placeholder (`/docs/{asset}`) matches one segment. */
const publicPathOf = (path: string) =>
  PUBLIC_PATHS.find((p) => new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}$`).test(path));

/**
 * What a check's path reaches: a route's operation id, a key-free path, or nothing (an unknown route).
 * @internal (exported for its tests)
 */
export function reached(path: string): string | undefined {
  const [, method, target] = /^(?:(POST) )?(.*)$/.exec(path)!;
  const bare = target.split('?')[0];
  return matchRoute(method ?? 'GET', bare)?.route.operationId ?? (method ? undefined : publicPathOf(bare));
}

/**
 * The routes and key-free paths that no passing check reached: each one a failure.
 * @internal (exported for its tests)
 */
export function unreached(passed: readonly string[]): string[] {
  const seen = new Set(passed.map(reached));
  return [...ROUTES.map((r) => r.operationId), ...PUBLIC_PATHS].filter((target) => !seen.has(target));
}

const hasUsageHeaders = (headers: Headers) =>
  ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-quota-limit', 'x-quota-remaining'].find((h) => !headers.has(h));

async function fetchJson(base: string, path: string, key: string | null | undefined, accept?: string, sent?: unknown) {
  const started = performance.now();
  const post = path.startsWith('POST ');
  const res = await fetch(`${base}${post ? path.slice('POST '.length) : path}`, {
    method: post ? 'POST' : 'GET',
    headers: {
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
      ...(accept ? { Accept: accept } : {}),
      ...(post ? { 'Content-Type': 'application/json' } : {}),
    },
    redirect: 'manual',
    ...(post ? { body: JSON.stringify(sent) } : {}),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers, ms: performance.now() - started };
}

export async function runSmoke(
  base: string,
  key: string,
  log: (line: string) => void = console.log,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const run = async (check: Check) => {
    try {
      const res = await fetchJson(
        base,
        check.path,
        check.key === undefined ? key : check.key,
        check.accept,
        check.body,
      );
      let problem = check.expect(res.status, res.body, res.headers);
      if (!problem && check.key !== null && res.status < 500 && (check.key ?? key) === key) {
        const missing = hasUsageHeaders(res.headers);
        if (missing) problem = `missing header ${missing}`;
      }
      outcomes.push({ name: check.name, path: check.path, status: res.status, ms: Math.round(res.ms), problem });
      return res.body as any;
    } catch (error) {
      outcomes.push({ name: check.name, path: check.path, status: 'error', ms: 0, problem: (error as Error).message });
      return undefined;
    }
  };

  for (const family of CATALOG_FAMILIES) {
    const list = await run({ name: `list ${family}`, path: `/api/v1/${family}?limit=5`, expect: isList });
    const slug = list?.data?.[0]?.slug;
    if (slug)
      await run({
        name: `${family} detail`,
        path: `/api/v1/${family}/${encodeURIComponent(slug)}`,
        expect: isObject(['slug', 'name', 'updated_at']),
      });
  }
  const currency = await run({ name: 'currency with offers', path: '/api/v1/currencies?limit=1', expect: isList });
  if (currency?.data?.[0]) {
    await run({
      name: 'currency detail offers',
      path: `/api/v1/currencies/${currency.data[0].slug}`,
      expect: isObject(OFFER_FAMILIES.map((family) => OFFER_FAMILY[family].dataset)),
    });
    const { slug, symbol } = currency.data[0];
    await run({
      name: 'search by symbol',
      path: `/api/v1/search?q=${encodeURIComponent(symbol)}&limit=20`,
      expect: (status, body) =>
        status !== 200
          ? `status ${status}`
          : body?.data?.some((hit: { slug: string }) => hit.slug === slug)
            ? undefined
            : `no ${slug} among the matches`,
    });
  }
  for (const family of OFFER_FAMILIES) {
    const list = await run({ name: `list ${family}`, path: `/api/v1/${family}?limit=5`, expect: isList });
    await run({
      name: `${family} filtered`,
      path: `/api/v1/${family}?platform_type=exchange&sort=updated_desc&limit=5`,
      expect: isList,
    });
    const snapshot = list?.pagination?.snapshot;
    if (snapshot)
      await run({
        name: `${family} changes`,
        path: `/api/v1/${family}/changes?since=${encodeURIComponent(snapshot)}&limit=5`,
        expect: isList,
      });
    const ids = (list?.data ?? []).slice(0, 3).map((offer: { id: number }) => offer.id);
    if (ids.length > 0)
      await run({
        name: `${family} ids`,
        path: `/api/v1/${family}?ids=${ids.join(',')}`,
        expect: (status, body) =>
          isList(status, body) ?? (body.data.length === ids.length ? undefined : `${body.data.length} offers`),
      });
    await run({ name: `${family} CSV`, path: `/api/v1/${family}?limit=5`, accept: 'text/csv', expect: isCsv });
    const id = list?.data?.[0]?.id;
    if (id !== undefined) {
      await run({
        name: `${family} detail`,
        path: `/api/v1/${family}/${id}`,
        expect: isObject(['id', 'compositeKey', 'updated_at']),
      });
      const history = (period: string) => ({
        name: `${family} history ${period}`,
        path: `/api/v1/${family}/${id}/history?period=${period}`,
        expect: !isHistoryFamily(family)
          ? isError(404, 'not_found')
          : isObject(['period', 'interval', 'from', 'to', 'point_count', 'data']),
      });
      await run(history('1m'));
      await run({
        name: `${family} history of several`,
        path: `/api/v1/${family}/history?ids=${id}&period=1m`,
        expect: !isHistoryFamily(family) ? isError(404, 'not_found') : isObject(['data']),
      });
      if (isHistoryFamily(family)) {
        await run({
          name: `${family} history of several CSV`,
          path: `/api/v1/${family}/history?ids=${id}&period=1m`,
          accept: 'text/csv',
          expect: isCsv,
        });
        await run(history('all'));
        await run({
          name: `${family} history CSV`,
          path: `/api/v1/${family}/${id}/history?period=1m`,
          accept: 'text/csv',
          expect: isCsv,
        });
      }
    }
  }
  await run({
    name: 'usage',
    path: '/api/v1/usage',
    expect: isObject(['plan', 'limits', 'minute', 'month']),
  });
  // The owner's view of the key's webhook subscriptions (CONTRACT §14): a list, and the deliveries
  // of the first subscription (an unknown one answers 404, as another user's would).
  const hooks = await run({ name: 'webhooks', path: '/api/v1/webhooks?limit=5', expect: isList });
  const hook = hooks?.data?.[0]?.id;
  await run({
    name: 'webhook deliveries',
    path: `/api/v1/webhooks/${encodeURIComponent(hook ?? 'wh_none')}/deliveries?limit=5`,
    expect: (status, body) => (hook ? isList(status, body) : status === 404 ? undefined : `status ${status}`),
  });
  // The MCP endpoint (ADR 0027): one tool call through it, answered as the route answers.
  await run({
    name: 'MCP tools/call',
    path: `POST ${MCP_PATH}`,
    accept: 'application/json, text/event-stream',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_currencies', arguments: { limit: 1 } } },
    expect: (status, body) =>
      status !== 200
        ? `status ${status}`
        : Array.isArray(body?.result?.structuredContent?.data) && body.result.isError === undefined
          ? undefined
          : 'not a tool result with a list',
  });
  // No stream and no session: any other method is the 405 the gateway answers before the key.
  await run({ name: 'MCP GET', path: MCP_PATH, key: null, expect: isError(405, 'method_not_allowed') });
  await run({ name: 'data status', path: STATUS_PATH, key: null, expect: isObject(['families']) });
  await run({ name: 'API description', path: OPENAPI_PATH, key: null, expect: isObject(['openapi', 'paths']) });
  await run({ name: 'docs page', path: '/docs', key: null, expect: isText('text/html') });
  await run({ name: 'docs script', path: '/docs/docs.js', key: null, expect: isText('text/javascript') });
  await run({ name: 'earn min_apy', path: '/api/v1/earn?min_apy=1&limit=5', expect: isList });
  await run({ name: 'validation error', path: '/api/v1/earn?limit=0', expect: isError(400, 'validation_error') });
  await run({
    name: 'unknown slug',
    path: '/api/v1/exchanges/no-such-exchange-smoke',
    expect: isError(404, 'not_found'),
  });
  await run({ name: 'no key', path: '/api/v1/exchanges', key: null, expect: isError(401, 'invalid_api_key') });
  await run({
    name: 'bad key',
    path: '/api/v1/exchanges',
    key: 'smoke_not_a_real_key_000000000000000000',
    expect: isError(401, 'invalid_api_key'),
  });
  await run({ name: 'unknown route', path: '/api/v1/nothing-here', key: null, expect: isError(404, 'not_found') });

  for (const target of unreached(outcomes.filter((o) => !o.problem).map((o) => o.path))) {
    outcomes.push({
      name: `covers ${target}`,
      path: target,
      status: '-',
      ms: 0,
      problem: 'no passing smoke check reached it',
    });
  }

  const width = Math.max(...outcomes.map((o) => o.name.length));
  for (const o of outcomes) {
    log(
      `${o.problem ? 'FAIL' : 'pass'}  ${o.name.padEnd(width)}  ${String(o.status).padStart(5)}  ${String(o.ms).padStart(5)} ms  ${o.path}${o.problem ? `  — ${o.problem}` : ''}`,
    );
  }
  const failed = outcomes.filter((o) => o.problem).length;
  log(`${outcomes.length - failed} passed, ${failed} failed`);
  return outcomes;
}
