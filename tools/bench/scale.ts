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
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import type { FunctionName } from '../../shared/http/routes';
import { importDataset } from '../../shared/import/importer';
import type { RuntimeConfig } from '../../shared/platform/config';
import { roundTrips, withRequestAccounting } from '../../shared/platform/dynamo-accounting';
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

/** The first request of a kind on a warm instance after a 5 % refresh is published, against a warm one. */
export interface FirstAfterPublish {
  kind: string;
  path: string;
  first_ms: Latency;
  warm_ms: Latency;
  /** p50(first) / p50(warm): target ≤ 1.5 (issue 31, item 3). */
  ratio: number | null;
  /** Sequential round trips of the first request's reads (the counter write beside them aside), its index loads and deltas applied (the most over the runs). */
  first_round_trips: number;
  first_index_loads: number;
  first_index_deltas: number;
  first_read_units: number;
}

interface ScaleRun {
  factor: number;
  offers: { earn: number; borrow: number; collateral: number };
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
  earn: Math.round(base.earn * factor),
  borrow: Math.round(base.borrow * factor),
  collateral: Math.round(base.collateral * factor),
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

/**
 * The first request of each kind on a warm instance after `publish()` published a new earn version
 * (the instance then reads the new pointer), then the same request warm, `runs` times, under the
 * latency model when `withModel`.
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
    warm: [] as number[],
    trips: 0,
    loads: 0,
    deltas: 0,
    units: 0,
  }));
  for (let r = 0; r < runs; r++) {
    // An instance per kind, warm: the version served now loaded, by the same request; then one publish for them all.
    const instances = kinds.map(() => buildFunctions(config, clients));
    for (const [k, kind] of kinds.entries())
      await call(handlerOf(instances[k], kind.fn), kind.path, `publish-warmup-${k}`);
    await publish();
    // The new pointer read, as by an instance whose cached pointer just expired.
    for (const instance of instances) await instance.deps.stores.snapshot.reload();
    for (const [k, kind] of kinds.entries()) {
      const m = measured[k];
      const model = withModel ? applyLatencyModel([clients.client, clients.counterClient], 7) : undefined;
      try {
        const timedCall = async (iteration: number) => {
          model?.begin(iteration);
          const started = performance.now();
          const out = await call(handlerOf(instances[k], kind.fn), kind.path, `publish-${k}`);
          return { ms: performance.now() - started, ...out };
        };
        const after = await timedCall(3_000_000 + k * 1_000 + r);
        if (after.result.statusCode !== 200)
          throw new Error(`${kind.path}: ${after.result.statusCode} on the first request after a publish`);
        m.first.push(after.ms);
        m.trips = Math.max(m.trips, after.readRoundTrips);
        m.loads = Math.max(m.loads, after.summary.indexLoads);
        m.deltas = Math.max(m.deltas, after.summary.indexDeltas);
        m.units = Math.max(m.units, after.summary.readCapacity);
        // The same draws for the warm request: only the delta (or the index load) differs.
        m.warm.push((await timedCall(3_000_000 + k * 1_000 + r)).ms);
      } finally {
        model?.off();
      }
    }
  }
  return kinds.map((kind, k) => {
    const m = measured[k];
    return {
      kind: kind.name,
      path: kind.path,
      first_ms: latencyOf(m.first),
      warm_ms: latencyOf(m.warm),
      ratio: round(median(m.first) / median(m.warm)),
      first_round_trips: m.trips,
      first_index_loads: m.loads,
      first_index_deltas: m.deltas,
      first_read_units: m.units,
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
  const from = new Date();
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
 * What the quick run checks of the first request after a publish (counts, not times): no index
 * load but one delta applied, and its reads in at most 2 round trips with the pointer read (the
 * delta, then the page's blocks; the counter write runs beside them).
 */
export function publishChecks(
  results: readonly FirstAfterPublish[],
): { check: string; pass: boolean; detail: string }[] {
  return results.map((r) => ({
    check: `first request after a 5 % refresh on a warm instance (${r.kind}): no index load, one delta, its reads in ≤ 2 round trips`,
    pass: r.first_index_loads === 0 && r.first_index_deltas === 1 && r.first_round_trips <= 2,
    detail: `${r.first_index_loads} load(s), ${r.first_index_deltas} delta(s), ${r.first_round_trips} round trip(s), ${r.first_read_units} read units`,
  }));
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
  const now = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
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
    const handlers = buildFunctions(config, clients).handlers as unknown as Record<FunctionName, Handler>;
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
      offers: { earn: preset.earn, borrow: preset.borrow, collateral: preset.collateral },
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
    ['offers (earn / borrow / collateral)', (r) => `${r.offers.earn} / ${r.offers.borrow} / ${r.offers.collateral}`],
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
      `first request after a 5 % refresh is published, ${kind}, warm instance: p50 first / warm (latency model), round trips, read units, index loads and deltas`,
      (r) => {
        const p = publish(r, kind);
        return p
          ? `${p.first_ms.p50} / ${p.warm_ms.p50} ms = ×${p.ratio}; ${p.first_round_trips} RT, ${p.first_read_units} RU, ${p.first_index_loads} load(s), ${p.first_index_deltas} delta(s)`
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
