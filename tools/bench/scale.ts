/**
 * The service at several times BENCH's offers (issue 31; docs/performance.md, "At five times the
 * offers"): `npm run bench -- --scale 5` generates BENCH with its earn, borrow and collateral offers
 * multiplied by each factor (1 and the one given; the catalog stays BENCH's), imports it, and
 * measures what grows with the offers: every index one instance of each API function needs (heap,
 * budget's estimate, reloads on a second pass), the busiest currency's detail (bytes with and
 * without gzip, read units, status), the refresh cases (a)–(d), and the first request after a
 * publish against a warm one under the latency model.
 *
 * The first request after a publish is what an instance holding the previous version pays when the
 * pointer names a new one: the new version's index delta against the one it holds, applied, then
 * the page (docs/adr/0017-index-deltas.md). It is measured on an instance warmed by the same
 * request, after a 5 % earn refresh is published (a new APY and `updated_at` for every 20th earn
 * offer, five minutes later) and the instance has read the new pointer; its round trips, index
 * loads and deltas are counts the quick run checks too.
 */
import { gzipSync } from 'node:zlib';
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../local/events';
import { buildFunctions } from '../../local/functions';
import { REFRESH_AHEAD_AT } from '../../shared/data/snapshot-store';
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import type { FunctionName } from '../../shared/http/routes';
import { importDataset } from '../../shared/import/importer';
import { OFFER_FAMILIES, type OfferFamily } from '../../shared/model/offer-families';
import { systemClock } from '../../shared/platform/clock';
import type { RuntimeConfig } from '../../shared/platform/config';
import { currentAccounting, roundTrips, withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import { type Clients, createClients, createDocumentClient } from '../../shared/platform/dynamodb';
import { type GeneratePreset, generateDataset } from '../sample-data/generate';
import { ServedData } from './floor';
import { type ImportCase, measureImports, refreshed } from './imports';
import { applyLatencyModel } from './latency-model';
import { benchConfig, loadDataset, startBenchDynamo } from './load';
import { pickRequests } from './picks';
import type { RequestKind } from './requests';
import { type Latency, latencyOf, median, round } from './stats';
import { measureWarmLoads, type WarmLoads } from './warm-loads';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;
type EarnOffer = Parameters<typeof refreshed>[0][number];

/** Requests of a kind on a warm instance after a 5 % refresh is published, against a warm one. */
export interface FirstAfterPublish {
  kind: string;
  path: string;
  /**
   * The first request of the new version on an instance with traffic: a request found its cached
   * pointer half-way to expiry and the pointer was read ahead beside it (snapshot-store.ts, ADR 0019).
   */
  first_ms: Latency;
  /** The request that found the pointer half-way to expiry: answered from the cached version, the read ahead beside it. */
  during_ms: Latency;
  /** The first request after the cached pointer expired (no request in its second half): it reads the pointer and the delta itself. */
  expired_ms: Latency;
  warm_ms: Latency;
  /** p50(first) / p50(warm): target ≤ 1.5 (issue 31, item 3). */
  ratio: number | null;
  /** p50(during) / p50(warm) and p50(expired) / p50(warm). */
  during_ratio: number | null;
  expired_ratio: number | null;
  /** Sequential round trips of the first request's reads (the counter write beside them aside), its index loads and deltas applied (the most over the runs). */
  first_round_trips: number;
  first_index_loads: number;
  first_index_deltas: number;
  first_read_units: number;
  /** What the read ahead built, outside every request: index loads and deltas applied (the most over the runs). */
  ahead_index_loads: number;
  ahead_index_deltas: number;
  /** The same as `first_*`, of the request after the expiry (its pointer read included). */
  expired_round_trips: number;
  expired_index_loads: number;
  expired_index_deltas: number;
}

interface ScaleRun {
  factor: number;
  offers: Record<OfferFamily, number>;
  import_s: number;
  /** A fresh instance of each function answering its kinds twice (tools/bench/warm-loads.ts). */
  warm: WarmLoads[];
  busiest: {
    currency: string;
    status: number;
    json_bytes: number;
    gzip_bytes: number;
    /** The buffered Lambda response it would be without gzip: the body as a JSON string in the proxy result. */
    payload_bytes_without_gzip: number;
    read_units_warm: number;
  };
  earn_page_read_units_warm: number;
  imports: ImportCase[];
  first_after_publish: FirstAfterPublish[];
}

export interface ScaleResults {
  /** The preset whose offers are multiplied: BENCH, or QUICK_BENCH with `--quick`. */
  base: string;
  factors: number[];
  runs: ScaleRun[];
}

/** A preset (BENCH) with its offers multiplied by `factor`. */
const scaledPreset = (base: GeneratePreset, factor: number): GeneratePreset => ({
  ...base,
  ...Object.fromEntries(OFFER_FAMILIES.map((family) => [family, Math.round(base[family] * factor)])),
});

const event = (path: string, keyId: string, gzip = false): ApiEvent => {
  const built = apiEvent(path, { keyId, perMinute: 1e9, perMonth: 1e9 });
  if (gzip) {
    built.headers = { ...built.headers, 'Accept-Encoding': 'gzip' };
    built.multiValueHeaders = { ...built.multiValueHeaders, 'Accept-Encoding': ['gzip'] };
  }
  return built;
};

/** One request through a handler, with its accounting. */
async function call(handler: Handler, path: string, keyId: string, gzip = false) {
  const ready = event(path, keyId, gzip);
  const { result, accounting } = await withRequestAccounting(() => handler(ready, {} as Context));
  // The reads' own chain: the counter write runs beside them, and on a loaded machine it may end
  // before a read is sent, which would count it as a round trip of its own.
  const reads = accounting.calls.filter((c) => c.command !== 'UpdateItem');
  return { result, summary: accounting.summary(), readRoundTrips: roundTrips(reads) };
}

const bodyBytes = (result: ApiResult) =>
  result.isBase64Encoded ? Buffer.from(result.body, 'base64').length : Buffer.byteLength(result.body);

/** The pointer cache of the measured instances: what matters is the share of it a request finds gone. */
const CACHE_MS = 60_000;

/**
 * Requests of each kind on a warm instance after `publish()` published a new earn version, under
 * the latency model when `withModel`, `runs` times: with traffic, the request that finds the
 * cached pointer half-way to expiry (answered from it, the pointer read ahead beside it), then the
 * first request of the new version, then a warm one; and after a second publish, the first request
 * once the cached pointer has expired (it reads the pointer and the delta itself).
 */
export async function measureFirstAfterPublish(
  config: RuntimeConfig,
  clients: Clients,
  kinds: readonly { name: string; path: string; fn: FunctionName }[],
  runs: number,
  withModel: boolean,
  publish: () => Promise<void>,
): Promise<FirstAfterPublish[]> {
  const measured = kinds.map(() => ({
    first: [] as number[],
    during: [] as number[],
    expired: [] as number[],
    warm: [] as number[],
    trips: 0,
    loads: 0,
    deltas: 0,
    units: 0,
    aheadLoads: 0,
    aheadDeltas: 0,
    expiredTrips: 0,
    expiredLoads: 0,
    expiredDeltas: 0,
  }));
  const { max } = Math;
  /**
   * `body` given a timed request of kind `k` on `instance`, under the latency model when `withModel`:
   * every request of `body` takes the draws of `iteration`, so only what it does itself differs.
   */
  const timing = async (
    k: number,
    instance: ReturnType<typeof buildFunctions>,
    iteration: number,
    body: (timed: (when: string) => Promise<{ ms: number } & Awaited<ReturnType<typeof call>>>) => Promise<void>,
  ) => {
    const kind = kinds[k];
    // The read ahead's calls run outside the request's accounting (snapshot-store.ts), with draws of their own.
    const outside = () => currentAccounting() === undefined;
    const model = withModel ? applyLatencyModel([clients.client, clients.counterClient], 7, outside) : undefined;
    try {
      await body(async (when) => {
        model?.begin(iteration);
        const started = performance.now();
        const out = await call(handlerOf(instance, kind.fn), kind.path, `publish-${k}`);
        const ms = performance.now() - started;
        if (out.result.statusCode !== 200) throw new Error(`${kind.path}: ${out.result.statusCode} ${when}`);
        return { ms, ...out };
      });
    } finally {
      model?.off();
    }
  };
  for (let r = 0; r < runs; r++) {
    let now = systemClock().getTime();
    const clock = () => new Date(now);
    // An instance per kind, warm: the version served now loaded, by the same request; then one publish for them all.
    const instances = kinds.map(() => buildFunctions({ ...config, snapshotCacheMs: CACHE_MS }, clients, clock));
    for (const [k, kind] of kinds.entries())
      await call(handlerOf(instances[k], kind.fn), kind.path, `publish-warmup-${k}`);
    await publish();
    now += CACHE_MS * REFRESH_AHEAD_AT;
    for (const [k, instance] of instances.entries()) {
      const m = measured[k];
      const { snapshot, indexes } = instance.deps.stores;
      await timing(k, instance, 3_000_000 + k * 1_000 + r, async (timed) => {
        const built = { ...indexes.built };
        m.during.push((await timed('beside the read ahead')).ms);
        await snapshot.settled();
        m.aheadLoads = max(m.aheadLoads, indexes.built.loads - built.loads);
        m.aheadDeltas = max(m.aheadDeltas, indexes.built.deltas - built.deltas);
        const first = await timed('after a publish');
        m.first.push(first.ms);
        m.trips = max(m.trips, first.readRoundTrips);
        m.loads = max(m.loads, first.summary.indexLoads);
        m.deltas = max(m.deltas, first.summary.indexDeltas);
        m.units = max(m.units, first.summary.readCapacity);
        m.warm.push((await timed('warm')).ms);
      });
    }
    // No request in the second half of the cache's time: the next one finds the pointer expired.
    await publish();
    now += CACHE_MS;
    for (const [k, instance] of instances.entries()) {
      const m = measured[k];
      await timing(k, instance, 3_000_000 + k * 1_000 + r, async (timed) => {
        const out = await timed('after an expiry');
        m.expired.push(out.ms);
        m.expiredTrips = max(m.expiredTrips, out.readRoundTrips);
        m.expiredLoads = max(m.expiredLoads, out.summary.indexLoads);
        m.expiredDeltas = max(m.expiredDeltas, out.summary.indexDeltas);
      });
    }
  }
  return kinds.map((kind, k) => {
    const m = measured[k];
    const ratio = (of: number[]) => round(median(of) / median(m.warm));
    return {
      kind: kind.name,
      path: kind.path,
      first_ms: latencyOf(m.first),
      during_ms: latencyOf(m.during),
      expired_ms: latencyOf(m.expired),
      warm_ms: latencyOf(m.warm),
      ratio: ratio(m.first),
      during_ratio: ratio(m.during),
      expired_ratio: ratio(m.expired),
      first_round_trips: m.trips,
      first_index_loads: m.loads,
      first_index_deltas: m.deltas,
      first_read_units: m.units,
      ahead_index_loads: m.aheadLoads,
      ahead_index_deltas: m.aheadDeltas,
      expired_round_trips: m.expiredTrips,
      expired_index_loads: m.expiredLoads,
      expired_index_deltas: m.expiredDeltas,
    };
  });
}

const handlerOf = (instance: ReturnType<typeof buildFunctions>, fn: FunctionName) =>
  (instance.handlers as unknown as Record<FunctionName, Handler>)[fn];

/**
 * A publisher of 5 % earn refreshes on `tableName`, each five minutes after the last (from now), of
 * `earnOffers` (the served ones), through its own client (outside the latency model).
 */
export function fivePercentRefreshes(endpoint: string, tableName: string, earnOffers: EarnOffer[]) {
  const client = createDocumentClient({ endpoint, maxAttempts: 10, requestTimeoutMs: 30_000 });
  const from = systemClock();
  let offers = earnOffers;
  let n = 0;
  return {
    publish: async () => {
      n++;
      const at = new Date(from.getTime() + n * 5 * 60_000);
      offers = refreshed(offers, 20, at.toISOString(), `bench-publish-${n}`);
      await importDataset({ earn_offers: offers }, { client, tableName, now: () => at });
    },
    close: () => client.destroy(),
  };
}

/**
 * What the quick run checks of the requests after a publish (counts, not times): the pointer read
 * ahead built the new version from one delta (no index load), and the first request of the new
 * version read neither index nor delta, in one round trip; after an expiry the request applies the
 * delta itself, in 3 round trips (the pointer, the delta, the page's blocks; the counter write runs
 * beside them).
 */
export function publishChecks(
  results: readonly FirstAfterPublish[],
): { check: string; pass: boolean; detail: string }[] {
  return results.flatMap((r) => [
    {
      check: `first request after a 5 % refresh on a warm instance with traffic (${r.kind}): the pointer read ahead applied one delta and loaded no index; the request read neither, in 1 round trip`,
      pass:
        r.ahead_index_loads === 0 &&
        r.ahead_index_deltas === 1 &&
        r.first_index_loads === 0 &&
        r.first_index_deltas === 0 &&
        r.first_round_trips <= 1,
      detail: `ahead: ${r.ahead_index_loads} load(s), ${r.ahead_index_deltas} delta(s); the request: ${r.first_index_loads} load(s), ${r.first_index_deltas} delta(s), ${r.first_round_trips} round trip(s), ${r.first_read_units} read units`,
    },
    {
      check: `first request after a 5 % refresh once the cached pointer expired (${r.kind}): no index load, one delta, its reads in ≤ 3 round trips`,
      pass: r.expired_index_loads === 0 && r.expired_index_deltas === 1 && r.expired_round_trips <= 3,
      detail: `${r.expired_index_loads} load(s), ${r.expired_index_deltas} delta(s), ${r.expired_round_trips} round trip(s)`,
    },
  ]);
}

/** The kinds the first-after-publish measurement times: an earn page and an earn offer detail. */
export const publishKinds = (earnId: number) => [
  { name: 'earn first page', path: '/api/v1/earn?limit=50', fn: 'offers' as const },
  { name: 'earn offer detail', path: `/api/v1/earn/${earnId}`, fn: 'offers' as const },
];

async function measureFactor(
  base: GeneratePreset,
  factor: number,
  runs: number,
  log: (line: string) => void,
): Promise<ScaleRun> {
  const now = new Date(Math.floor(systemClock().getTime() / 3_600_000) * 3_600_000);
  const preset = scaledPreset(base, factor);
  const dataset = generateDataset({ ...preset, now });
  log(`scale ×${factor}: ${dataset.earn_offers.length} earn, ${dataset.borrow_offers.length} borrow offers`);
  const tableName = `market-data-scale-${factor}`;
  const dynamo = await startBenchDynamo(tableName);
  const config = benchConfig(tableName, dynamo.endpoint);
  const clients = createClients(config);
  try {
    const imported = await loadDataset(dataset, clients.client, tableName);
    log(`scale ×${factor}: imported ${imported.items} items in ${(imported.ms / 1000).toFixed(1)} s`);
    const picks = await pickRequests(dataset, new ServedData(clients.client, tableName), now);
    const busiestPath = `/api/v1/currencies/${picks.busiestCurrency}`;
    const kinds: Pick<RequestKind, 'fn' | 'path'>[] = [
      { path: '/api/v1/earn?limit=50', fn: 'offers' },
      { path: `/api/v1/earn/${picks.offerIds.earn}`, fn: 'offers' },
      { path: '/api/v1/borrow?limit=50', fn: 'offers' },
      { path: '/api/v1/collateral?limit=50', fn: 'offers' },
      { path: busiestPath, fn: 'currencies' },
    ];
    const warm = await measureWarmLoads(kinds, config, clients);
    log(`scale ×${factor}: warm instances ${warm.map((w) => `${w.fn} ${w.heap_mb} MB`).join(', ')}`);

    // The busiest detail and an earn page, warm, on one instance.
    const handlers = buildFunctions(config, clients, systemClock).handlers as unknown as Record<FunctionName, Handler>;
    await call(handlers.currencies, busiestPath, 'scale-busiest');
    const plain = await call(handlers.currencies, busiestPath, 'scale-busiest');
    const coded = await call(handlers.currencies, busiestPath, 'scale-busiest', true);
    await call(handlers.offers, '/api/v1/earn?limit=50', 'scale-earn');
    const page = await call(handlers.offers, '/api/v1/earn?limit=50', 'scale-earn');
    const json = plain.result.body;
    const refreshes = fivePercentRefreshes(dynamo.endpoint, tableName, dataset.earn_offers);
    const first = await measureFirstAfterPublish(
      config,
      clients,
      publishKinds(picks.offerIds.earn),
      runs,
      true,
      refreshes.publish,
    ).finally(refreshes.close);
    log(`scale ×${factor}: first after a publish ${first.map((f) => `${f.kind} ×${f.ratio}`).join(', ')}`);
    const imports = await measureImports(dataset, dynamo.endpoint, { quick: true, refreshesOnly: true }, log);
    return {
      factor,
      offers: Object.fromEntries(OFFER_FAMILIES.map((family) => [family, preset[family]])) as Record<
        OfferFamily,
        number
      >,
      import_s: round(imported.ms / 1000, 1) ?? 0,
      warm,
      busiest: {
        currency: picks.busiestCurrency,
        status: plain.result.statusCode,
        json_bytes: bodyBytes(plain.result),
        gzip_bytes: coded.result.isBase64Encoded ? bodyBytes(coded.result) : gzipSync(json, { level: 1 }).length,
        payload_bytes_without_gzip: Buffer.byteLength(JSON.stringify({ statusCode: 200, body: json })),
        read_units_warm: plain.summary.readCapacity,
      },
      earn_page_read_units_warm: page.summary.readCapacity,
      imports,
      first_after_publish: first,
    };
  } finally {
    clients.client.destroy();
    clients.counterClient.destroy();
    await dynamo.close();
  }
}

/** The service at 1× and `factor`× the offers of `base` (BENCH; `--quick`: QUICK_BENCH, to try it). */
export async function measureScale(
  baseName: string,
  base: GeneratePreset,
  factor: number,
  runs: number,
  log: (line: string) => void,
): Promise<ScaleResults> {
  const factors = [...new Set([1, factor])];
  const results: ScaleRun[] = [];
  for (const f of factors) results.push(await measureFactor(base, f, runs, log));
  return { base: baseName, factors, runs: results };
}

const MB = 2 ** 20;
const mb = (bytes: number) => `${round(bytes / MB, 2)} MB`;

/** The table of issue 31, one column per factor. */
export function scaleTable(scale: ScaleResults): string {
  const col = (f: (run: ScaleRun) => string) => scale.runs.map(f).join(' | ');
  const warmOf = (run: ScaleRun, fn: FunctionName) => run.warm.find((w) => w.fn === fn);
  const caseOf = (run: ScaleRun, id: string) => run.imports.find((c) => c.id === id);
  const publish = (run: ScaleRun, kind: string) => run.first_after_publish.find((p) => p.kind === kind);
  const rows: [string, (run: ScaleRun) => string][] = [
    [`offers (${OFFER_FAMILIES.join(' / ')})`, (r) => OFFER_FAMILIES.map((family) => r.offers[family]).join(' / ')],
    ['import into an empty table', (r) => `${r.import_s} s`],
    ...(['currencies', 'offers'] as const).map((fn): [string, (run: ScaleRun) => string] => [
      `every index one ${fn} instance needs: heap (budget's estimate) of its budget; index loads on a second pass`,
      (r) => {
        const w = warmOf(r, fn);
        return w ? `${w.heap_mb} MB (${w.estimate_mb}) of ${w.budget_mb}; ${w.second_pass_loads}` : '–';
      },
    ]),
    ['earn list page, warm instance, read units', (r) => `${r.earn_page_read_units_warm}`],
    [
      'busiest currency detail: JSON / gzip',
      (r) =>
        `${r.busiest.currency}: ${mb(r.busiest.json_bytes)} / ${mb(r.busiest.gzip_bytes)} (status ${r.busiest.status})`,
    ],
    [
      'its buffered Lambda payload without gzip (over 6 MB: streamed, ADR 0014)',
      (r) => mb(r.busiest.payload_bytes_without_gzip),
    ],
    ['its read units, warm', (r) => `${r.busiest.read_units_warm}`],
    ...(['b', 'c', 'd'] as const).map((id): [string, (run: ScaleRun) => string] => [
      `(${id}) ${caseOf(scale.runs[0], id)?.name.replace(/^[a-e]\. /, '') ?? ''}, total write units`,
      (r) => `${caseOf(r, id)?.total_units ?? '–'}`,
    ]),
    ...['earn first page', 'earn offer detail'].map((kind): [string, (run: ScaleRun) => string] => [
      `after a 5 % refresh is published, ${kind}, warm instance with traffic: p50 first request of the new version / warm (latency model); the request that started the pointer's read ahead; round trips, read units, index loads and deltas of the first, and what the read ahead built`,
      (r) => {
        const p = publish(r, kind);
        return p
          ? `${p.first_ms.p50} / ${p.warm_ms.p50} ms = ×${p.ratio}; the request beside the read ahead ×${p.during_ratio}; ${p.first_round_trips} RT, ${p.first_read_units} RU, ${p.first_index_loads} load(s), ${p.first_index_deltas} delta(s); ahead: ${p.ahead_index_loads} load(s), ${p.ahead_index_deltas} delta(s)`
          : '–';
      },
    ]),
    ...['earn first page', 'earn offer detail'].map((kind): [string, (run: ScaleRun) => string] => [
      `after a 5 % refresh is published, ${kind}, warm instance whose cached pointer expired: p50 first / warm (latency model), round trips (the pointer's included), index loads and deltas`,
      (r) => {
        const p = publish(r, kind);
        return p
          ? `${p.expired_ms.p50} / ${p.warm_ms.p50} ms = ×${p.expired_ratio}; ${p.expired_round_trips} RT, ${p.expired_index_loads} load(s), ${p.expired_index_deltas} delta(s)`
          : '–';
      },
    ]),
  ];
  return [
    `| | ${col((r) => `${r.factor}×`)} |`,
    `|---|${scale.runs.map(() => '---').join('|')}|`,
    ...rows.map(([label, value]) => `| ${label} | ${col(value)} |`),
  ].join('\n');
}
