/**
 * `npm run smoke -- --url URL --key KEY` (a deployed stage) or `npm run smoke -- --local` (starts the
 * local stack with the sample data and the demo key; add `--bundles [--cdk-out DIR]` to serve the
 * functions' bundles from `npm run synth` instead of their sources). A read-only pass over every route
 * of the route table (shared/http/routes.ts) and every key-free path: each list, a detail of its first
 * item, its changes, offer history (one offer's and several offers'), the usage, the data status, the API description and its docs
 * page, CSV, the authentication errors and an unknown route. A route or key-free path that no
 * passing check reached is a failure of its own, so a new route cannot go unsmoked. Prints a
 * pass/fail table and exits 1 if anything failed.
 */
import { parseArgs } from 'node:util';
import { BUNDLE_OPTIONS_SPEC, bundlesOption, runMain, UsageError } from '../tools/cli';
import { runSmoke } from '../tools/smoke/smoke';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      local: { type: 'boolean', default: false },
      ...BUNDLE_OPTIONS_SPEC,
    },
  });
  const bundles = bundlesOption(values);
  if (bundles && !values.local) throw new UsageError('--bundles goes with --local');
  let base = values.url?.replace(/\/+$/, '');
  let key = values.key;
  let close: (() => Promise<void>) | undefined;
  if (values.local) {
    const { startLocalStack } = await import('../local/stack');
    const { systemClock } = await import('../shared/platform/clock');
    const { generateDataset, SAMPLE } = await import('../tools/sample-data/generate');
    const { readDataFile } = await import('../tools/cli');
    const { parseAccounts } = await import('../shared/import/dataset');
    const { publicRoutes } = await import('../local/public-routes');
    const accounts = parseAccounts(readDataFile(`${__dirname}/../data/demo-accounts.json`));
    const stack = await startLocalStack({
      dataset: generateDataset({ ...SAMPLE, now: systemClock() }),
      clock: systemClock,
      accounts,
      publicRoutes: publicRoutes(),
      bundles,
      bundleStack: values.stack,
    });
    console.log(
      `local stack: ${stack.bundledStack ? `bundles of ${stack.bundledStack} from ${bundles}` : 'TypeScript sources'}`,
    );
    base = stack.url;
    key = accounts.users.find((u) => u.premium)!.keys.find((k) => !k.revoked && !k.per_minute)!.key;
    close = stack.close;
  }
  if (!base || !key) throw new UsageError('usage: npm run smoke -- --url URL --key KEY | --local');
  try {
    const outcomes = await runSmoke(base, key);
    if (outcomes.some((o) => o.problem)) process.exitCode = 1;
  } finally {
    await close?.();
  }
}

if (require.main === module) runMain(main);
