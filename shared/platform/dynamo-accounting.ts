/**
 * DynamoDB work per request: an SDK middleware on the document client records every call (command,
 * start, end, consumed capacity) into the accounting scope of the request that made it, found
 * through AsyncLocalStorage. Inside a scope it asks DynamoDB for `ReturnConsumedCapacity: TOTAL`;
 * outside one (imports, scripts) it changes nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import type {
  InitializeHandlerArguments,
  InitializeHandlerOutput,
  InitializeMiddleware,
  MiddlewareStack,
} from '@smithy/types';

export interface DynamoCall {
  /** `GetItem`, `Query`, `UpdateItem`… */
  command: string;
  /** `performance.now()` when the call was sent and when it settled (retries included). */
  start: number;
  end: number;
  readCapacity: number;
  writeCapacity: number;
  /** The error name when the call failed (e.g. ConditionalCheckFailedException). */
  error?: string;
}

export interface AccountingSummary {
  calls: number;
  roundTrips: number;
  readCapacity: number;
  writeCapacity: number;
  /** Reads answered from the function's snapshot cache, and those it had to make (the block cache: shared/data/lru.ts). */
  cacheHits: number;
  cacheMisses: number;
  /** Bytes of the items answered from the cache. */
  cacheBytes: number;
  /** Family indexes the request read from the table (shared/data/index-store.ts): 0 on a warm instance. */
  indexLoads: number;
  /** Family indexes the request built from a delta against an index the instance held (shared/data/index-store.ts). */
  indexDeltas: number;
}

/** A read of the snapshot cache: a hit (with the bytes it served) or a miss. */
export interface CacheAccess {
  hit: boolean;
  bytes: number;
}

/** Commands whose input accepts ReturnConsumedCapacity, and which capacity each consumes. */
const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/**
 * The depth of each call (same order as given): 1 + the largest depth of the calls that ended
 * before it started. Calls in parallel share a depth.
 */
export function callDepths(calls: readonly Pick<DynamoCall, 'start' | 'end'>[]): number[] {
  const order = calls.map((_, i) => i).sort((a, b) => calls[a].start - calls[b].start);
  const depth: number[] = new Array(calls.length);
  order.forEach((i, k) => {
    let before = 0;
    for (const j of order.slice(0, k)) if (calls[j].end <= calls[i].start) before = Math.max(before, depth[j]);
    depth[i] = before + 1;
  });
  return depth;
}

/**
 * Sequential round trips on the request's critical path: the longest chain of calls where each
 * starts after the previous one ended.
 */
export const roundTrips = (calls: readonly Pick<DynamoCall, 'start' | 'end'>[]): number =>
  Math.max(0, ...callDepths(calls));

/** @internal (exported for its tests) */
export function summarize(
  calls: readonly DynamoCall[],
  cache: readonly CacheAccess[] = [],
  indexLoads = 0,
  indexDeltas = 0,
): AccountingSummary {
  return {
    indexLoads,
    indexDeltas,
    cacheHits: cache.filter((c) => c.hit).length,
    cacheMisses: cache.filter((c) => !c.hit).length,
    cacheBytes: cache.reduce((sum, c) => sum + (c.hit ? c.bytes : 0), 0),
    calls: calls.length,
    roundTrips: roundTrips(calls),
    // Capacity comes in half units; rounding keeps float sums readable.
    readCapacity: Math.round(calls.reduce((sum, c) => sum + c.readCapacity, 0) * 1000) / 1000,
    writeCapacity: Math.round(calls.reduce((sum, c) => sum + c.writeCapacity, 0) * 1000) / 1000,
  };
}

/**
 * The calls of one request. A scope nested in another (the metrics middleware inside a benchmark's
 * scope) also reports to its parent. A closed scope records nothing: the store can outlive the
 * request in its caller's async context (see enterRequestAccounting).
 */
export class RequestAccounting {
  readonly calls: DynamoCall[] = [];
  readonly cache: CacheAccess[] = [];
  private indexLoads = 0;
  private indexDeltas = 0;
  private closed = false;

  constructor(
    readonly parent?: RequestAccounting,
    /** Entered with enterWith rather than run: it may be visible to its caller's later code. */
    readonly entered = false,
  ) {}

  get isOpen(): boolean {
    return !this.closed;
  }

  record(call: DynamoCall): void {
    if (!this.closed) this.calls.push(call);
    if (this.parent?.isOpen) this.parent.record(call);
  }

  recordCache(access: CacheAccess): void {
    if (!this.closed) this.cache.push(access);
    if (this.parent?.isOpen) this.parent.recordCache(access);
  }

  recordIndexLoad(): void {
    if (!this.closed) this.indexLoads++;
    if (this.parent?.isOpen) this.parent.recordIndexLoad();
  }

  recordIndexDelta(): void {
    if (!this.closed) this.indexDeltas++;
    if (this.parent?.isOpen) this.parent.recordIndexDelta();
  }

  close(): AccountingSummary {
    this.closed = true;
    return this.summary();
  }

