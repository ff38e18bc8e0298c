/**
 * Cold start: each function bundled as the stack bundles it (the esbuild options of lib/bundling.ts,
 * which the stack's functions use too: CJS, node22, minified, the AWS SDK inside, ESM entry points
 * first, credentials from the environment only), against a bundle that holds only the DynamoDB
 * document client, built with the same options; then the module
 * initialisation time of each bundle in a fresh Node process (the `require` alone), and the time
 * to its first answer (the `require` and one request against an embedded DynamoDB), medians over
 * interleaved rounds. `compareColdStart` measures a git commit's functions against the working tree.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { BUNDLE_OPTIONS } from '../../lib/bundling';
import { ensureTable, startEmbeddedDynamo } from '../../local/embedded-dynamodb';
import { apiEvent } from '../../local/events';
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
  /**
   * Init and the first request together, in a fresh process, against an embedded DynamoDB (an
   * empty table: the quota writes, the pointer read, an answer): what moves between module load
   * and the first request (clients, schemas) counts once, wherever it happens.
   */
  first_answer_ms: Record<string, { median: number | null; runs: number[] }>;
  rounds: number;
}

/** The first request each function answers in the first-answer series. */
const FIRST_REQUEST: Partial<Record<(typeof FUNCTIONS)[number], string>> = {
  platforms: '/api/v1/exchanges?limit=5',
  currencies: '/api/v1/currencies?limit=5',
  offers: '/api/v1/earn?limit=5',
  history: '/api/v1/earn/1/history',
  usage: '/api/v1/usage',
};
const FIRST_ANSWER_TABLE = 'bench-first-answer';
const run = promisify(execFile);

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

/** esbuild options as lib/bundling.ts exports them: read-only, and any of them absent in an older tree's. */
type BundleOptions = Omit<BuildOptions, 'external' | 'mainFields' | 'alias'> & {
  readonly external?: readonly string[];
  readonly mainFields?: readonly string[];
  readonly alias?: Readonly<Record<string, string>>;
};

/**
 * The esbuild options a tree's functions deploy with: its own lib/bundling.ts when it has one
 * (required from the tree, under tsx like the benchmark), else the options the stack gave
 * NodejsFunction before that module existed. Those are today's without the credentials alias:
 * CJS, node22, minified, no source contents, nothing external, ESM entry points first (checked
 * against lib/constructs/api-function.ts of 93b8a19).
 */
function bundleOptionsOf(tree: string): BundleOptions {
  const file = join(tree, 'lib', 'bundling.ts');
  if (existsSync(file)) return (require(file) as { BUNDLE_OPTIONS: BundleOptions }).BUNDLE_OPTIONS;
  const { alias: _alias, ...before } = BUNDLE_OPTIONS;
  return before;
}

async function bundle(
  root: string,
  outdir: string,
  name: string,
  options: BundleOptions = BUNDLE_OPTIONS,
): Promise<{ file: string; metafile: Metafile }> {
  const file = join(outdir, `${name}.js`);
  // The stack's esbuild options (lib/bundling.ts, or a compared tree's own); source maps are a stage setting, off here.
  const common: BuildOptions = {
    ...options,
    external: [...(options.external ?? [])],
    mainFields: options.mainFields && [...options.mainFields],
    alias: options.alias && { ...options.alias },
    outfile: file,
    metafile: true,
    logLevel: 'error',
    absWorkingDir: root,
  };
  const result =
    name === BASELINE
      ? await build({
          ...common,
          stdin: { contents: DOCCLIENT_ONLY, resolveDir: root, loader: 'ts', sourcefile: `${BASELINE}.ts` },
        })
      : await build({ ...common, entryPoints: [join(root, 'functions', name, 'handler.ts')] });
  return { file, metafile: result.metafile! };
}

/**
 * What Lambda's runtime has put in place before a module loads: a streamed function's bundle wraps
 * its handler with `awslambda.streamifyResponse` at load (ADR 0014). Stand-ins, set before the
 * timing starts: the wrapped handler is called as `(event, context)` and answers into a stream that
 * discards the bytes, resolving once the handler has written them all.
 */
