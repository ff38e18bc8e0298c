/**
 * Measures one request kind through the real handler, interleaved with its floor and with a
 * replay of the request's own DynamoDB calls (same calls, same sequential structure, no service
 * code around them), so that the three share the same machine state. DynamoDB work comes from the
 * accounting middleware (shared/platform/dynamo-accounting), the same numbers production
 * emits as EMF metrics.
 */
import { performance } from 'node:perf_hooks';
import {
  BatchGetCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../local/events';
import { blockDocuments } from '../../shared/data/items/document-block';
import type { ApiEvent, ApiResult } from '../../shared/http/http';
import type { FunctionName } from '../../shared/http/routes';
import {
  callDepths,
  type DynamoCall,
  roundTrips,
  withRequestAccounting,
} from '../../shared/platform/dynamo-accounting';
import { isConditionFailure } from '../../shared/platform/dynamodb';
import { describeFloor, type FloorSpec } from './floor';
import type { Answer, FloorContext, RequestKind } from './requests';
import { cpuMsSince, type Latency, latencyOf, median, round } from './stats';

export type Handler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

export interface MeasureOptions {
  runs: number;
  /** Stop a kind after this long (at least `minRuns`): combined filters read whole views. */
  budgetMs: number;
  minRuns: number;
  warmup: number;
}

interface DynamoWork {
  calls: number;
  round_trips: number;
  round_trips_max: number;
  read_capacity: number;
  write_capacity: number;
  commands: Record<string, number>;
}

export interface KindResult {
  kind: string;
  fn: FunctionName;
  group: RequestKind['group'];
  path: string;
  status: number;
  runs: number;
  dynamo: DynamoWork;
  latency_ms: Latency;
  /** The service's own CPU per request (user + system, `process.cpuUsage`), at this machine's one core. */
  cpu_ms: Latency;
  floor: {
    read: string;
    calls: number;
    read_capacity: number;
    items: number;
    item_bytes: number;
    latency_ms: Latency;
  } | null;
  /** The request's own DynamoDB calls replayed raw, level by level: what DynamoDB alone costs. */
  dynamo_only_ms: Latency;
  /**
   * The same calls one at a time, summing the slowest call of each level: DynamoDB's time on the
   * critical path if the parallel calls were served in parallel, as by the service (the embedded
   * DynamoDB is one thread and serves them one after the other).
   */
  critical_path_ms: Latency;
  /** p50(request) / p50(floor). */
  overhead_ratio: number | null;
  /** p50(request) / p50(its own calls replayed): the share of the service code. */
  code_overhead_ratio: number | null;
  /** (p50(request) − p50(DynamoDB-only) + p50(critical path)) / p50(floor): an estimate, see above. */
  parallel_overhead_ratio: number | null;
  promised_round_trips: number;
  page?: RequestKind['page'];
  period?: RequestKind['period'];
  read_ceiling?: RequestKind['readCeiling'];
  own_ceiling?: RequestKind['ownCeiling'];
  /** Whether the EMF lines the handler wrote agree with the accounting (calls). */
  emf_agrees: boolean;
}

interface CapturedCall {
  command: string;
  input: Record<string, unknown>;
  start: number;
  end: number;
}

const REPLAY_COMMANDS: Record<string, new (input: any) => any> = {
  GetItem: GetCommand,
  Query: QueryCommand,
  UpdateItem: UpdateCommand,
  PutItem: PutCommand,
  BatchGetItem: BatchGetCommand,
};

/** Records the commands the handlers send, so that a request's calls can be replayed raw. */
export class CallRecorder {
  private capturing: CapturedCall[] | undefined;
  private readonly attached = new WeakSet<object>();

  attach(client: DynamoDBDocumentClient): void {
    if (this.attached.has(client)) return;
    this.attached.add(client);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const sink = this.capturing;
        if (!sink) return next(args);
        const start = performance.now();
        const out = await next(args);
        const { ReturnConsumedCapacity: _ignored, ...input } = args.input as Record<string, unknown>;
        sink.push({
          command: String(context.commandName).replace(/Command$/, ''),
          input,
          start,
          end: performance.now(),
        });
        return out;
      },
      { step: 'initialize', name: 'benchCallRecorder', override: true },
    );
  }

  async capture(fn: () => Promise<unknown>): Promise<CapturedCall[]> {
    const calls: CapturedCall[] = [];
    this.capturing = calls;
    try {
      await fn();
    } finally {
      this.capturing = undefined;
    }
    return calls;
  }
}

