/**
 * Cold start: each function bundled as the stack bundles it (the esbuild options of lib/bundling.ts,
 * which the stack's functions use too: CJS, node22, minified, the AWS SDK inside, ESM entry points
 * first), against a bundle that
 * holds only the DynamoDB document client; then the module initialisation time of each bundle in
 * a fresh Node process (the `require` alone), median over interleaved rounds.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { BUNDLE_OPTIONS } from '../../lib/bundling';
import { median, round } from './stats';

export const BASELINE = 'docclient-only';
const FUNCTIONS = ['authorizer', 'platforms', 'currencies', 'offers', 'history', 'usage'] as const;

interface BundleReport {
  bytes: number;
  gzip_bytes: number;
  /** Output bytes by origin: the AWS SDK (smithy and their own dependencies), middy, zod, the project's code. */
  composition: Record<'aws_sdk' | 'middy' | 'zod' | 'own', number>;
  ratio_to_baseline: number | null;
}

export interface ColdStartReport {
  bundles: Record<string, BundleReport>;
  init_ms: Record<string, { median: number | null; runs: number[]; ratio_to_baseline: number | null }>;
  rounds: number;
}

const DOCCLIENT_ONLY = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
`;

function origin(path: string): keyof BundleReport['composition'] {
  if (!path.includes('node_modules/')) return 'own';
  if (path.includes('node_modules/@middy/')) return 'middy';
  if (path.includes('node_modules/zod/')) return 'zod';
  return 'aws_sdk';
}

function composition(metafile: Metafile): BundleReport['composition'] {
  const bytes = { aws_sdk: 0, middy: 0, zod: 0, own: 0 };
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) bytes[origin(input)] += bytesInOutput;
  }
  return bytes;
}

async function bundle(root: string, outdir: string, name: string): Promise<{ file: string; metafile: Metafile }> {
  const file = join(outdir, `${name}.js`);
  // Exactly the stack's esbuild options (lib/bundling.ts); source maps are a stage setting, off here.
  const common: BuildOptions = {
    ...BUNDLE_OPTIONS,
    external: [...BUNDLE_OPTIONS.external],
    mainFields: [...BUNDLE_OPTIONS.mainFields],
    outfile: file,
    metafile: true,
    logLevel: 'error',
    absWorkingDir: root,
  };
  const result =
    name === BASELINE
      ? await build({ ...common, stdin: { contents: DOCCLIENT_ONLY, resolveDir: root, loader: 'ts', sourcefile: `${BASELINE}.ts` } })
      : await build({ ...common, entryPoints: [join(root, 'functions', name, 'handler.ts')] });
  return { file, metafile: result.metafile! };
}

/** Milliseconds `require(file)` takes in a fresh process. */
function initMs(file: string): number {
  const script = `const { performance } = require('node:perf_hooks'); const t = performance.now(); require(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  const out = execFileSync(process.execPath, ['-e', script], {
    // The composition root reads its configuration when the module loads, as in Lambda.
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', NODE_NO_WARNINGS: '1', TABLE_NAME: 'bench-init' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return Number(out);
}

export async function measureColdStart(rounds: number, root = resolve(__dirname, '../..')): Promise<ColdStartReport> {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    const names = [BASELINE, ...FUNCTIONS];
    const built = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await bundle(root, outdir, name)] as const)));
    const size = (name: string) => statSync(built[name].file).size;
    const bundles: Record<string, BundleReport> = {};
    for (const name of names) {
      bundles[name] = {
        bytes: size(name),
        gzip_bytes: gzipSync(readFileSync(built[name].file)).length,
        composition: composition(built[name].metafile),
        ratio_to_baseline: round(size(name) / size(BASELINE), 3),
      };
    }
    // Interleaved rounds, so that a slow moment of the machine hits every bundle alike.
    const runs: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    initMs(built[BASELINE].file); // the first process of a series pays for cold file caches
    for (let r = 0; r < rounds; r++) for (const name of names) runs[name].push(initMs(built[name].file));
    const baseline = median(runs[BASELINE]);
    const init_ms = Object.fromEntries(
      names.map((name) => [name, { median: round(median(runs[name])), runs: runs[name].map((ms) => round(ms) ?? 0), ratio_to_baseline: round(median(runs[name]) / baseline, 3) }]),
    );
    return { bundles, init_ms, rounds };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
