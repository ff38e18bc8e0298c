/**
 * The heap every family's served index takes in one instance, every structure requests build on
 * it built (the facts, and in each sort mode the ranks and the asset lists), measured in a process
 * of its own: nothing else of the bench (its dataset, earlier cases' code and connections) is in
 * that heap or moves it. The process reads the table like an instance does, loads and builds
 * every index, then drops them: the heap that frees, after full collections, is the indexes'.
 * Also what the instance's budget counts for them (family-index.ts `heapBytes`).
 *
 *   node --import tsx tools/bench/index-heap.ts <endpoint> <table-name>   prints {"heap_mb":…,"estimate_mb":…}
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type FamilyIndex, OfferIndex } from '../../shared/data/family-index';
import { IndexStore } from '../../shared/data/index-store';
import { VERSIONED_FAMILIES } from '../../shared/data/keys';
import { PointerStore } from '../../shared/data/pointer-store';
import { servedVersions } from '../../shared/data/snapshot-store';
import { createDocumentClient } from '../../shared/platform/dynamodb';
import { round } from './stats';

export interface IndexHeap {
  /** Heap (and typed-array storage) of every family's served index, every structure built, MB. */
  heap_mb: number;
  /** What the instance's index budget counts for them, MB. */
  estimate_mb: number;
}

/** A full GC, so that the heap measured is what is kept. */
function collect(): void {
  setFlagsFromString('--expose_gc');
  (runInNewContext('gc') as () => void)();
}

/** The heap in use, typed-array storage included. */
function heapInUse(): number {
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.arrayBuffers;
}

/**
 * The heap in use once full collections stop shrinking it: the backing stores of freed buffers
 * (the segments read) are released after a collection, not by it.
 */
export async function settledHeap(): Promise<number> {
  let last = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 10; round++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = heapInUse();
    if (now >= last) return now;
    last = now;
  }
  return last;
}

/** The heap of the indexes the table serves, measured in a process of its own (this file's `main`). */
export async function indexHeapOf(client: DynamoDBDocumentClient, tableName: string): Promise<IndexHeap> {
  const url = await client.config.endpoint?.();
  if (!url) throw new Error('the index heap is measured against an endpoint');
  const endpoint = `${url.protocol}//${url.hostname}:${url.port}${url.path}`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', resolve(__dirname, 'index-heap.ts'), endpoint, tableName],
    { cwd: resolve(__dirname, '../..'), env: { ...process.env, NODE_NO_WARNINGS: '1' } },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as IndexHeap;
}

async function measure(endpoint: string, tableName: string): Promise<IndexHeap> {
  const client = createDocumentClient({ endpoint, maxAttempts: 10, requestTimeoutMs: 30_000 });
  const { served } = servedVersions(
    (await new PointerStore(client, tableName).served()) ?? { families: {}, retired: [] },
  );
  // The indexes are held only by `held`, filled by a function whose frame has ended: dropping them
  // from it frees exactly what they keep.
  const held: { kept?: FamilyIndex[] } = {};
  await loadAndBuild(client, tableName, served, held);
  const withIndexes = await settledHeap();
  const estimate = (held.kept ?? []).reduce((sum, index) => sum + index.heapBytes, 0) / 2 ** 20;
  held.kept = undefined;
  const heap = (withIndexes - (await settledHeap())) / 2 ** 20;
  return { heap_mb: round(heap, 1) ?? 0, estimate_mb: round(estimate, 1) ?? 0 };
}

/** Every served index, with every structure requests build on it (into `held.kept`). */
async function loadAndBuild(
  client: DynamoDBDocumentClient,
  tableName: string,
  served: ReturnType<typeof servedVersions>['served'],
  held: { kept?: FamilyIndex[] },
): Promise<void> {
  const store = new IndexStore(client, tableName);
  const kept = await Promise.all(
    VERSIONED_FAMILIES.flatMap((family) =>
      served[family] ? [store.served(family, served[family].version, served[family])] : [],
    ),
  );
  if (kept.length === 0) throw new Error('no index loaded');
  // What requests build on first use: the facts of each offer index, and in every sort mode the
  // ranks and the asset lists (filtered lists, currency details: an asset's first use builds every asset's).
  for (const index of kept) {
    if (!(index instanceof OfferIndex)) continue;
    // Every fact column, the filtered figures' included (built on a filter's first read).
    Object.values(index.facts());
    const asset = index.data.asset.find((slug) => slug !== null);
    for (const mode of Object.keys(index.data.orders)) {
      index.rank(mode);
      if (asset) index.ofAsset(asset, mode);
    }
  }
  held.kept = kept;
}

if (require.main === module) {
  const [endpoint, tableName] = process.argv.slice(2);
  measure(endpoint, tableName).then(
    (heap) => process.stdout.write(`${JSON.stringify(heap)}\n`),
    (error: unknown) => {
      process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
