/**
 * The one set of esbuild options every function bundle is built with: the stack's (CDK
 * NodejsFunction, lib/constructs/stack-function.ts) and the benchmark's bundle-size and cold-start
 * measurement (tools/bench/cold-start.ts) both read it, so the benchmark measures what deploys
 * (docs/architecture.md, "Bundles"). Plain data: the benchmark imports it without the CDK.
 */
import { resolve } from 'node:path';

/** What the bundle targets; lib/constructs/stack-function.ts pins the Lambda runtime to match. */
const BUNDLE_TARGET = 'node22';

export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: BUNDLE_TARGET,
  minify: true,
  // Bundle everything, the AWS SDK included: one pinned SDK version, smaller cold starts.
  external: [] as string[],
  // Prefer ESM entry points (tree-shaking); ESM-only packages such as middy bundle to CJS.
  mainFields: ['module', 'main'],
  // Source maps, where a stage turns them on, map to file and line without carrying the sources.
  sourcesContent: false,
  // The SDK's default credential chain (bundle bytes: docs/performance.md) replaced by its first link, the environment,
  // where Lambda puts the credentials (docs/adr/0007-credentials-from-the-environment.md).
  // Absolute: esbuild resolves an alias path from its working directory, which differs by caller.
  alias: {
    '@aws-sdk/credential-provider-node': resolve(__dirname, '../shared/platform/lambda-credentials.ts'),
  } as Readonly<Record<string, string>>,
} as const;
