/**
 * Latency as DynamoDB behaves, and a realistic traffic mix (docs/performance.md, "Latency model").
 *
 * The embedded DynamoDB answers in about a millisecond and serves concurrent calls one after the
 * other; the service answers in single-digit milliseconds and serves them at once. With the model
 * on, every call of a client takes max(the embedded DynamoDB's own time, a time drawn from the
 * in-region distribution below), and concurrent calls wait their drawn times concurrently, so
 * parallel calls overlap as they do on DynamoDB. (The embedded server itself answers one call at a
 * time; the bench gives the counters a server of their own, so a request's counter write and page
 * read are not queued one behind the other: tools/bench/model-pass.ts.)
 *
 * The distribution: AWS's guidance is that atomic operations such as GetItem and PutItem average
 * single-digit milliseconds, while a Query depends on the size of its result set
 * (https://repost.aws/knowledge-center/dynamodb-high-latency, "Why is my DynamoDB latency high").
 * We model a single-item call as log-normal with median 4 ms and p99 12 ms (a conditional write:
 * median 5 ms, p99 15 ms), and a Query or a BatchGetItem as the same plus 0.25 ms for each 4 KB
 * read unit it consumed (a batch of 100 blocks is not one item's read). Draws come from a seeded generator, so runs are comparable.
 *
 * Common random numbers: a call's draw depends on the iteration, its kind (read, conditional
 * write) and its rank among the calls of that kind in the iteration, not on what ran before. The
 * request, its cached twin and its floor run in the same iteration, so the floor's page read and
 * counter write wait exactly as long as the request's first read and first counter write; what
 * the request adds (the service's own code, a counter write that missed its guess) is what the ratio measures,
 * not the luck of separate draws.
 */
import { performance } from 'node:perf_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../local/events';
import { monthWindow } from '../../shared/domain/quota';
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import type { FunctionName } from '../../shared/http/routes';
import { systemClock } from '../../shared/platform/clock';
import { withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import { type FloorSpec, runCounterFloor, type ServedData } from './floor';
import { cpuMsSince, type Latency, latencyOf, median, round } from './stats';

export const LATENCY_MODEL = {
  source: 'https://repost.aws/knowledge-center/dynamodb-high-latency',
  single: { medianMs: 4, p99Ms: 12 },
  conditionalWrite: { medianMs: 5, p99Ms: 15 },
  queryMsPerReadUnit: 0.25,
} as const;

const Z99 = 2.3263;

/** A seeded generator (mulberry32): the same draws on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function logNormal(random: () => number, medianMs: number, p99Ms: number): number {
  const sigma = Math.log(p99Ms / medianMs) / Z99;
  // Box-Muller: one standard normal draw.
  const u = Math.max(random(), 1e-12);
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  return medianMs * Math.exp(sigma * z);
}

/**
 * Wait until `deadline` (performance.now() time) to a fraction of a millisecond: timers fire on
 * whole milliseconds, which would round every drawn latency by up to 1 ms, so a timer covers all
 * but the last millisecond and the rest passes in event-loop turns (setImmediate), which let every
 * other pending call and request run meanwhile.
 */
async function waitUntil(deadline: number): Promise<void> {
  const coarse = Math.floor(deadline - performance.now() - 1);
  if (coarse >= 1) await new Promise((resolve) => setTimeout(resolve, coarse));
  while (performance.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
}

const NAME = 'benchLatencyModel';

/** The model on a set of clients: `begin(i)` starts iteration i (its draws), `off()` removes it. */
export interface LatencyModel {
  begin: (iteration: number) => void;
  off: () => void;
}

/** One 32-bit seed from several integers (FNV-1a over their bytes). */
function seedOf(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    for (let i = 0; i < 4; i++) {
      h ^= (part >>> (8 * i)) & 0xff;
      h = Math.imul(h, 0x01000193);
    }
  }
  return h >>> 0;
}

/**
 * How the model draws one call: its distribution (a conditional write's, or any other call's), whether
 * its time grows with what it read (a Query, a batch get), and its kind (the draws' stream).
 */
function classifyCall(commandName: unknown, input: { ConditionExpression?: string }) {
  const command = String(commandName ?? '').replace(/Command$/, '');
  const conditional =
    (command === 'UpdateItem' || command === 'PutItem' || command === 'DeleteItem') &&
    input.ConditionExpression !== undefined;
  const sized = command === 'Query' || command === 'BatchGetItem';
  return {
    base: conditional ? LATENCY_MODEL.conditionalWrite : LATENCY_MODEL.single,
    sized,
    kind: conditional ? 1 : sized ? 2 : 3,
  };
}

/** A sized call's arguments asking DynamoDB to report what it consumed (unless they already do). */
function askingCapacity<A extends { input: unknown }>(args: A, sized: boolean): A {
  const input = args.input as { ReturnConsumedCapacity?: string };
  return sized && input.ReturnConsumedCapacity === undefined
    ? { ...args, input: { ...input, ReturnConsumedCapacity: 'TOTAL' } }
    : args;
}

/** The time a sized call adds for the units it reports having read (at least half a unit). */
function readTimeMs(output: unknown): number {
  type Consumed = { CapacityUnits?: number };
  const reported = (output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity;
  const consumed = ([] as Consumed[]).concat(reported ?? []).reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0) || 0.5;
  return (consumed / 0.5) * LATENCY_MODEL.queryMsPerReadUnit;
}

/**
 * Put the model on the clients. The calls `outside` says no request waits for (the pointer read
 * ahead beside a request: tools/bench/scale.ts) draw by their own ranks, so that they do not change
 * the draws of the request's calls.
 */
export function applyLatencyModel(
  clients: DynamoDBDocumentClient[],
  seed = 42,
  outside: () => boolean = () => false,
): LatencyModel {
  let iteration = 0;
  const ranks = new Map<number, number>();
  for (const client of clients) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const call = classifyCall(context.commandName, args.input as { ConditionExpression?: string });
        const kind = (outside() ? 3 : 0) + call.kind;
        const rank = ranks.get(kind) ?? 0;
        ranks.set(kind, rank + 1);
        let drawn = logNormal(seeded(seedOf(seed, iteration, kind, rank)), call.base.medianMs, call.base.p99Ms);
        const started = performance.now();
        // A Query's or a batch's time depends on what it read, so each reports it: the request's do
        // (its accounting asks), and a floor's must too, or it would be drawn as if it read nothing.
        const out = await next(askingCapacity(args, call.sized));
        if (call.sized) drawn += readTimeMs(out.output);
        await waitUntil(started + drawn);
        return out;
      },
      { step: 'initialize', name: NAME, override: true },
    );
  }
  return {
    begin: (i) => {
      iteration = i;
      ranks.clear();
    },
    off: () => clients.forEach((client) => client.middlewareStack.remove(NAME)),
  };
}

