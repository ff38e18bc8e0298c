/**
 * What loading a family version's index costs an instance (docs/performance.md, "Index memory"):
 * the first request after a publish on a warm instance reads every segment of the new version in
 * parallel and decodes it. Measured under the latency model (each segment read drawn like any
 * read, plus its read units), p50/p99 over fresh loads; its read units; and the heap every
 * family's index takes in one instance (index-heap.ts, in a process of its own).
 */
import { performance } from 'node:perf_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IndexStore } from '../../shared/data/index-store';
import { VERSIONED_FAMILIES, type VersionedFamily } from '../../shared/data/keys';
import { PointerStore } from '../../shared/data/pointer-store';
import { servedVersions } from '../../shared/data/snapshot-store';
import { withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import { indexHeapOf } from './index-heap';
import type { LatencyModel } from './latency-model';
import { type Latency, latencyOf } from './stats';

interface IndexLoad {
  family: VersionedFamily;
  entries: number;
  segments: number;
  read_units: number;
  load_ms: Latency;
}

export interface IndexLoads {
  loads: IndexLoad[];
  /** Heap (and typed-array storage) of every family's served index in one instance, every structure built, MB. */
  heap_mb: number;
  /** What the instance's index budget counts for them (family-index.ts `heapBytes`), MB. */
  estimate_mb: number;
}

/** Targets of issue 21 at BENCH: the earn index loads at p50 ≤ 100 ms, every index of an instance in ≤ 64 MB. */
const INDEX_LOAD_P50_MS = 100;
const INDEX_HEAP_MB = 64;

export async function measureIndexLoads(
  client: DynamoDBDocumentClient,
  tableName: string,
  model: LatencyModel,
  runs: number,
): Promise<IndexLoads> {
  const { served } = servedVersions(
    (await new PointerStore(client, tableName).served()) ?? { families: {}, retired: [] },
  );
  const loads: IndexLoad[] = [];
  for (const [f, family] of VERSIONED_FAMILIES.entries()) {
    const version = served[family];
    if (!version) continue;
    const times: number[] = [];
    let readUnits = 0;
    let entries = 0;
    for (let r = 0; r < runs; r++) {
      model.begin(2_000_000_000 + f * 10_000 + r);
      const store = new IndexStore(client, tableName);
      const start = performance.now();
      const { result, accounting } = await withRequestAccounting(() => store.served(family, version.version, version));
      times.push(performance.now() - start);
      readUnits = accounting.summary().readCapacity;
      entries = result.size;
    }
    loads.push({ family, entries, segments: version.segments, read_units: readUnits, load_ms: latencyOf(times) });
  }
  const { heap_mb, estimate_mb } = await indexHeapOf(client, tableName);
  return { loads, heap_mb, estimate_mb };
}

/** Checks in the shape of tools/bench/report.ts (not imported: report.ts prints these results). */
export function indexLoadChecks(result: IndexLoads, full: boolean): { check: string; pass: boolean; detail: string }[] {
  const earn = result.loads.find((l) => l.family === 'earn');
  const scale = full ? 'BENCH' : 'quick';
  return [
    {
      check: `index load (latency model, ${scale}): earn p50 ≤ ${INDEX_LOAD_P50_MS} ms`,
      pass: earn !== undefined && (earn.load_ms.p50 ?? Infinity) <= INDEX_LOAD_P50_MS,
      detail: earn
        ? `p50 ${earn.load_ms.p50} ms, p99 ${earn.load_ms.p99} ms, ${earn.segments} segment(s), ${earn.read_units} read units, ${earn.entries} offers`
        : 'no earn index',
    },
    {
      check: `index heap (${scale}): every family's index in one instance ≤ ${INDEX_HEAP_MB} MB`,
      pass: result.heap_mb <= INDEX_HEAP_MB,
      detail: `${result.heap_mb} MB`,
    },
  ];
}

export function indexLoadTable(result: IndexLoads): string {
  return [
    `index loads (latency model: every segment read drawn like any read, in parallel; heap of every family's index in one instance, every structure built: ${result.heap_mb} MB, the budget's estimate ${result.estimate_mb} MB)`,
    '| family | entries | segments | read units | load p50 ms | load p99 ms |',
    '|---|---|---|---|---|---|',
    ...result.loads.map(
      (l) => `| ${l.family} | ${l.entries} | ${l.segments} | ${l.read_units} | ${l.load_ms.p50} | ${l.load_ms.p99} |`,
    ),
  ].join('\n');
}
