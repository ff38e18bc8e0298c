/**
 * The bench pass for read cost with a ceiling and latency as DynamoDB behaves: every single-view
 * request kind under the latency model (cache off and on, against its floor), the traffic mix, and
 * the read-unit ceiling of the min_apy kinds (docs/performance.md, "Ceilings").
 */
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../local/events';
import type { BuiltFunctions } from '../../local/functions';
import { buildFunctions } from '../../local/functions';
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import type { FunctionName } from '../../shared/http/routes';
import { systemClock } from '../../shared/platform/clock';
import { ENV, type RuntimeConfig, readConfig } from '../../shared/platform/config';
import { type Clients, clientOptionsOf, createDocumentClient } from '../../shared/platform/dynamodb';
import { type IndexLoads, indexLoadChecks, indexLoadTable, measureIndexLoads } from './index-load';
import {
  applyLatencyModel,
  LATENCY_MODEL,
  type MixResult,
  type ModelKind,
  type ModelResult,
  measureLatencyModel,
  replayMix,
} from './latency-model';
import { startBenchDynamo } from './load';
import type { KindResult } from './measure';
import type { Check } from './report';
import type { FloorContext, RequestKind } from './requests';
import { round } from './stats';
import { measureStatus, statusCheck } from './status-load';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** Request kinds served by one view read (the latency target applies to these). */
/** Every list and detail is one round trip with the index loaded: all of them are modelled (history has its own floors). */
const SINGLE_VIEW: ReadonlySet<RequestKind['group']> = new Set([
  'catalog list',
  'offer list',
  'single filter',
  'filter pair',
  'min_apy',
  'combined filters',
  '1.2 filters',
  'detail',
]);

/** A first page of min_apy with another order reads at most about 1 MB (docs/performance.md). */
const MIN_APY_FIRST_PAGE_RCU = 128;
/** The largest request before the index (the currency detail of tether at BENCH) and a page of 200. */
const REQUEST_RCU_CEILING = 342.5;
const PAGE_200_RCU_CEILING = 128;
/** Issue 29: no single-offer history window reads more than the largest currency detail (149 read units at BENCH). */
const HISTORY_WINDOW_RCU_CEILING = 149;
const LATENCY_TARGET = 1.2;
/** Iterations per kind, as many in --quick as in a full run: a median of n draws moves by about 1.25σ/√n (σ ≈ 0.47 here). */
const MODEL_RUNS = { quick: 100, full: 100 } as const;

export interface ModelPass {
  latency: ModelResult[];
  mix: MixResult[];
  index_loads: IndexLoads;
  checks: Check[];
}

const asHandlers = (built: BuiltFunctions) => built.handlers as unknown as Record<FunctionName, Handler>;

export async function measureModel(
  kinds: RequestKind[],
  floorCtx: FloorContext,
  built: BuiltFunctions,
  config: RuntimeConfig,
  dataClients: Clients,
  quick: boolean,
): Promise<ModelPass> {
  // The counters on an embedded DynamoDB of their own: each serves one call at a time, so on one
  // server a request's page read would queue behind its counter write (or the floor's write
  // behind its read), where on DynamoDB the two run at once on different partitions.
  const counters = await startBenchDynamo(config.tableName);
  const counterClient = createDocumentClient({
    ...clientOptionsOf(config),
    endpoint: counters.endpoint,
    maxAttempts: 1,
  });
  try {
    return await measureWith(kinds, floorCtx, built, config, { client: dataClients.client, counterClient }, quick);
  } finally {
    counterClient.destroy();
    await counters.close();
  }
}

