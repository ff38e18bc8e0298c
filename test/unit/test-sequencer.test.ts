/**
 * The order jest starts test files in (test/sequencer.js): untimed files by suite, the slow suites
 * first, largest first within one; files jest has timed keep its order, slowest first, after them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SlowSuitesFirst = require('../sequencer');

let cacheDirectory: string;
beforeEach(() => {
  cacheDirectory = mkdtempSync(join(tmpdir(), 'sequencer-'));
});
afterEach(() => rmSync(cacheDirectory, { recursive: true, force: true }));

/** Jest's test objects: one context (its cache of timings) per suite, file sizes from its file system. */
function testsOf(files: { path: string; suite: string; size: number }[]) {
  const contexts = new Map<string, unknown>();
  const context = (suite: string) => {
    if (!contexts.has(suite))
      contexts.set(suite, {
        config: {
          id: `id-${suite}`,
          cache: true,
          cacheDirectory,
          displayName: { name: suite },
          haste: {},
          rootDir: '/repo',
        },
        hasteFS: { getSize: (path: string) => files.find((f) => f.path === path)!.size },
      });
    return contexts.get(suite);
  };
  return files.map((f) => ({ path: f.path, context: context(f.suite) }));
}

const FILES = [
  { path: '/repo/test/unit/big.test.ts', suite: 'unit', size: 9_000 },
  { path: '/repo/test/unit/small.test.ts', suite: 'unit', size: 1_000 },
  { path: '/repo/test/unit/lib/stack.test.ts', suite: 'stack', size: 5_000 },
  { path: '/repo/test/unit/p.heavy.test.ts', suite: 'heavy', size: 2_000 },
  { path: '/repo/test/integration/small.test.ts', suite: 'integration', size: 500 },
  { path: '/repo/test/integration/big.test.ts', suite: 'integration', size: 8_000 },
];
const order = (tests: { path: string }[]) => tests.map((t) => t.path.replace('/repo/test/', ''));

it('starts untimed files (a fresh clone) suite by suite, the slow suites first, largest first within one', () => {
  expect(order(new SlowSuitesFirst({}).sort(testsOf(FILES)))).toEqual([
    'integration/big.test.ts',
    'integration/small.test.ts',
    'unit/p.heavy.test.ts',
    'unit/lib/stack.test.ts',
    'unit/big.test.ts',
    'unit/small.test.ts',
  ]);
});

it('keeps jest’s order for the files it has timed: slowest first, after the untimed ones', () => {
  const timed = testsOf(FILES);
  const ran = (path: string, runtime: number) => ({ testFilePath: path, numFailingTests: 0, perfStats: { runtime } });
  // A run of three files records their times in jest's cache.
  new SlowSuitesFirst({}).cacheResults(timed, {
    testResults: [
      ran('/repo/test/unit/small.test.ts', 9_000),
      ran('/repo/test/integration/big.test.ts', 1_000),
      ran('/repo/test/unit/lib/stack.test.ts', 4_000),
    ],
  });

  expect(order(new SlowSuitesFirst({}).sort(testsOf(FILES)))).toEqual([
    'integration/small.test.ts',
    'unit/p.heavy.test.ts',
    'unit/big.test.ts',
    'unit/small.test.ts',
    'unit/lib/stack.test.ts',
    'integration/big.test.ts',
  ]);
});