/**
 * The model's DynamoDB time of a client's calls without waiting it: each call's drawn time (the
 * same distributions as `applyLatencyModel`, a Query's or a batch's by the units it consumed), and
 * their overlap as the code issued them. Calls in flight together (a batch reader's or writer's
 * workers, two reads awaited together) form a group: it takes its drawn times spread over as many
 * lanes as it had calls in flight at most (never less than its longest call); groups one after the
 * other add up. `serialMs` is the plain sum, as if every call waited for the one before.
 */
export function modelledDynamoTime(
  client: DynamoDBDocumentClient,
  seed = 42,
): { totals: () => { calls: number; ms: number; serialMs: number }; reset: () => void } {
  const calls: { start: number; end: number; drawn: number }[] = [];
  const ranks = new Map<number, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const { base, sized, kind } = classifyCall(context.commandName, args.input as { ConditionExpression?: string });
      const rank = ranks.get(kind) ?? 0;
      ranks.set(kind, rank + 1);
      let drawn = logNormal(seeded(seedOf(seed, 0, kind, rank)), base.medianMs, base.p99Ms);
      const start = performance.now();
      const out = await next(askingCapacity(args, sized));
      if (sized) drawn += readTimeMs(out.output);
      calls.push({ start, end: performance.now(), drawn });
      return out;
    },
    { step: 'initialize', name: `${NAME}Sum`, override: true },
  );
  const totals = () => {
    const sorted = [...calls].sort((a, b) => a.start - b.start);
    let ms = 0;
    for (let i = 0; i < sorted.length; ) {
      // A group: the calls whose time in flight overlaps, and the most of them in flight at once.
      let end = sorted[i].end;
      let j = i + 1;
      while (j < sorted.length && sorted[j].start < end) end = Math.max(end, sorted[j++].end);
      const group = sorted.slice(i, j);
      const edges = group.flatMap((c) => [
        [c.start, 1],
        [c.end, -1],
      ]);
      edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      let inFlight = 0;
      let lanes = 1;
      for (const [, delta] of edges) lanes = Math.max(lanes, (inFlight += delta));
      const drawn = group.map((c) => c.drawn);
      ms += Math.max(Math.max(...drawn), drawn.reduce((a, b) => a + b, 0) / lanes);
      i = j;
    }
    return { calls: calls.length, ms, serialMs: calls.reduce((sum, c) => sum + c.drawn, 0) };
  };
  return {
    totals,
    reset: () => {
      calls.length = 0;
      ranks.clear();
    },
  };
}

type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

export interface ModelKind {
  name: string;
  path: string;
  fn: FunctionName;
  floor: FloorSpec;
}

export interface ModelResult {
  kind: string;
  /** p50/p99 of the request through the real handler, cache off. */
  request_ms: Latency;
  /** The service's own CPU of the same requests (`process.cpuUsage`); absent from runs before it existed. */
  request_cpu_ms?: Latency;
  /** The same with the instance cache on (warm). */
  cached_ms: Latency;
  /** The slower of the raw page read and the raw conditional counter write, run in parallel. */
  floor_ms: Latency;
  /** p50(request, cache off) / p50(floor): target ≤ 1.2. */
  ratio: number | null;
  cached_ratio: number | null;
}

export interface ModelContext {
  model: LatencyModel;
  uncached: Record<FunctionName, Handler>;
  cached: Record<FunctionName, Handler>;
  data: ServedData;
  /** The counter client and table, for the floor's counter write. */
  counter: { client: DynamoDBDocumentClient; tableName: string };
}

