/**
 * Small helpers the command-line scripts share: argument errors, a progress bar, file reading, and
 * the command line and table connection of the table commands (`npm run keys`, `npm run webhooks`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV } from '../shared/platform/config';
import { createDocumentClient } from '../shared/platform/dynamodb';
import type { TargetRule } from '../shared/webhooks/subscription';

// This machine runs Node 20; the functions deploy on nodejs22.x. The SDK's notice about it is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export class UsageError extends Error {}

/**
 * A data file's bytes, not a string: `parseDataset` / `parseAccounts` decode them, refusing
 * invalid UTF-8 by place, as the deployed ingest does with an S3 object's bytes.
 */
export function readDataFile(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** A one-line progress bar on stderr (only on a terminal, and only for large jobs). */
export function progressBar(label: string, minimumTotal = 2_000): (done: number, total: number) => void {
  let last = -1;
  return (done, total) => {
    if (total < minimumTotal || !process.stderr.isTTY) return;
    const percent = Math.floor((done / total) * 100);
    if (percent === last) return;
    last = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    process.stderr.write(
      `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% ${done}/${total}`,
    );
    if (done >= total) process.stderr.write('\n');
  };
}

/** Run a CLI main: usage errors exit 2 with their message, anything else exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
}

/** Where `npm run synth` writes the cloud assembly. */
const CDK_OUT = join(__dirname, '..', 'cdk.out');

/**
 * `--bundles [--cdk-out DIR] [--stack NAME]` of `npm start` and `npm run smoke -- --local`: serve
 * the functions' bundles from the cloud assembly instead of their TypeScript sources.
 */
export const BUNDLE_OPTIONS_SPEC = {
  bundles: { type: 'boolean', default: false },
  'cdk-out': { type: 'string' },
  stack: { type: 'string' },
} as const;

/** The cloud assembly directory the options ask for, or undefined (the sources). */
export function bundlesOption(values: { bundles?: boolean; 'cdk-out'?: string; stack?: string }): string | undefined {
  if (!values.bundles) {
    if (values['cdk-out'] || values.stack) throw new UsageError('--cdk-out and --stack go with --bundles');
    return undefined;
  }
  return values['cdk-out'] ?? CDK_OUT;
}

// ---- table commands: `npm run keys|webhooks -- COMMAND [options]` ------------------------------

/** Where a table command works: `--table` (TABLE_NAME, else market-data), `--endpoint` (the local stack's), `--region`. */
export const TABLE_OPTIONS = {
  table: { type: 'string' },
  endpoint: { type: 'string' },
  region: { type: 'string' },
} as const;

export interface TableConnection {
  tableName: string;
  endpoint?: string;
  region?: string;
}

type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandLineSpec<C extends string, O extends Options> {
  usage: string;
  options: O;
  /** Each command's own options (the connection's apart). */
  commands: Record<C, { required: string[]; optional: string[] }>;
  /** Options every command takes (the connection's). */
  shared: readonly string[];
  /** Options refused when given empty. */
  nonEmpty: readonly string[];
  /** More words after "needs --x" (what to do about it). */
  hint?: (command: C, missing: string[]) => string;
}

/**
 * `COMMAND [options]` parsed: one known command, its required options given, none but its own and
 * the shared ones, none of `nonEmpty` empty; a UsageError (exit 2) says what is wrong, with the usage.
 */
export function parseCommandLine<C extends string, O extends Options>(argv: string[], spec: CommandLineSpec<C, O>) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: spec.options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${spec.usage}`);
  }
  const { values, positionals } = parsed;
  const command = positionals[0] as C | undefined;
  if (positionals.length !== 1 || !command || !Object.hasOwn(spec.commands, command))
    throw new UsageError(
      positionals.length === 0 ? spec.usage : `unknown command "${positionals.join(' ')}"\n${spec.usage}`,
    );
  const allowed = spec.commands[command];
  const extra = Object.keys(values).filter(
    (name) => ![...allowed.required, ...allowed.optional, ...spec.shared].includes(name),
  );
  if (extra.length > 0)
    throw new UsageError(`${command} does not take ${extra.map((name) => `--${name}`).join(', ')}\n${spec.usage}`);
  const given = values as Record<string, string | boolean | undefined>;
  const missing = allowed.required.filter((name) => given[name] === undefined);
  if (missing.length > 0)
    throw new UsageError(
      `${command} needs ${missing.map((name) => `--${name}`).join(', ')}${spec.hint?.(command, missing) ?? ''}\n${spec.usage}`,
    );
  const empty = spec.nonEmpty.find((name) => given[name] === '');
  if (empty !== undefined) throw new UsageError(`--${empty} must not be empty`);
  return { command, values };
}

/** The table a command's `--table`, `--endpoint` and `--region` name. */
export const tableConnection = (
  values: { table?: string; endpoint?: string; region?: string },
  env: NodeJS.ProcessEnv,
): TableConnection => ({
  tableName: values.table ?? env[ENV.tableName] ?? 'market-data',
  endpoint: values.endpoint,
  region: values.region,
});

/** The webhook target rule of the table's stage: an endpoint is the local stack's (loopback only), else a deployed stage's. */
export const targetRuleOf = (connection: { endpoint?: string }): TargetRule =>
  connection.endpoint === undefined ? 'public' : 'local';

/** Runs `use` with a document client on the connection's DynamoDB, destroyed after. */
export async function withTableClient<T>(
  connection: TableConnection,
  use: (client: DynamoDBDocumentClient) => Promise<T>,
): Promise<T> {
  const client = createDocumentClient({
    endpoint: connection.endpoint,
    region: connection.region,
    maxAttempts: 5,
    requestTimeoutMs: 10_000,
  });
  try {
    return await use(client);
  } finally {
    client.destroy();
  }
}
