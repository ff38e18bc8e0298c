/**
 * The one set of esbuild options every function bundle is built with: the stack's (CDK
 * NodejsFunction, lib/constructs/api-function.ts) and the benchmark's bundle-size and cold-start
 * measurement (scripts/bench/cold-start.ts) both read it, so the benchmark measures what deploys
 * (docs/architecture.md, "Bundles"). Plain data: the benchmark imports it without the CDK.
 */

/** What the bundle targets; lib/constructs/api-function.ts pins the Lambda runtime to match. */
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
} as const;