const event = (path: string, keyId: string) =>
  apiEvent(path, { keyId, perMinute: 1_000_000_000, perMonth: 1_000_000_000 });

/** Wall and CPU time of one run (the embedded DynamoDB answers from processes of their own). */
async function timed(fn: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const start = performance.now();
  const cpuAtStart = process.cpuUsage();
  await fn();
  return { ms: performance.now() - start, cpuMs: cpuMsSince(cpuAtStart) };
}

/** Every single-view request kind: request (cache off, cache on) and floor, interleaved. */
export async function measureLatencyModel(kinds: ModelKind[], ctx: ModelContext, runs: number): Promise<ModelResult[]> {
  const results: ModelResult[] = [];
  for (const [i, kind] of kinds.entries()) {
    const keyId = `model-key-${i}`;
    const month = monthWindow(systemClock());
    const floor = () =>
      Promise.all([
        ctx.data.run(kind.floor),
        runCounterFloor(ctx.counter.client, ctx.counter.tableName, `model-floor-${i}`, month.id),
      ]);
    // A request's event is built before its clock starts: API Gateway hands the function a parsed one.
    const prepared = (handlers: Record<FunctionName, Handler>) => {
      const ready = event(kind.path, keyId);
      return () => handlers[kind.fn](ready, {} as Context);
    };
    // Warm: pointers cached, the cached instance holds the page.
    for (let w = 0; w < 3; w++) {
      await prepared(ctx.uncached)();
      await prepared(ctx.cached)();
      await floor();
    }
    const requestMs: number[] = [];
    const requestCpuMs: number[] = [];
    const cachedMs: number[] = [];
    const floorMs: number[] = [];
    const measured = [
      { times: requestMs, cpu: requestCpuMs, prepare: () => prepared(ctx.uncached) },
      { times: cachedMs, cpu: undefined, prepare: () => prepared(ctx.cached) },
      { times: floorMs, cpu: undefined, prepare: () => floor },
    ];
    for (let r = 0; r < runs; r++) {
      // The three in the same iteration: the same draws (common random numbers, above). Their order
      // rotates, so none always follows the same one (whatever one leaves behind, the next pays).
      const iteration = i * 100_000 + r;
      for (let k = 0; k < measured.length; k++) {
        const { times, cpu, prepare } = measured[(r + k) % measured.length];
        const run = prepare();
        ctx.model.begin(iteration);
        const { ms, cpuMs } = await timed(run);
        times.push(ms);
        cpu?.push(cpuMs);
      }
    }
    const f = median(floorMs);
    results.push({
      kind: kind.name,
      request_ms: latencyOf(requestMs),
      request_cpu_ms: latencyOf(requestCpuMs),
      cached_ms: latencyOf(cachedMs),
      floor_ms: latencyOf(floorMs),
      ratio: round(median(requestMs) / f),
      cached_ratio: round(median(cachedMs) / f),
    });
  }
  return results;
}

export interface MixResult {
  cache: 'off' | 'on';
  requests: number;
  distinct_paths: number;
  read_units_per_request: number | null;
  cache_hit_rate: number | null;
  latency_ms: Latency;
}

/**
 * A replay of `count` requests drawn from the paths with Zipf weights (s = 1.1: the most popular
 * page is asked for most, as real traffic skews to first pages and big assets), the same draws for
 * cache off and on. Each run starts from a cold cache.
 */
export async function replayMix(
  model: LatencyModel,
  paths: { path: string; fn: FunctionName }[],
  handlers: Record<'off' | 'on', Record<FunctionName, Handler>>,
  count: number,
): Promise<MixResult[]> {
  const weights = paths.map((_, rank) => 1 / (rank + 1) ** 1.1);
  const total = weights.reduce((a, b) => a + b, 0);
  const random = seeded(7);
  const draws = Array.from({ length: count }, () => {
    let x = random() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i];
      if (x <= 0) return paths[i];
    }
    return paths[paths.length - 1];
  });
  const results: MixResult[] = [];
  for (const cache of ['off', 'on'] as const) {
    const latencies: number[] = [];
    let readUnits = 0;
    let hits = 0;
    let lookups = 0;
    for (const [i, draw] of draws.entries()) {
      // Request i waits the same with the cache off and on.
      model.begin(1_000_000_000 + i);
      const start = performance.now();
      const { accounting } = await withRequestAccounting(() =>
        handlers[cache][draw.fn](event(draw.path, `mix-${cache}-${i % 50}`), {} as Context),
      );
      latencies.push(performance.now() - start);
      const summary = accounting.summary();
      readUnits += summary.readCapacity;
      hits += summary.cacheHits;
      lookups += summary.cacheHits + summary.cacheMisses;
    }
    results.push({
      cache,
      requests: count,
      distinct_paths: new Set(draws.map((d) => d.path)).size,
      read_units_per_request: round(readUnits / count, 3),
      cache_hit_rate: lookups === 0 ? null : round(hits / lookups, 3),
      latency_ms: latencyOf(latencies),
    });
  }
  return results;
}
