/**
 * What a warm instance of each API function reloads (docs/performance.md, "Index memory"): a fresh
 * instance per function, built with the function's default memory (lib/config.ts) and so its
 * index budget (shared/data/index-store.ts `indexBudget`), answers every request kind of that
 * function once, then each again. The second pass names the same versions: it must load no
 * index (`indexLoads` of the request accounting). The heap the instance keeps (what dropping it
 * frees after full collections, block cache off: the indexes and the instance's small state) and
 * the budget's estimate of the kept indexes are compared with the served budget.
 */
import type { Context } from 'aws-lambda';
import { resolveStageConfig } from '../../lib/config';
import { apiEvent } from '../../local/events';
import { buildFunctions } from '../../local/functions';
import { indexBudget } from '../../shared/data/index-store';
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import type { FunctionName } from '../../shared/http/routes';
import { systemClock } from '../../shared/platform/clock';
import { ENV, type RuntimeConfig, readConfig } from '../../shared/platform/config';
import { withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import type { Clients } from '../../shared/platform/dynamodb';
import { settledHeap } from './index-heap';
import type { RequestKind } from './requests';
import { round } from './stats';

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

export interface WarmLoads {
  fn: FunctionName;
  /** The function's default memory (lib/config.ts) and the served index budget it gives, MB. */
  memory_mb: number;
  budget_mb: number;
  requests: number;
  /** Index loads of the first pass (one per version the function reads) and of the second (0). */
  first_pass_loads: number;
  second_pass_loads: number;
  /** What the budget counts for the kept indexes, and the heap the instance keeps (what dropping it frees), MB. */
  estimate_mb: number;
  heap_mb: number;
}

const MB = 2 ** 20;

/** One function's instance after its two passes: what they loaded, and what the instance keeps. */
interface Passes {
  first: number;
  second: number;
  estimateBytes: number;
  /** The instance, held here only: dropping it frees what it keeps. */
  instance?: unknown;
}

async function twoPasses(
  fn: FunctionName,
  paths: readonly string[],
  memoryMb: number,
  config: RuntimeConfig,
  clients: Clients,
): Promise<Passes> {
  const instance = buildFunctions(
    readConfig({
      [ENV.tableName]: config.tableName,
      [ENV.snapshotCacheMs]: String(config.snapshotCacheMs),
      [ENV.readCacheMb]: '0',
      [ENV.memoryMb]: String(memoryMb),
    }),
    clients,
    systemClock,
  );
  const handler = (instance.handlers as unknown as Record<FunctionName, Handler>)[fn];
  const pass = async () => {
    let loads = 0;
    for (const path of paths) {
      const { accounting } = await withRequestAccounting(() =>
        handler(apiEvent(path, { keyId: 'warm-loads', perMinute: 1e9, perMonth: 1e9 }), {} as Context),
      );
      loads += accounting.summary().indexLoads;
    }
    return loads;
  };
  const first = await pass();
  const second = await pass();
  return { first, second, estimateBytes: instance.deps.stores.indexes.keptBytes.servedBytes, instance };
}

export async function measureWarmLoads(
  kinds: readonly Pick<RequestKind, 'fn' | 'path'>[],
  config: RuntimeConfig,
  clients: Clients,
): Promise<WarmLoads[]> {
  const memory = resolveStageConfig('dev').memorySizes;
  const results: WarmLoads[] = [];
  for (const fn of [...new Set(kinds.map((k) => k.fn))]) {
    const paths = kinds.filter((k) => k.fn === fn).map((k) => k.path);
    const passes = await twoPasses(fn, paths, memory[fn], config, clients);
    // What the instance keeps: the heap its dropping frees (the code it ran stays either way).
    const withInstance = await settledHeap();
    passes.instance = undefined;
    const heap = withInstance - (await settledHeap());
    results.push({
      fn,
      memory_mb: memory[fn],
      budget_mb: indexBudget(memory[fn]).servedBytes / MB,
      requests: paths.length,
      first_pass_loads: passes.first,
      second_pass_loads: passes.second,
      estimate_mb: round(passes.estimateBytes / MB, 1) ?? 0,
      heap_mb: round(heap / MB, 1) ?? 0,
    });
  }
  return results;
}

/** Checks in the shape of tools/bench/report.ts (not imported: report.ts prints these results). */
export function warmLoadChecks(results: readonly WarmLoads[]): { check: string; pass: boolean; detail: string }[] {
  return results.flatMap((r) => [
    {
      check: `warm instance (${r.fn}): no index load on the second request of the same version`,
      pass: r.second_pass_loads === 0,
      detail: `${r.second_pass_loads} load(s) over ${r.requests} requests (first pass: ${r.first_pass_loads})`,
    },
    {
      check: `index heap (${r.fn}): every index it serves within its budget at ${r.memory_mb} MB`,
      pass: Math.max(r.heap_mb, r.estimate_mb) <= r.budget_mb,
      detail: `heap ${r.heap_mb} MB, estimate ${r.estimate_mb} MB, budget ${r.budget_mb} MB`,
    },
  ]);
}

export function warmLoadTable(results: readonly WarmLoads[]): string {
  return [
    'warm instances (a fresh instance per function at its default memory, block cache off: every request kind of the function twice; index loads counted per pass; heap after a full GC)',
    '| function | memory MB | served index budget MB | requests | index loads, 1st pass | 2nd pass | estimate MB | heap MB |',
    '|---|---|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.fn} | ${r.memory_mb} | ${r.budget_mb} | ${r.requests} | ${r.first_pass_loads} | ${r.second_pass_loads} | ${r.estimate_mb} | ${r.heap_mb} |`,
    ),
  ].join('\n');
}
