/**
 * The cost of a request against its floor (docs/performance.md): the bench's modes, run by
 * scripts/bench.ts.
 *
 *   npm run bench               full: the BENCH dataset, writes bench/results.json and bench/results.md
 *   npm run bench -- --quick    CI's guard: QUICK_BENCH, what does not depend on the machine's load (each
 *                               request kind's DynamoDB work and read units against its ceiling, the import
 *                               cases' write units, bundle bytes, index loads); no latency, init or
 *                               throughput. Writes bench/results-quick.*
 *   npm run bench -- --out P    write P.json and P.md instead
 *   npm run bench -- --imports [--quick]   only what imports cost (the refresh cases against bench/baseline-writes.json)
 *   npm run bench -- --imports [--quick] --write-baseline   the same, recorded as the baseline (the design before issue 21 only)
 *   npm run bench -- --imports --refreshes   only the refreshes (a) to (d) (a few minutes at BENCH), their rows replaced in the results
 *   npm run bench -- --model    only the latency model and the traffic mix (prints; writes nothing)
 *   npm run bench -- --model --only TEXT   the same for the request kinds whose name contains TEXT
 *   npm run bench -- --against REF   only the cold start of a git commit's functions against now
 *   npm run bench -- --webhooks [--quick]   only what webhooks cost (tools/bench/webhooks.ts): matching 10,000
 *                               subscriptions (1,000 quick), the writes of a publish, publish → first POST; writes
 *                               its section into bench/results.* (bench/results-quick.* with --quick)
 *   npm run bench -- --scale N  only the service at 1× and N× BENCH's offers (scripts/bench/scale.ts); writes its
 *                               section into bench/results.json and bench/results.md (the committed full run);
 *                               with --quick, QUICK_BENCH's offers and bench/results-quick.*
 *
 * Generates the dataset, loads it into an embedded DynamoDB with the real import, then measures
 * every request kind through the real handlers (DynamoDB work from the accounting middleware,
 * latency against the floor read), the functions' bundles and module initialisation, and the
 * local stack's throughput on one hot endpoint (the quick run: the work, units and bytes alone). Prints the goals as PASS/FAIL checks; exits 0
 * unless it crashes, or unless ENFORCE_WRITE_TARGETS (scripts/bench/report.ts) is on and a refresh
 * misses its write-unit target.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { buildFunctions } from '../../local/functions';
import type { CatalogFamily, OfferFamily } from '../../shared/data/keys';
import { bucketStart, MAX_HISTORY_IDS, SERIES } from '../../shared/domain/buckets';
import { MAX_BATCH_BUCKETS } from '../../shared/domain/history';
import type { FunctionName } from '../../shared/http/routes';
import { importDataset } from '../../shared/import/importer';
import { systemClock } from '../../shared/platform/clock';
import { createClients } from '../../shared/platform/dynamodb';
import { setLogSink } from '../../shared/platform/logger';
import { BENCH, generateDataset, QUICK_BENCH } from '../sample-data/generate';
import { BASELINE, compareColdStart, measureBundles, measureColdStart } from './cold-start';
import { writeDenseHistory } from './dense-history';
import { depthCheck, readCapacityAtDepth } from './depth';
import { ServedData, type ViewFilter } from './floor';
import { type BaselineDataset, importsTable, measureImports, refreshed, writeBaseline } from './imports';
import { type IndexLoads, indexLoadChecks, indexLoadTable, measureIndexLoads } from './index-load';
import { cpuSamples, lambdaMemory, lambdaMemoryTable, measureAuthorizer } from './lambda-memory';
import { applyLatencyModel } from './latency-model';
import { benchConfig, loadDataset, startBenchDynamo } from './load';
import { CallRecorder, type Handler, type KindResult, type MeasureOptions, measureKind } from './measure';
import { ceilingChecks, measureModel, modelTables } from './model-pass';
import { pickRequests } from './picks';
import { measureRefusals, refusalLines } from './refusals';
import {
  type BenchResults,
  type Check,
  checksTable,
  ENFORCE_WRITE_TARGETS,
  evaluate,
  markdown,
  requestsTable,
  writeTargetChecks,
} from './report';
import { requestMix } from './requests';
import {
  fivePercentRefreshes,
  measureFirstAfterPublish,
  measureScale,
  publishChecks,
  publishKinds,
  scaleTable,
} from './scale';
import { measureThroughput } from './throughput';
import { measureWarmLoads, warmLoadChecks, warmLoadTable } from './warm-loads';
import { measureWebhooks, type WebhookBenchOptions, webhookChecks, webhooksTable } from './webhooks';

interface Mode {
  name: 'quick' | 'full';
  preset: typeof BENCH;
  /** Latency, init and throughput measured (the full run); without, the quick run's counts alone. */
  latency: boolean;
  measure: MeasureOptions;
  initRounds: number;
  throughputMs: number;
  concurrency: number;
  out: string;
}