/** The calls grouped by depth: each level is sent in parallel once the previous one is done. */
function replayOf(
  client: DynamoDBDocumentClient,
  calls: CapturedCall[],
): { replay: () => Promise<void>; criticalPath: () => Promise<number> } {
  const levels: CapturedCall[][] = [];
  callDepths(calls).forEach((depth, i) => (levels[depth - 1] ??= []).push(calls[i]));
  for (const call of calls) if (!REPLAY_COMMANDS[call.command]) throw new Error(`cannot replay ${call.command}`);
  // A replayed counter write may find its captured minute over and fail its condition: a refused
  // write is a round trip all the same.
  const send = (call: CapturedCall) =>
    client.send(new REPLAY_COMMANDS[call.command](call.input)).catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  return {
    replay: async () => {
      for (const level of levels) await Promise.all(level.map(send));
    },
    criticalPath: async () => {
      let total = 0;
      for (const level of levels) {
        let slowest = 0;
        for (const call of level) {
          const start = performance.now();
          await send(call);
          slowest = Math.max(slowest, performance.now() - start);
        }
        total += slowest;
      }
      return total;
    },
  };
}

function workOf(runs: DynamoCall[][]): DynamoWork {
  const trips = runs.map((calls) => roundTrips(calls));
  const sum = (calls: DynamoCall[], field: 'readCapacity' | 'writeCapacity') => calls.reduce((s, c) => s + c[field], 0);
  const commands: Record<string, number> = {};
  for (const call of runs[runs.length - 1] ?? []) commands[call.command] = (commands[call.command] ?? 0) + 1;
  return {
    calls: median(runs.map((calls) => calls.length)),
    round_trips: median(trips),
    round_trips_max: Math.max(...trips),
    read_capacity: round(median(runs.map((calls) => sum(calls, 'readCapacity'))), 3) ?? 0,
    write_capacity: round(median(runs.map((calls) => sum(calls, 'writeCapacity'))), 3) ?? 0,
    commands,
  };
}

/** The ids (offers) or slugs (catalog) of a list answer, or of the items a floor read. */
function idsOfDocs(docs: unknown[]): string {
  return docs.map((d) => String((d as { id?: number; slug?: string }).id ?? (d as { slug?: string }).slug)).join(',');
}

export interface MeasureContext extends FloorContext {
  handlers: Record<FunctionName, Handler>;
  recorder: CallRecorder;
  client: DynamoDBDocumentClient;
  counterClient: DynamoDBDocumentClient;
  /** DynamoCalls summed over the EMF lines written since the last reset. */
  emfCalls: { total: number };
}