  summary(): AccountingSummary {
    return summarize(this.calls, this.cache, this.indexLoads, this.indexDeltas);
  }
}

const storage = new AsyncLocalStorage<RequestAccounting>();

/**
 * The innermost open accounting scope of the running code, if any: none for work outside every
 * request (`outsideRequestAccounting`), which the bench's latency model tells apart by it.
 */
export function currentAccounting(): RequestAccounting | undefined {
  let scope = storage.getStore();
  while (scope && !scope.isOpen) scope = scope.parent;
  return scope;
}

/** Count a snapshot-cache read in the current request's accounting, if any. */
export function recordCacheAccess(access: CacheAccess): void {
  currentAccounting()?.recordCache(access);
}

/** Count a family index read from the table in the current request's accounting, if any. */
export function recordIndexLoad(): void {
  currentAccounting()?.recordIndexLoad();
}

/** Count a family index built from its delta in the current request's accounting, if any. */
export function recordIndexDelta(): void {
  currentAccounting()?.recordIndexDelta();
}

/** Run `fn` in a new scope (nested in the current one) and return its result with its calls. */
export async function withRequestAccounting<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; accounting: RequestAccounting }> {
  const accounting = new RequestAccounting(currentAccounting());
  try {
    return { result: await storage.run(accounting, fn), accounting };
  } finally {
    accounting.close();
  }
}

/**
 * Open a scope for the rest of the current async context: for middleware that cannot wrap the
 * code after it (middy's before/after). Everything the request starts afterwards sees this scope.
 * Because a handler's first middleware runs synchronously in its caller's context, the store also
 * stays visible to the caller (and to requests it starts next, concurrently): such a scope is
 * never taken as a parent, and the owner must close it, after which it is skipped.
 */
export function enterRequestAccounting(): RequestAccounting {
  let parent = currentAccounting();
  while (parent?.entered) parent = parent.parent;
  const accounting = new RequestAccounting(parent?.isOpen ? parent : undefined, true);
  storage.enterWith(accounting);
  return accounting;
}

/**
 * Run `fn`, and everything it starts, outside every request's scope: for work a request starts but
 * does not wait for (the pointer refreshed ahead, snapshot-store.ts), which is no request's cost.
 */
export function outsideRequestAccounting<T>(fn: () => T): T {
  return storage.exit(fn);
}

type Consumed = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };

function capacityOf(
  command: string,
  consumed: Consumed | Consumed[] | undefined,
): { readCapacity: number; writeCapacity: number } {
  let readCapacity = 0;
  let writeCapacity = 0;
  for (const c of ([] as Consumed[]).concat(consumed ?? [])) {
    if (c.ReadCapacityUnits !== undefined || c.WriteCapacityUnits !== undefined) {
      readCapacity += c.ReadCapacityUnits ?? 0;
      writeCapacity += c.WriteCapacityUnits ?? 0;
    } else if (WRITES.has(command)) writeCapacity += c.CapacityUnits ?? 0;
    else readCapacity += c.CapacityUnits ?? 0;
  }
  return { readCapacity, writeCapacity };
}

type Input = { ReturnConsumedCapacity?: unknown };
type Output = { ConsumedCapacity?: Consumed | Consumed[] };

function dynamoAccountingMiddleware<I extends object, O extends object>(): InitializeMiddleware<I, O> {
  return (next, context) =>
    async function recordDynamoCall(args: InitializeHandlerArguments<I>): Promise<InitializeHandlerOutput<O>> {
      const accounting = currentAccounting();
      if (!accounting) return next(args);
      const command = String(context.commandName ?? 'Unknown').replace(/Command$/, '');
      const asksCapacity =
        (READS.has(command) || WRITES.has(command)) && (args.input as Input).ReturnConsumedCapacity === undefined;
      const input = asksCapacity ? { ...args.input, ReturnConsumedCapacity: 'TOTAL' } : args.input;
      const start = performance.now();
      try {
        const out = await next({ ...args, input });
        accounting.record({
          command,
          start,
          end: performance.now(),
          ...capacityOf(command, (out.output as Output).ConsumedCapacity),
        });
        return out;
      } catch (error) {
        // A refused conditional write is still a round trip (DynamoDB bills it; no capacity is returned).
        accounting.record({
          command,
          start,
          end: performance.now(),
          readCapacity: 0,
          writeCapacity: 0,
          error: (error as Error)?.name ?? 'Error',
        });
        throw error;
      }
    };
}

const DYNAMO_ACCOUNTING_MIDDLEWARE = 'dynamoAccounting';

/** Attach the accounting to a client (the document client shares its client's stack). */
export function attachDynamoAccounting<I extends object, O extends object>(client: {
  middlewareStack: MiddlewareStack<I, O>;
}): void {
  client.middlewareStack.add(dynamoAccountingMiddleware<I, O>(), {
    step: 'initialize',
    name: DYNAMO_ACCOUNTING_MIDDLEWARE,
    override: true,
  });
}