const MODES: Record<'quick' | 'full', Omit<Mode, 'out'>> = {
  quick: {
    name: 'quick',
    preset: QUICK_BENCH,
    latency: false,
    // Two runs: the work and units are the same in each (RT is the max over them); the own CPU is the
    // lower of the two (the worst batch's 201 calls a run are as many as dynalite bears beside the tests).
    measure: { runs: 2, budgetMs: 0, minRuns: 2, warmup: 0 },
    initRounds: 7,
    throughputMs: 5_000,
    concurrency: 16,
  },
  full: {
    name: 'full',
    preset: BENCH,
    latency: true,
    measure: { runs: 200, budgetMs: 12_000, minRuns: 5, warmup: 10 },
    initRounds: 21,
    throughputMs: 20_000,
    concurrency: 16,
  },
};

type Args = Mode & {
  importsOnly: boolean;
  webhooksOnly: boolean;
  refreshesOnly: boolean;
  writeBaseline: boolean;
  modelOnly: boolean;
  only?: string;
  against?: string;
  scale?: number;
};

function parseArgs(argv: string[]): Args {
  let quick = false;
  let importsOnly = false;
  let webhooksOnly = false;
  let refreshesOnly = false;
  let writeBaseline = false;
  let modelOnly = false;
  let only: string | undefined;
  let against: string | undefined;
  let out: string | undefined;
  let scale: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--quick') quick = true;
    else if (argv[i] === '--imports') importsOnly = true;
    else if (argv[i] === '--webhooks') webhooksOnly = true;
    else if (argv[i] === '--refreshes') refreshesOnly = true;
    else if (argv[i] === '--write-baseline') writeBaseline = true;
    else if (argv[i] === '--model') modelOnly = true;
    else if (argv[i] === '--only' && argv[i + 1]) only = argv[++i];
    else if (argv[i] === '--against' && argv[i + 1]) against = argv[++i];
    else if (argv[i] === '--out' && argv[i + 1]) out = argv[++i];
    else if (argv[i] === '--scale' && Number(argv[i + 1]) > 1) scale = Number(argv[++i]);
    else
      throw new Error(
        `unknown argument ${argv[i]}; usage: npm run bench -- [--quick] [--imports [--refreshes | --write-baseline] | --webhooks | --model [--only TEXT] | --against REF | --scale N (> 1)] [--out PREFIX]`,
      );
  }
  if ((writeBaseline || refreshesOnly) && !importsOnly)
    throw new Error('--write-baseline and --refreshes go with --imports');
  if (writeBaseline && refreshesOnly) throw new Error('--write-baseline records every case: not with --refreshes');
  const mode = MODES[quick ? 'quick' : 'full'];
  return {
    ...mode,
    importsOnly,
    webhooksOnly,
    refreshesOnly,
    writeBaseline,
    modelOnly,
    only,
    against,
    scale,
    out: resolve(out ?? `bench/${quick ? 'results-quick' : 'results'}`),
  };
}

/** What the webhooks section measures at each mode's scale (issue 42: 10,000 subscriptions at BENCH). */
const WEBHOOK_COUNTS: Record<Mode['name'], Pick<WebhookBenchOptions, 'subscriptions' | 'loopback' | 'publishes'>> = {
  quick: { subscriptions: 1_000, loopback: 5, publishes: 3 },
  full: { subscriptions: 10_000, loopback: 20, publishes: 10 },
};
const presetName = (mode: Mode) => (mode.name === 'quick' ? 'QUICK_BENCH' : 'BENCH');
const isWebhookCheck = (check: Check) => check.check.startsWith('webhooks:');