async function measureWith(
  kinds: RequestKind[],
  floorCtx: FloorContext,
  built: BuiltFunctions,
  config: RuntimeConfig,
  clients: Clients,
  quick: boolean,
): Promise<ModelPass> {
  const env = { [ENV.tableName]: config.tableName, [ENV.snapshotCacheMs]: String(config.snapshotCacheMs) };
  const cached = buildFunctions(readConfig({ ...env, [ENV.readCacheMb]: '64' }), clients, systemClock);
  const uncached = buildFunctions(readConfig({ ...env, [ENV.readCacheMb]: '0' }), clients, systemClock);

  const modelKinds: ModelKind[] = [];
  for (const kind of kinds.filter((k) => SINGLE_VIEW.has(k.group))) {
    const res = await asHandlers(built)[kind.fn](
      apiEvent(kind.path, { keyId: 'model-floor', perMinute: 1e9, perMonth: 1e9 }),
      {} as Context,
    );
    const spec = await kind.floor(floorCtx, {
      status: res.statusCode,
      body: res.body ? JSON.parse(res.body) : undefined,
    });
    if (spec) modelKinds.push({ name: kind.name, path: kind.path, fn: kind.fn, floor: spec });
  }

  const model = applyLatencyModel([clients.client, clients.counterClient]);
  try {
    const latency = await measureLatencyModel(
      modelKinds,
      {
        model,
        uncached: asHandlers(uncached),
        cached: asHandlers(cached),
        data: floorCtx.data,
        counter: { client: clients.counterClient, tableName: config.tableName },
      },
      quick ? MODEL_RUNS.quick : MODEL_RUNS.full,
    );
    // Popularity: first pages and details first, then filtered lists, deep pages, history last.
    const rank: Record<RequestKind['group'], number> = {
      detail: 0,
      'catalog list': 1,
      'offer list': 1,
      'single filter': 2,
      'filter pair': 3,
      min_apy: 3,
      'combined filters': 4,
      '1.2 filters': 4,
      history: 5,
    };
    const paths = kinds
      .filter((k) => k.expectStatus === 200)
      .sort(
        (a, b) =>
          rank[a.group] - rank[b.group] + ((a.page?.role === 'deep' ? 1 : 0) - (b.page?.role === 'deep' ? 1 : 0)),
      )
      .map((k) => ({ path: k.path, fn: k.fn }));
    const fresh = buildFunctions(readConfig({ ...env, [ENV.readCacheMb]: '64' }), clients, systemClock);
    const mix = await replayMix(
      model,
      paths,
      { off: asHandlers(uncached), on: asHandlers(fresh) },
      quick ? 300 : 3_000,
    );
    const checks: Check[] = latency.map(
      (r): Check => ({
        check: `latency model: ${r.kind} p50 ≤ ${LATENCY_TARGET}× floor (cache off)`,
        pass: r.ratio !== null && r.ratio <= LATENCY_TARGET,
        detail: `×${r.ratio} (request ${r.request_ms.p50} ms, floor ${r.floor_ms.p50} ms; cache on ×${r.cached_ratio})`,
      }),
    );
    // The first request of an instance after a publish loads the version's index.
    const index_loads = await measureIndexLoads(clients.client, config.tableName, model, quick ? 20 : 50);
    checks.push(...indexLoadChecks(index_loads, !quick));
    // The key-free status of version 1.2: the pointer and the refresh times.
    checks.push(
      statusCheck(
        await measureStatus(
          model,
          uncached.deps.stores,
          clients.client,
          config.tableName,
          quick ? MODEL_RUNS.quick : MODEL_RUNS.full,
        ),
      ),
    );
    return { latency, mix, index_loads, checks };
  } finally {
    model.off();
  }
}

/**
 * The read-unit ceilings (docs/performance.md, "Ceilings"): a first page of min_apy with
 * tvl_desc or updated_desc, alone or with filters, reads at most MIN_APY_FIRST_PAGE_RCU; a list
 * with two filters (`platform_type` or `platform` with `asset`), at any offset and with `min_apy`
 * under an APY sort too, reads at most twice the costliest single-filter first page of its family.
 */
export function ceilingChecks(requests: KindResult[]): Check[] {
  const isFirst = (r: KindResult) => !/[?&]offset=[1-9]/.test(r.path);
  const has = (r: KindResult, name: string) => new RegExp(`[?&]${name}=`).test(r.path);
  const minApyOtherSort = (r: KindResult) => has(r, 'min_apy') && /sort=(tvl_desc|updated_desc)/.test(r.path);
  const minApy = requests.filter((r) => minApyOtherSort(r) && isFirst(r));
  const singleFilter = requests.filter((r) => r.group === 'single filter' && isFirst(r) && r.path.includes('/earn'));
  const single = Math.max(0, ...singleFilter.map((r) => r.dynamo.read_capacity));
  const isPair = (r: KindResult) => has(r, 'asset') && has(r, 'platform_type') !== has(r, 'platform');
  const twoFilters = requests.filter((r) => isPair(r) && !minApyOtherSort(r));
  // Issue 21: no request reads more than the largest currency detail did before the index (342.5
  // read units at BENCH), and no list page more than 128 at limit=200, at any offset.
  const pages200 = requests.filter((r) => /[?&]limit=200\b/.test(r.path));
  // A kind with a ceiling of its own (the worst batch history) is held to it instead.
  const bounded = requests.filter((r) => !r.own_ceiling);
  const worst = bounded.reduce((a, b) => (b.dynamo.read_capacity > a.dynamo.read_capacity ? b : a), bounded[0]);
  return [
    ...historyCeilingChecks(requests),
    ...ownCeilingChecks(requests),
    {
      check: `ceiling: every request ≤ ${REQUEST_RCU_CEILING} RCU`,
      pass: worst.dynamo.read_capacity <= REQUEST_RCU_CEILING,
      detail: `max ${worst.dynamo.read_capacity} RCU (${worst.kind})`,
    },
    ...pages200.map((r) => ({
      check: `ceiling: ${r.kind} ≤ ${PAGE_200_RCU_CEILING} RCU`,
      pass: r.dynamo.read_capacity <= PAGE_200_RCU_CEILING,
      detail: `${r.dynamo.read_capacity} RCU`,
    })),
    ...minApy.map((r) => ({
      check: `ceiling: ${r.kind} ≤ ${MIN_APY_FIRST_PAGE_RCU} RCU`,
      pass: r.dynamo.read_capacity <= MIN_APY_FIRST_PAGE_RCU,
      detail: `${r.dynamo.read_capacity} RCU`,
    })),
    ...twoFilters.map((r) => ({
      check: `ceiling: ${r.kind} ≤ 2× a single-filter earn page`,
      pass: r.dynamo.read_capacity <= 2 * single,
      detail: `${r.dynamo.read_capacity} RCU vs 2 × ${single}`,
    })),
  ];
}

