/**
 * Faults injected into a real DynamoDB client: a middleware step that fails a call (or rewrites
 * its answer) before or after it reaches the table, so tests break one thing on the real client and
 * the embedded DynamoDB instead of imitating the table.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