/** The baseline a mode's dataset is checked against (bench/baseline-writes.json). */
const baselineOf = (mode: Mode): BaselineDataset => (mode.name === 'quick' ? 'quick' : 'bench');

/** Exit status: 1 when the write-unit targets are enforced and one is missed. */
const exitStatus = (writeTargets: Check[]) => (ENFORCE_WRITE_TARGETS && writeTargets.some((c) => !c.pass) ? 1 : 0);

/** `--imports`: only what imports cost, at the mode's scale (a quarter of an hour at BENCH scale). */
/** When a section of `npm run bench` was measured by a mode of its own. */
const runNote = (started: number, loadAtStart: number) => ({
  generated_at: systemClock().toISOString(),
  runtime_s: Number(seconds(started)),
  load_average_1m: { start: Number(loadAtStart.toFixed(2)), end: Number(loadavg()[0].toFixed(2)) },
});

/** A section measured alone goes into the run's results (`--out`: bench/results), which are rendered again. */
function updateResults(out: string, update: (results: BenchResults) => void): void {
  const file = `${out}.json`;
  if (!existsSync(file)) {
    log(`${file} does not exist: run the whole bench first to keep this section`);
    return;
  }
  const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  update(results);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${out}.md`, markdown(results));
  log(`wrote the section into ${file} and ${out}.md`);
}

async function importsOnly(mode: Args): Promise<number> {
  const started = performance.now();
  const loadAtStart = loadavg()[0];
  const dataset = generateDataset({
    ...mode.preset,
    now: new Date(Math.floor(systemClock().getTime() / 3_600_000) * 3_600_000),
  });
  log(`bench imports (${mode.name}): generated in ${seconds(started)} s`);
  const dynamo = await startBenchDynamo('market-data-bench');
  try {
    const measuredCases = await measureImports(
      dataset,
      dynamo.endpoint,
      { quick: mode.name === 'quick', refreshesOnly: mode.refreshesOnly },
      log,
    );
    // With --refreshes, the checks of the cases measured (those of (e) stay as their run left them).
    const checks = writeTargetChecks(measuredCases, baselineOf(mode)).filter(
      (c) => !mode.refreshesOnly || measuredCases.some((m) => c.check.startsWith(`import (${m.id})`)),
    );
    process.stdout.write(
      `imports (${mode.name}, ${seconds(started)} s):\n\n${importsTable(measuredCases)}\n\n${checksTable(checks)}\n`,
    );
    // The cases replace those of the run's results, with the checks on them, said as their own run
    // (with --refreshes, the rows (a) to (d) only: the others stay as their run measured them).
    updateResults(mode.out, (results) => {
      const targets = new Set(writeTargetChecks(results.imports ?? [], baselineOf(mode)).map((c) => c.check));
      const ids = new Set(measuredCases.map((c) => c.id));
      const kept = mode.refreshesOnly ? (results.imports ?? []).filter((c) => !c.id || !ids.has(c.id)) : [];
      results.imports = [...measuredCases, ...kept];
      results.imports_run = runNote(started, loadAtStart);
      results.checks = [...results.checks.filter((c) => !targets.has(c.check)), ...checks];
    });
    const imports = measuredCases;
    if (mode.writeBaseline) {
      const git = (...args: string[]) =>
        execFileSync('git', args, { cwd: resolve(__dirname, '../..'), encoding: 'utf8' }).trim();
      writeBaseline(
        imports,
        baselineOf(mode),
        {
          commit: git('rev-parse', 'HEAD'),
          sharedCommit: git('log', '-1', '--format=%H', '--', 'shared'),
          dirty: git('status', '--porcelain', '--', 'shared', 'scripts') !== '',
        },
        `npm run bench -- --imports${mode.name === 'quick' ? ' --quick' : ''} --write-baseline`,
      );
      process.stdout.write(`wrote the ${baselineOf(mode)} baseline to bench/baseline-writes.json\n`);
    }
    return exitStatus(checks);
  } finally {
    await dynamo.close();
  }
}

/**
 * `--webhooks`: what webhooks cost, on a table of the mode's catalog and offers (no history), its
 * section written into the run's results (`--out`), which are rendered again.
 */
async function webhooksOnly(mode: Args): Promise<number> {
  const started = performance.now();
  const loadAtStart = loadavg()[0];
  setLogSink((line) => {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry.level === 'error' || entry.level === 'warn') log(line);
  });
  const {
    earn_history: _e,
    borrow_history: _b,
    ...dataset
  } = generateDataset({
    ...mode.preset,
    now: new Date(Math.floor(systemClock().getTime() / 3_600_000) * 3_600_000),
  });
  const tableName = 'market-data-bench-webhooks';
  const dynamo = await startBenchDynamo(tableName);
  const { client } = createClients(benchConfig(tableName, dynamo.endpoint));
  try {
    const imported = await loadDataset(dataset, client, tableName);
    log(`bench webhooks (${mode.name}): imported ${imported.items} items in ${seconds(started)} s`);
    const webhooks = await measureWebhooks(
      {
        dataset: presetName(mode),
        endpoint: dynamo.endpoint,
        tableName,
        offers: dataset.earn_offers,
        ...WEBHOOK_COUNTS[mode.name],
      },
      log,
    );
    const checks = webhookChecks(webhooks, mode.latency);
    process.stdout.write(`\n${webhooksTable(webhooks)}\n\n${checksTable(checks)}\n`);
    updateResults(mode.out, (results) => {
      results.webhooks = { ...webhooks, ...runNote(started, loadAtStart) };
      results.checks = [...results.checks.filter((c) => !isWebhookCheck(c)), ...checks];
    });
    return 0;
  } finally {
    client.destroy();
    await dynamo.close();
  }
}

/**
 * `--scale N`: the service at 1× and N× BENCH's offers, its section written into the committed full
 * run's results (`--out` names another), which are rendered again.
 */
async function scaleOnly(mode: Args & { scale: number }): Promise<number> {
  const started = performance.now();
  const loadAtStart = loadavg()[0];
  // The handlers' metrics lines are not part of this report; their errors are.
  setLogSink((line) => {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry.level === 'error' || entry.level === 'warn') log(line);
  });
  const measured = await measureScale(
    mode.name === 'quick' ? 'QUICK_BENCH' : 'BENCH',
    mode.preset,
    mode.scale,
    // Runs of the first request after a publish: each publishes a 5 % refresh (15 imports a factor).
    15,
    log,
  );
  process.stdout.write(`\n${scaleTable(measured)}\n`);
  updateResults(mode.out, (results) => {
    results.scale = { ...measured, ...runNote(started, loadAtStart) };
  });
  return 0;
}

/** The quick run's index loads: each family's segments and read units, over a few loads under the latency model. */
async function quickIndexLoads(client: DynamoDBDocumentClient, tableName: string): Promise<IndexLoads> {
  const model = applyLatencyModel([client]);
  try {
    return await measureIndexLoads(client, tableName, model, 5);
  } finally {
    model.off();
  }
}

const log = (message: string) => process.stderr.write(`${message}\n`);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

/** The bench (`npm run bench`, scripts/bench.ts): its exit status. */
export async function runBench(argv: string[]): Promise<number> {
  const mode = parseArgs(argv);
  if (mode.importsOnly) return importsOnly(mode);
  if (mode.webhooksOnly) return webhooksOnly(mode);
  if (mode.scale !== undefined) return scaleOnly({ ...mode, scale: mode.scale });
  if (mode.against) {
    process.stdout.write(`${await compareColdStart(mode.against, mode.initRounds)}\n`);
    return 0;
  }
  const started = performance.now();
  // Other work on the machine skews every latency here; the load average says how much there was.
  const loadAtStart = loadavg()[0];
  log(`bench (${mode.name})`);

  // Cold start first, while the machine is otherwise idle (not with --model; the quick run: bundle bytes only).
  const cold = mode.modelOnly || !mode.latency ? undefined : await measureColdStart(mode.initRounds);
  const bundles = mode.modelOnly ? undefined : (cold?.bundles ?? (await measureBundles()));
  if (cold) {
    log(
      `cold start: ${Object.entries(cold.init_ms)
        .map(([n, i]) => `${n} ${i.median} ms`)
        .join(', ')} (${seconds(started)} s)`,
    );
    log(
      `first answer: ${Object.entries(cold.first_answer_ms)
        .map(([n, f]) => `${n} ${f.median} ms`)
        .join(', ')}`,
    );
  }

  const now = new Date(Math.floor(systemClock().getTime() / 3_600_000) * 3_600_000);
  let dataset: ReturnType<typeof generateDataset> | undefined = generateDataset({ ...mode.preset, now });
  const datasetCounts = Object.fromEntries(Object.entries(dataset).map(([k, v]) => [k, v.length]));
  const historyPoints = [...dataset.earn_history, ...dataset.borrow_history].reduce((n, s) => n + s.points.length, 0);
  log(`generated ${JSON.stringify(datasetCounts)}, ${historyPoints} history points (${seconds(started)} s)`);

  const tableName = 'market-data-bench';
  const dynamo = await startBenchDynamo(tableName);
  const config = benchConfig(tableName, dynamo.endpoint);
  const clients = createClients(config);
  const { client, counterClient } = clients;

  // The handlers' log lines: EMF metrics are counted (and checked against the accounting), errors shown.
  const emfCalls = { total: 0 };
  setLogSink((line) => {
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry._aws) emfCalls.total += Number(entry.DynamoCalls);
    else if (entry.level === 'error' || entry.level === 'warn') log(line);
  });

  try {
    let lastReported = 0;
    const imported = await loadDataset(dataset, client, tableName, (done, total) => {
      if (done - lastReported >= total / 10 || done === total) {
        lastReported = done;
        log(`  import ${done}/${total} (${seconds(started)} s)`);
      }
    });
    log(`import: ${imported.items} items in ${(imported.ms / 1000).toFixed(1)} s via ${imported.method}`);

    const data = new ServedData(client, tableName);
    const sizes = (family: CatalogFamily | OfferFamily, filters?: ViewFilter[]) => data.size(family, filters);
    const picks = await pickRequests(dataset, data, now);
    // The worst batch history the rule allows (CONTRACT §12), its items at their largest.
    const to = bucketStart('1w', now.getTime());
    const weeks = MAX_BATCH_BUCKETS / MAX_HISTORY_IDS;
    const batch = {
      family: 'earn',
      ids: picks.denseBatchIds,
      interval: '1w',
      from: to - (weeks - 1) * SERIES['1w'].bucketMs,
      to,
    } as const;
    // Every bucket corrected by import 1, which has published and settled them (the items of ended spans).
    const items = await writeDenseHistory(client, tableName, batch, 1, now.getTime());
    log(`worst batch: ${items} history items (${seconds(started)} s)`);
    picks.denseBatch = batch;
    // Version 1.2's kinds read replaced versions: refresh earn twice (every offer, then 5 %).
    const earnVersion = async (file: unknown) =>
      (await importDataset(file, { client, tableName, now: systemClock })).versions.earn;
    const refreshAt = (minutes: number) => new Date(now.getTime() + minutes * 60_000).toISOString();
    const full = refreshed(dataset.earn_offers, 1, refreshAt(5), 'bench-1.2-full');
    const five = refreshed(full, 20, refreshAt(10), 'bench-1.2-five');
    picks.earnVersions = [
      imported.versions.earn,
      await earnVersion({ earn_offers: full }),
      await earnVersion({ earn_offers: five }),
    ];
    if (!mode.modelOnly) log(`imports: (a) to (d) on their own tables (${seconds(started)} s)`);
    const imports = mode.modelOnly
      ? undefined
      : await measureImports(dataset, dynamo.endpoint, { quick: mode.name === 'quick' }, log);
    dataset = undefined; // let the collector have it before the measurements
    const kinds = await requestMix(picks, sizes, mode.name === 'quick');

    // The same factories the functions' composition roots call, on this run's clients.
    const built = buildFunctions(config, clients, systemClock);
    const handlers: Record<FunctionName, Handler> = built.handlers;
    const { authorizer, keyStore } = built;

    if (!bundles || !imports) {
      // --model: the latency model and the mix alone.
      const only = mode.only;
      const chosen = only === undefined ? kinds : kinds.filter((kind) => kind.name.includes(only));
      const model = await measureModel(
        chosen,
        { data, now: systemClock() },
        built,
        config,
        clients,
        mode.name === 'quick',
      );
      process.stdout.write(`\n${modelTables(model)}\n\n${checksTable(model.checks)}\n`);
      return 0;
    }

    const recorder = new CallRecorder();
    const requests: KindResult[] = [];
    for (const [i, kind] of kinds.entries()) {
      const result = await measureKind(
        kind,
        { data, now: systemClock(), handlers, recorder, client, counterClient, emfCalls },
        mode.measure,
        `bench-key-${i}`,
      );
      requests.push(result);
      log(
        `  ${kind.name}: ${result.dynamo.calls} calls, ${result.dynamo.round_trips_max} RT, ${result.dynamo.read_capacity} RCU, p50 ${result.latency_ms.p50} ms` +
          ` (floor ${result.floor?.latency_ms.p50 ?? '–'} ms, ×${result.overhead_ratio ?? '–'}), ${result.runs} runs (${seconds(started)} s)`,
      );
    }

    // The authorizer's own request (an uncached key), as the kinds' above: its CPU and wall time.
    const authorizerRun = await measureAuthorizer(built, mode.name === 'quick' ? 20 : 200);
    log(
      `authorizer: p50 ${authorizerRun.latency_ms.p50} ms, own CPU p50 ${authorizerRun.cpu_ms.p50} ms (${seconds(started)} s)`,
    );

    const refusals = await measureRefusals(handlers.offers);
    log(
      `refusals: ${refusals.sequence.map((c) => `${c.status} (${c.calls} calls, ${c.read_capacity} RCU)`).join(', ')} (${seconds(started)} s)`,
    );

    const load = (keys: number) =>
      measureThroughput({
        keyStore,
        handlers,
        authorizer,
        path: '/api/v1/earn?limit=50',
        concurrency: mode.concurrency,
        keys,
        durationMs: mode.throughputMs,
        dynamoPid: dynamo.pid,
      });
    const throughput = mode.latency
      ? { one_key: await load(1), key_per_client: await load(mode.concurrency) }
      : undefined;
    if (throughput)
      log(
        `throughput: ${throughput.one_key.requests_per_s} req/s with one key, ${throughput.key_per_client.requests_per_s} with a key per client (${seconds(started)} s)`,
      );

    // The deep pages start at 5,000, or as deep as a smaller (quick) dataset allows.
    const deepOffset = Math.min(5_000, Math.max(0, (await sizes('currencies')) - 500));
    const depth = [
      await readCapacityAtDepth(handlers.currencies, '/api/v1/currencies', 0),
      await readCapacityAtDepth(handlers.currencies, '/api/v1/currencies', deepOffset),
    ];
    // Latency as DynamoDB behaves (scripts/bench/latency-model.ts), and a skewed traffic mix; the
    // quick run measures the index loads alone (their read units and segments, a few loads).
    const model = mode.latency
      ? await measureModel(kinds, { data, now: systemClock() }, built, config, clients, false)
      : undefined;
    if (model)
      log(
        `latency model: ${model.latency.length} single-view kinds, mix of ${model.mix[0]?.requests ?? 0} requests (${seconds(started)} s)`,
      );
    const indexLoads = model?.index_loads ?? (await quickIndexLoads(client, tableName));
    // Counts, not times: in both runs.
    const warmLoads = await measureWarmLoads(
      kinds.filter((k) => k.expectStatus === 200),
      config,
      clients,
    );

    // The first request after a publish: counts in both runs (the scale run times it, `--scale`).
    const refreshes = fivePercentRefreshes(dynamo.endpoint, tableName, five);
    const firstAfterPublish = await measureFirstAfterPublish(
      config,
      clients,
      publishKinds(picks.offerIds.earn),
      2,
      false,
      refreshes.publish,
    ).finally(refreshes.close);

    // What webhooks cost: matching at publish, its writes, publish → first POST (counts at both scales).
    const webhooksStarted = performance.now();
    const webhooks = await measureWebhooks(
      {
        dataset: presetName(mode),
        endpoint: dynamo.endpoint,
        tableName,
        offers: five,
        ...WEBHOOK_COUNTS[mode.name],
      },
      log,
    );
    log(`webhooks (${seconds(webhooksStarted)} s)`);

    const memory = lambdaMemory([
      ...cpuSamples(requests, model?.latency),
      {
        kind: 'authorizer: a key not cached',
        fn: 'authorizer',
        base: 'embedded DynamoDB',
        wall_p50_ms: authorizerRun.latency_ms.p50 ?? 0,
        cpu_p50_ms: authorizerRun.cpu_ms.p50 ?? 0,
      },
    ]);

    const writeTargets = writeTargetChecks(imports, baselineOf(mode));
    const checks = [
      depthCheck(depth[0], depth[1]),
      ...evaluate(requests, cold ?? { bundles }, mode.latency),
      ...ceilingChecks(requests),
      ...(model?.checks ?? indexLoadChecks(indexLoads, false)),
      ...warmLoadChecks(warmLoads),
      ...publishChecks(firstAfterPublish),
      ...webhookChecks(webhooks, mode.latency),
      ...writeTargets,
      // ADR 0030: each function at the cheapest size within ×1.2 of its fastest p50 (reported, not enforced).
      ...memory.functions.map((f) => ({
        check: `memory (${f.fn}): the configured size is the table's pick (ADR 0030)`,
        pass: f.configured_mb === f.pick_mb,
        detail: `configured ${f.configured_mb} MB, pick ${f.pick_mb} MB (own CPU p50 ${f.cpu_p50_ms} ms, worst ${f.worst_cpu_p50_ms} ms: ${f.worst_kind})`,
      })),
    ];
    const results: BenchResults = {
      mode: mode.name,
      generated_at: systemClock().toISOString(),
      runtime_s: Number(seconds(started)),
      machine: {
        node: process.version,
        platform: `${process.platform} ${process.arch}`,
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model ?? 'unknown',
        load_average_1m: { start: Number(loadAtStart.toFixed(2)), end: Number(loadavg()[0].toFixed(2)) },
      },
      dataset: { ...datasetCounts, history_points: historyPoints },
      import: imported,
      requests,
      bundles,
      init_ms: cold?.init_ms,
      first_answer_ms: cold?.first_answer_ms,
      init_rounds: cold?.rounds,
      throughput,
      latency_model: model?.latency,
      mix: model?.mix,
      index_loads: indexLoads,
      warm_loads: warmLoads,
      refusals,
      authorizer: authorizerRun,
      lambda_memory: memory,
      imports,
      webhooks,
      checks,
    };
    mkdirSync(dirname(mode.out), { recursive: true });
    writeFileSync(`${mode.out}.json`, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(`${mode.out}.md`, markdown(results));

    process.stdout.write(`\n${requestsTable(requests, mode.latency)}\n\n`);
    process.stdout.write(
      `bundles (KB): ${Object.entries(bundles)
        .map(([n, b]) => `${n} ${(b.bytes / 1024).toFixed(1)} ×${b.ratio_to_baseline}`)
        .join(', ')}; baseline ${BASELINE}\n`,
    );
    if (cold)
      process.stdout.write(
        `init (ms): ${Object.entries(cold.init_ms)
          .map(([n, i]) => `${n} ${i.median} ×${i.ratio_to_baseline}`)
          .join(', ')}\n`,
      );
    for (const [name, t] of Object.entries(throughput ?? {})) {
      process.stdout.write(
        `throughput (${name}): ${t.requests_per_s} req/s on ${t.endpoint}, ${t.concurrency} clients, ${t.keys} key(s) (p50 ${t.latency_ms.p50} ms, p99 ${t.latency_ms.p99} ms)\n`,
      );
    }
    process.stdout.write(
      `\n${model ? modelTables(model) : indexLoadTable(indexLoads)}\n\n${warmLoadTable(warmLoads)}\n`,
    );
    process.stdout.write(`\nmemory and CPU (${mode.name}):\n\n${lambdaMemoryTable(memory)}\n`);
    process.stdout.write(`\nrefused requests:\n${refusalLines(refusals).join('\n')}\n`);
    process.stdout.write(`\nimports:\n\n${importsTable(imports)}\n`);
    process.stdout.write('\n');
    process.stdout.write(`${checksTable(checks)}\n\n`);
    process.stdout.write(`wrote ${mode.out}.json and ${mode.out}.md in ${seconds(started)} s\n`);
    return exitStatus(writeTargets);
  } finally {
    setLogSink((line) => process.stdout.write(`${line}\n`));
    client.destroy();
    counterClient.destroy();
    await dynamo.close();
  }
}