/**
 * A request's time under the latency model when DynamoDB serves its parallel calls at once: its
 * own code (p99 of the request less p50 of its calls replayed on the embedded DynamoDB, which
 * serves them one after the other) plus one call at the model's p99 with the read units of the
 * largest of them (the request's units shared among its calls, the costliest taken as twice the mean).
 */
function modelledMs(r: KindResult): number {
  const code = Math.max(0, (r.latency_ms.p99 ?? 0) - (r.dynamo_only_ms.p50 ?? 0));
  const perCall = (2 * r.dynamo.read_capacity) / Math.max(1, r.dynamo.calls - 1);
  return round(code + LATENCY_MODEL.single.p99Ms + (perCall / 0.5) * LATENCY_MODEL.queryMsPerReadUnit) ?? 0;
}

/** The kinds with ceilings of their own: read units, and milliseconds under the latency model. */
function ownCeilingChecks(requests: KindResult[]): Check[] {
  return requests.flatMap((r) =>
    r.own_ceiling
      ? [
          {
            check: `ceiling: ${r.kind} ≤ ${r.own_ceiling.readUnits} RCU and ≤ ${r.own_ceiling.modelledMs} ms under the latency model`,
            pass: r.dynamo.read_capacity <= r.own_ceiling.readUnits && modelledMs(r) <= r.own_ceiling.modelledMs,
            detail: `${r.dynamo.read_capacity} RCU, ${modelledMs(r)} ms (code p99 ${r.latency_ms.p99} ms less its calls ${r.dynamo_only_ms.p50} ms, plus the largest Query)`,
          },
        ]
      : [],
  );
}

/**
 * History (issue 29): a custom window reads no more than the period of its interval and length, a
 * request of several offers no more than that many single windows, and no single-offer window more
 * than HISTORY_WINDOW_RCU_CEILING.
 */
function historyCeilingChecks(requests: KindResult[]): Check[] {
  const byName = new Map(requests.map((r) => [r.kind, r]));
  const relative = requests.flatMap((r) => {
    const base = r.read_ceiling && byName.get(r.read_ceiling.kind);
    if (!r.read_ceiling || !base) return [];
    const limit = r.read_ceiling.times * base.dynamo.read_capacity;
    return [
      {
        check: `ceiling: ${r.kind} ≤ ${r.read_ceiling.times === 1 ? '' : `${r.read_ceiling.times} × `}${base.kind}`,
        pass: r.dynamo.read_capacity <= limit,
        detail: `${r.dynamo.read_capacity} RCU vs ${limit}`,
      },
    ];
  });
  const single = requests.filter((r) => r.group === 'history' && /\/\d+\/history/.test(r.path));
  const worst = single.reduce((a, b) => (b.dynamo.read_capacity > a.dynamo.read_capacity ? b : a), single[0]);
  return [
    ...relative,
    ...(worst
      ? [
          {
            check: `ceiling: every single-offer history window ≤ ${HISTORY_WINDOW_RCU_CEILING} RCU`,
            pass: worst.dynamo.read_capacity <= HISTORY_WINDOW_RCU_CEILING,
            detail: `max ${worst.dynamo.read_capacity} RCU (${worst.kind})`,
          },
        ]
      : []),
  ];
}

export function modelTables(pass: ModelPass): string {
  const lines = [
    `latency model (every DynamoDB call: log-normal, median ${LATENCY_MODEL.single.medianMs} ms, p99 ${LATENCY_MODEL.single.p99Ms} ms; conditional writes ${LATENCY_MODEL.conditionalWrite.medianMs}/${LATENCY_MODEL.conditionalWrite.p99Ms} ms; Query +${LATENCY_MODEL.queryMsPerReadUnit} ms per read unit; ${LATENCY_MODEL.source})`,
    '| kind | request p50/p99 (cache off) | cache on p50/p99 | floor p50/p99 | ×floor | ×floor (cache on) |',
    '|---|---|---|---|---|---|',
    ...pass.latency.map(
      (r) =>
        `| ${r.kind} | ${r.request_ms.p50}/${r.request_ms.p99} | ${r.cached_ms.p50}/${r.cached_ms.p99} | ${r.floor_ms.p50}/${r.floor_ms.p99} | ${r.ratio} | ${r.cached_ratio} |`,
    ),
    '',
    'traffic mix (Zipf s = 1.1 over the request kinds, first pages and details most popular; latency model on)',
    '| cache | requests | distinct paths | read units / request | cache hit rate | p50 ms | p99 ms |',
    '|---|---|---|---|---|---|---|',
    ...pass.mix.map(
      (m) =>
        `| ${m.cache} | ${m.requests} | ${m.distinct_paths} | ${m.read_units_per_request} | ${m.cache_hit_rate ?? '–'} | ${m.latency_ms.p50} | ${m.latency_ms.p99} |`,
    ),
  ];
  lines.push('', indexLoadTable(pass.index_loads));
  return lines.join('\n');
}