const LAMBDA_RUNTIME_GLOBAL = [
  'globalThis.awslambda ??= {};',
  'awslambda.HttpResponseStream ??= { from: (stream) => stream };',
  "awslambda.streamifyResponse ??= (h) => (event, context) => { const { Writable } = require('node:stream');",
  'return h(event, new Writable({ write(chunk, encoding, done) { done(); } }), context); };',
].join(' ');

/** Milliseconds `require(file)` takes in a fresh process. */
function initMs(file: string): number {
  const script = `${LAMBDA_RUNTIME_GLOBAL} const { performance } = require('node:perf_hooks'); const t = performance.now(); require(${JSON.stringify(file)}); process.stdout.write(String(performance.now() - t));`;
  const out = execFileSync(process.execPath, ['-e', script], {
    // The composition root reads its configuration when the module loads, as in Lambda.
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', NODE_NO_WARNINGS: '1', TABLE_NAME: 'bench-init' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return Number(out);
}

/** Init of each bundle (keyed by any label) in interleaved rounds, so that a slow moment of the machine hits every bundle alike. */
function interleavedInits(files: Record<string, string>, rounds: number): Record<string, number[]> {
  const keys = Object.keys(files);
  const runs: Record<string, number[]> = Object.fromEntries(keys.map((key) => [key, []]));
  initMs(files[keys[0]]); // the first process of a series pays for cold file caches
  for (let r = 0; r < rounds; r++) for (const key of keys) runs[key].push(initMs(files[key]));
  return runs;
}

/** Milliseconds from `require(file)` to the handler's first answer, in a fresh process. */
async function firstAnswerMs(file: string, path: string, endpoint: string, round: number): Promise<number> {
  const event = apiEvent(path, { keyId: `bench-first-${round}`, perMinute: 1_000_000_000, perMonth: 1_000_000_000 });
  const script = `${LAMBDA_RUNTIME_GLOBAL} const { performance } = require('node:perf_hooks'); const t = performance.now(); const m = require(${JSON.stringify(file)});
Promise.resolve(m.handler(${JSON.stringify(event)}, {})).then(() => process.stdout.write('\\n' + String(performance.now() - t)));`;
  // Asynchronous: the embedded DynamoDB answers from this process meanwhile.
  const { stdout } = await run(process.execPath, ['-e', script], {
    env: {
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'us-east-1',
      NODE_NO_WARNINGS: '1',
      TABLE_NAME: FIRST_ANSWER_TABLE,
      DYNAMODB_ENDPOINT: endpoint,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return Number(stdout.trim().split('\n').pop());
}

/**
 * The first-answer series: each bundle of `files` (keyed by any label) with the first request of
 * its function, in interleaved rounds, against one embedded DynamoDB.
 */
async function measureFirstAnswers(
  files: Record<string, { file: string; fn: string }>,
  rounds: number,
): Promise<ColdStartReport['first_answer_ms']> {
  const dynamo = await startEmbeddedDynamo();
  try {
    await ensureTable(dynamo.endpoint, FIRST_ANSWER_TABLE);
    const keys = Object.keys(files).filter(
      (key) => FIRST_REQUEST[files[key].fn as keyof typeof FIRST_REQUEST] !== undefined,
    );
    const runs: Record<string, number[]> = Object.fromEntries(keys.map((key) => [key, []]));
    for (let r = 0; r < rounds; r++) {
      for (const key of keys)
        runs[key].push(
          await firstAnswerMs(
            files[key].file,
            FIRST_REQUEST[files[key].fn as keyof typeof FIRST_REQUEST]!,
            dynamo.endpoint,
            r,
          ),
        );
    }
    return Object.fromEntries(
      keys.map((key) => [key, { median: round(median(runs[key])), runs: runs[key].map((ms) => round(ms) ?? 0) }]),
    );
  } finally {
    await dynamo.close();
  }
}

/** Every function bundled as the stack bundles it, into `outdir`: its file and sizes against the baseline's. */
async function buildBundles(
  root: string,
  outdir: string,
): Promise<{ files: Record<string, string>; bundles: Record<string, BundleReport> }> {
  const names = [BASELINE, ...FUNCTIONS];
  const built = Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await bundle(root, outdir, name)] as const)),
  );
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
  return { files: Object.fromEntries(names.map((name) => [name, built[name].file])), bundles };
}

/** The bundles' sizes alone (the quick bench: bytes do not depend on the machine's load). */
export async function measureBundles(root = resolve(__dirname, '../..')): Promise<ColdStartReport['bundles']> {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    return (await buildBundles(root, outdir)).bundles;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

export async function measureColdStart(rounds: number, root = resolve(__dirname, '../..')): Promise<ColdStartReport> {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    const { files, bundles } = await buildBundles(root, outdir);
    const names = Object.keys(files);
    const runs = interleavedInits(files, rounds);
    const baseline = median(runs[BASELINE]);
    const init_ms = Object.fromEntries(
      names.map((name) => [
        name,
        {
          median: round(median(runs[name])),
          runs: runs[name].map((ms) => round(ms) ?? 0),
          ratio_to_baseline: round(median(runs[name]) / baseline, 3),
        },
      ]),
    );
    const first_answer_ms = await measureFirstAnswers(
      Object.fromEntries(names.map((name) => [name, { file: files[name], fn: name }])),
      rounds,
    );
    return { bundles, init_ms, first_answer_ms, rounds };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- --against REF`: the functions of a git commit against the working tree, each
 * built with its own tree's esbuild options (`bundleOptionsOf`: today's would give the old code
 * today's credentials alias and hide what it changed), measured interleaved on the same machine:
 * bundle bytes, init and first answer (docs/performance.md, "Cold start, throughput, mix"). A Markdown table.
 */
export async function compareColdStart(
  ref: string,
  rounds: number,
  root = resolve(__dirname, '../..'),
): Promise<string> {
  const then = join(mkdtempSync(join(tmpdir(), 'bench-then-')), 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', then, ref], { cwd: root, stdio: 'ignore' });
  const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
  try {
    symlinkSync(join(root, 'node_modules'), join(then, 'node_modules'));
    const trees = { then, now: root } as const;
    const names = FUNCTIONS.filter((name) => existsSync(join(then, 'functions', name, 'handler.ts')));
    const files: Record<string, string> = {};
    for (const [tree, treeRoot] of Object.entries(trees)) {
      mkdirSync(join(outdir, tree));
      const options = bundleOptionsOf(treeRoot);
      for (const name of names)
        files[`${tree}:${name}`] = (await bundle(treeRoot, join(outdir, tree), name, options)).file;
    }
    const keys = Object.keys(files);
    const init = interleavedInits(files, rounds);
    const first = await measureFirstAnswers(
      Object.fromEntries(keys.map((key) => [key, { file: files[key], fn: key.split(':')[1] }])),
      rounds,
    );
    const kb = (key: string) => (statSync(files[key]).size / 1024).toFixed(1);
    const ms = (runs: number[]) => String(round(median(runs)));
    const answer = (key: string) => String(first[key]?.median ?? '–');
    return [
      `Cold start, ${ref} → working tree (KB of 1,024 bytes; ms: median of ${rounds} interleaved rounds)`,
      '',
      '| bundle | KB | init ms | first answer ms |',
      '|---|---|---|---|',
      ...names.map(
        (name) =>
          `| ${name} | ${kb(`then:${name}`)} → ${kb(`now:${name}`)} | ${ms(init[`then:${name}`])} → ${ms(init[`now:${name}`])} | ${answer(`then:${name}`)} → ${answer(`now:${name}`)} |`,
      ),
    ].join('\n');
  } finally {
    rmSync(outdir, { recursive: true, force: true });
    execFileSync('git', ['worktree', 'remove', '--force', then], { cwd: root, stdio: 'ignore' });
  }
}
