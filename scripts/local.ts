/**
 * `npm start [-- --port N] [--data FILE] [--accounts FILE] [--auth-cache-ttl SECONDS] [--bundles [--cdk-out DIR] [--stack NAME]]`
 * The whole API on this machine (README.md, "Local run"): embedded DynamoDB, the sample
 * dataset (generated for the current hour) or FILE, the demo accounts or FILE, and the local
 * gateway on 127.0.0.1 in front of the functions: their TypeScript sources, or with `--bundles`
 * the bundles `npm run synth` wrote to DIR (default cdk.out), as they deploy.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BundleError } from '../local/bundles';
import { publicRoutes } from '../local/public-routes';
import { AccountsWebhooksError, startLocalStack } from '../local/stack';
import { AccountsConflictError } from '../shared/accounts/key-store';
import { DataFileError } from '../shared/import/dataset';
import { systemClock } from '../shared/platform/clock';
import { BUNDLE_OPTIONS_SPEC, bundlesOption, progressBar, readDataFile, runMain, UsageError } from '../tools/cli';
import { anchorOf, generateDataset, SAMPLE } from '../tools/sample-data/generate';

const DEMO_ACCOUNTS = join(__dirname, '..', 'data', 'demo-accounts.json');

async function main(): Promise<void> {
  const started = performance.now();
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.PORT ?? '3000' },
      data: { type: 'string' },
      accounts: { type: 'string', default: DEMO_ACCOUNTS },
      'auth-cache-ttl': { type: 'string', default: '0' },
      ...BUNDLE_OPTIONS_SPEC,
    },
  });
  const bundles = bundlesOption(values);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a port number, got ${values.port}`);
  // The one clock of the stack: the sample's anchor (its hour), the import and every function.
  const clock = systemClock;
  const hour = anchorOf(clock());
  const dataset = values.data ? readDataFile(values.data) : generateDataset({ ...SAMPLE, now: hour });

  let stack;
  try {
    stack = await startLocalStack({
      port,
      dataset,
      accounts: readDataFile(values.accounts!),
      authCacheTtlMs: Number(values['auth-cache-ttl']) * 1000,
      publicRoutes: publicRoutes(),
      onImportProgress: progressBar('importing'),
      bundles,
      bundleStack: values.stack,
      clock,
      // Deliveries within 10 s of a publish (CONTRACT §14): the pointer read every second.
      webhooks: { intervalMs: 1000 },
    });
  } catch (error) {
    if (
      error instanceof DataFileError ||
      error instanceof AccountsConflictError ||
      error instanceof AccountsWebhooksError
    ) {
      throw new UsageError(`a data file was refused:\n${error.errors.join('\n')}`);
    }
    if (error instanceof BundleError) throw new UsageError(error.message);
    throw error;
  }

  const premium = stack.accounts?.users.find((u) => u.premium && u.keys.some((k) => !k.revoked));
  const key = premium?.keys.find((k) => !k.revoked)?.key;
  const lines = [
    `Market data API listening on ${stack.url}/api/v1 (ready in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
    `  functions: ${stack.bundledStack ? `bundles of ${stack.bundledStack} from ${bundles}` : 'TypeScript sources'}`,
    `  data: ${values.data ?? 'generated sample'} (${Object.entries(stack.imported?.counts ?? {})
      .map(([f, n]) => `${f} ${n}`)
      .join(', ')})`,
    `  embedded DynamoDB: ${stack.endpoint} table ${stack.tableName} (for npm run import / npm run keys --endpoint)`,
    `  API description: ${stack.url}/openapi.json, docs: ${stack.url}/docs`,
  ];
  if (key) {
    lines.push(`  demo key (user ${premium!.id}): ${key}`);
    lines.push(`  try: curl -s -H "Authorization: Bearer ${key}" "${stack.url}/api/v1/currencies?limit=3"`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  const stop = async () => {
    await stack.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

runMain(main);
