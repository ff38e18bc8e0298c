/**
 * Faults injected into a real DynamoDB client: a middleware step that fails a call (or rewrites
 * its answer) before or after it reaches the table, so tests break one thing on the real client and
 * the embedded DynamoDB instead of imitating the table.
 */
import {
  type BatchWriteCommand,
  type DynamoDBDocumentClient,
  type PutCommand,
  ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../shared/platform/dynamodb';

export interface Call {
  /** `GetCommand`, `QueryCommand`, `UpdateCommand`, … */
  command: string;
  input: Record<string, any>;
}

export type Fault = (call: Call) => Error | undefined;
export type Rewrite = (call: Call, output: Record<string, any>) => Record<string, any>;

let injected = 0;

/** Fail every call for which `fault` returns an error; `rewrite` may change what the table answered. */
export function injectFaults(
  clients: DynamoDBDocumentClient[],
  fault: Fault,
  rewrite?: Rewrite,
): { remove: () => void } {
  const name = `injected-fault-${++injected}`;
  for (const client of clients) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const call = { command: String(context.commandName ?? ''), input: args.input as Record<string, any> };
        const error = fault(call);
        if (error) throw error;
        const result = await next(args);
        if (rewrite) result.output = rewrite(call, result.output as Record<string, any>) as typeof result.output;
        return result;
      },
      { step: 'initialize', name, override: true },
    );
  }
  return { remove: () => clients.forEach((client) => client.middlewareStack.remove(name)) };
}

/** What the SDK throws when nothing listens on the DynamoDB endpoint. */
export const connectionRefused = (): Error =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
    name: 'Error',
    code: 'ECONNREFUSED',
    errno: -111,
    syscall: 'connect',
  });

/**
 * A new client on the table at `endpoint` whose calls of `kind` fail like a dropped connection
 * after `healthy` of them; `beforeFailing` runs once, just before the first failure (a reader
 * asking in between). It counts the writes it is asked for (`writes`) and can wait for its calls
 * still in flight (`settled`: other batch workers may still be writing after an import rejected).
 */
export function flakyClient(
  endpoint: string,
  kind: typeof BatchWriteCommand | typeof PutCommand,
  healthy: number,
  beforeFailing?: () => Promise<void>,
) {
  const client: DynamoDBDocumentClient = createDocumentClient({ endpoint });
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  const inflight = new Set<Promise<unknown>>();
  let seen = 0;
  let writes = 0;
  (client as unknown as { send: (command: unknown) => Promise<unknown> }).send = async (command: unknown) => {
    if (
      !(command instanceof ScanCommand) &&
      (command as { constructor: { name: string } }).constructor.name.match(/Put|BatchWrite|Delete|Update/)
    )
      writes++;
    if (command instanceof kind && ++seen > healthy) {
      if (beforeFailing) {
        const run = beforeFailing;
        beforeFailing = undefined;
        await run();
      }
      throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
    }
    const pending = send(command);
    inflight.add(pending);
    pending.then(
      () => inflight.delete(pending),
      () => inflight.delete(pending),
    );
    return pending;
  };
  return {
    client,
    writes: () => writes,
    settled: async () => {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
    close: () => client.destroy(),
  };
}

export type FlakyClient = ReturnType<typeof flakyClient>;
