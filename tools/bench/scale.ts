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
 * pointer names a new one: today a full load of the new version's index, then the page. It is
 * measured on a fresh instance whose pointer is already cached (a request to another family first),
 * which is the same work; its round trips and index loads are counts the quick run checks too.
 */
import { gzipSync } from 'node:zlib';
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../local/events';
import { buildFunctions } from '../../local/functions';
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import type { FunctionName } from '../../shared/http/routes';
import type { RuntimeConfig } from '../../shared/platform/config';
import { roundTrips, withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import { type Clients, createClients } from '../../shared/platform/dynamodb';
import { type GeneratePreset, generateDataset } from '../sample-data/generate';
import { ServedData } from './floor';
import { type ImportCase, measureImports } from './imports';
import { applyLatencyModel } from './latency-model';
import { benchConfig, loadDataset, startBenchDynamo } from './load';
import { pickRequests } from './picks';
import type { RequestKind } from './requests';
import { type Latency, latencyOf, median, round } from './stats';
import { measureWarmLoads, type WarmLoads } from './warm-loads';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** The first request of a kind on an instance that holds no index of its family, against a warm one. */
export interface FirstAfterPublish {
  kind: string;
  path: string;
  first_ms: Latency;
  warm_ms: Latency;
  /** p50(first) / p50(warm): target ≤ 1.5 (issue 31, item 3). */
  ratio: number | null;
  /** Sequential round trips of the first request's reads (the counter write beside them aside) and its index loads (the most over the runs). */
  first_round_trips: number;
  first_index_loads: number;
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
 * The first request of each kind on a fresh instance (pointer cached by a request to another
 * family first), then the same request warm, `runs` times, under the latency model when `model`.
 */
export async function measureFirstAfterPublish(
  config: RuntimeConfig,
  clients: Clients,
  kinds: readonly { name: string; path: string; fn: FunctionName }[],
  runs: number,
  withModel: boolean,
): Promise<FirstAfterPublish[]> {
  const model = withModel ? applyLatencyModel([clients.client, clients.counterClient], 7) : undefined;
  try {
    const results: FirstAfterPublish[] = [];
    for (const [k, kind] of kinds.entries()) {
      const first: number[] = [];
      const warm: number[] = [];
      let trips = 0;
      let loads = 0;
      let readUnits = 0;
      for (let r = 0; r < runs; r++) {
        const instance = buildFunctions(config, clients);
        const handlers = instance.handlers as unknown as Record<FunctionName, Handler>;
        // The pointer cached, as on a warm instance: a request to a small family of another function's kind.
        await call(handlers.platforms, '/api/v1/wallets?limit=1', `publish-warmup-${k}`);
        const timedCall = async (iteration: number) => {
          model?.begin(iteration);
          const started = performance.now();
          const out = await call(handlers[kind.fn], kind.path, `publish-${k}`);
          return { ms: performance.now() - started, ...out };
        };
        const cold = await timedCall(3_000_000 + k * 1_000 + r);
        if (cold.result.statusCode !== 200)
          throw new Error(`${kind.path}: ${cold.result.statusCode} on a fresh instance`);
        first.push(cold.ms);
        trips = Math.max(trips, cold.readRoundTrips);
        loads = Math.max(loads, cold.summary.indexLoads);
        readUnits = Math.max(readUnits, cold.summary.readCapacity);
        // The same draws for the warm request: only the index load differs.
        warm.push((await timedCall(3_000_000 + k * 1_000 + r)).ms);
      }
      results.push({
        kind: kind.name,
        path: kind.path,
        first_ms: latencyOf(first),
        warm_ms: latencyOf(warm),
        ratio: round(median(first) / median(warm)),
        first_round_trips: trips,
        first_index_loads: loads,
        first_read_units: readUnits,
      });
    }
    return results;
  } finally {
    model?.off();
  }
}

/**
 * What the quick run checks of the first request after a publish (counts, not times): one index
 * load, and its reads in at most 2 round trips with the pointer cached (the index's segments in
 * parallel, then the page's blocks; the counter write runs beside them).
 */
export function publishChecks(
  results: readonly FirstAfterPublish[],
): { check: string; pass: boolean; detail: string }[] {
  return results.map((r) => ({
    check: `first request after a publish (${r.kind}): one index load, its reads in ≤ 2 round trips`,
    pass: r.first_index_loads === 1 && r.first_round_trips <= 2,
    detail: `${r.first_index_loads} load(s), ${r.first_round_trips} round trip(s), ${r.first_read_units} read units`,
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
    const first = await measureFirstAfterPublish(config, clients, publishKinds(picks.offerIds.earn), runs, true);
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
      `first request after a publish, ${kind}: p50 first / warm (latency model), round trips, read units`,
      (r) => {
        const p = publish(r, kind);
        return p
          ? `${p.first_ms.p50} / ${p.warm_ms.p50} ms = ×${p.ratio}; ${p.first_round_trips} RT, ${p.first_read_units} RU`
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