export async function measureKind(
  kind: RequestKind,
  ctx: MeasureContext,
  options: MeasureOptions,
  keyId: string,
): Promise<KindResult> {
  const handler = ctx.handlers[kind.fn];
  const event = () => apiEvent(kind.path, { keyId, perMinute: 1_000_000_000, perMonth: 1_000_000_000 });
  const invoke = async () => {
    const e = event();
    const start = performance.now();
    // The process's CPU while the handler runs: the handler's and its SDK client's alone, since the
    // embedded DynamoDB answers from a process of its own (load.ts) and nothing else runs meanwhile.
    const cpuAtStart = process.cpuUsage();
    const { result, accounting } = await withRequestAccounting(() => handler(e, {} as Context));
    return { ms: performance.now() - start, cpuMs: cpuMsSince(cpuAtStart), result, calls: accounting.calls };
  };

  // First call: warms the function (pointer cached), gives the answer the floor is built from.
  const first = await invoke();
  if (first.result.statusCode !== kind.expectStatus) {
    throw new Error(
      `${kind.name}: ${kind.path} answered ${first.result.statusCode}, expected ${kind.expectStatus}: ${first.result.body.slice(0, 300)}`,
    );
  }
  const answer: Answer = {
    status: first.result.statusCode,
    body: first.result.body ? JSON.parse(first.result.body) : undefined,
  };
  const spec: FloorSpec | undefined = await kind.floor(ctx, answer);
  if (spec && kind.group !== 'history' && Array.isArray(answer.body?.data)) {
    // The floor reads the blocks of the page's documents: every document of the page is in one of them.
    const items = await ctx.data.run(spec);
    const read = new Set(idsOfDocs(items.flatMap(blockDocuments).map((doc) => JSON.parse(doc))).split(','));
    const missing = idsOfDocs(answer.body.data)
      .split(',')
      .filter((id) => id !== '' && !read.has(id));
    if (missing.length > 0)
      throw new Error(`${kind.name}: the floor does not read the page's documents ${missing.slice(0, 10).join(',')}`);
  }

  ctx.recorder.attach(ctx.client);
  ctx.recorder.attach(ctx.counterClient);
  const { replay, criticalPath } = replayOf(ctx.client, await ctx.recorder.capture(invoke));
  const floor = spec
    ? async () => {
        const start = performance.now();
        const { result, accounting } = await withRequestAccounting(() => ctx.data.run(spec));
        return { ms: performance.now() - start, items: result, calls: accounting.calls };
      }
    : undefined;
  const timedReplay = async () => {
    const start = performance.now();
    await replay();
    return performance.now() - start;
  };

  const warming = performance.now();
  for (let i = 0; i < options.warmup && performance.now() - warming < options.budgetMs / 4; i++) {
    await invoke();
    await floor?.();
    await timedReplay();
    await criticalPath();
  }

  ctx.emfCalls.total = 0;
  const requestMs: number[] = [];
  const requestCpuMs: number[] = [];
  const floorMs: number[] = [];
  const replayMs: number[] = [];
  const criticalMs: number[] = [];
  const requestCalls: DynamoCall[][] = [];
  let floorCalls: DynamoCall[] = [];
  let floorItems: Record<string, unknown>[] = [];
  let status = first.result.statusCode;
  const started = performance.now();
  const steps = [
    async () => {
      const run = await invoke();
      requestMs.push(run.ms);
      requestCpuMs.push(run.cpuMs);
      requestCalls.push(run.calls);
      status = run.result.statusCode;
    },
    async () => {
      if (!floor) return;
      const run = await floor();
      floorMs.push(run.ms);
      floorCalls = run.calls;
      floorItems = run.items;
    },
    async () => {
      replayMs.push(await timedReplay());
    },
    async () => {
      criticalMs.push(await criticalPath());
    },
  ];
  for (let i = 0; i < options.runs && (i < options.minRuns || performance.now() - started < options.budgetMs); i++) {
    // Rotate the order so that none of the four always runs first (or right after a GC).
    for (let s = 0; s < steps.length; s++) await steps[(i + s) % steps.length]();
  }

  const p50 = median(requestMs);
  const measuredCalls = requestCalls.reduce((n, calls) => n + calls.length, 0);
  return {
    kind: kind.name,
    fn: kind.fn,
    group: kind.group,
    path: kind.path,
    status,
    runs: requestMs.length,
    dynamo: workOf(requestCalls),
    latency_ms: latencyOf(requestMs),
    cpu_ms: latencyOf(requestCpuMs),
    floor: floor
      ? {
          read: describeFloor(spec),
          calls: floorCalls.length,
          read_capacity:
            round(
              floorCalls.reduce((s, c) => s + c.readCapacity, 0),
              3,
            ) ?? 0,
          items: floorItems.length,
          // What DynamoDB meters reads by (4 KB units): attribute names and values, about.
          item_bytes: floorItems.reduce((n, item) => n + Buffer.byteLength(JSON.stringify(item)), 0),
          latency_ms: latencyOf(floorMs),
        }
      : null,
    dynamo_only_ms: latencyOf(replayMs),
    critical_path_ms: latencyOf(criticalMs),
    overhead_ratio: floor ? round(p50 / median(floorMs)) : null,
    code_overhead_ratio: round(p50 / median(replayMs)),
    parallel_overhead_ratio: floor ? round((p50 - median(replayMs) + median(criticalMs)) / median(floorMs)) : null,
    promised_round_trips: kind.promisedRoundTrips,
    page: kind.page,
    period: kind.period,
    read_ceiling: kind.readCeiling,
    own_ceiling: kind.ownCeiling,
    emf_agrees: ctx.emfCalls.total === measuredCalls,
  };
}
