/**
 * Four suites: `unit` (no embedded database, no sockets: seconds), `heavy` (the unit tests that take
 * long, the `*.heavy.test.ts` files of test/unit: properties of many runs, round-trips of large
 * inputs, the data-file refusals), `stack` (CDK assertions on the synthesized template) and
 * `integration` (the real handlers on the embedded DynamoDB, the local gateway, the browser).
 * `npm test` runs all four; `npm run test:unit` the first. Property tests' run counts come from
 * one setting, PROPERTY_RUNS (test/helpers/property.ts).
 * Log lines of the code under test are dropped unless TEST_LOGS=1 (test/setup-quiet.ts).
 * `npm run test:coverage` (and .ci/run) add the coverage report of the application code, with its floor.
 * @type {import('jest').Config}
 */
const { availableParallelism } = require('node:os');

/** The application's code: what deploys, the local stack and the client (not tooling, tests or examples). */
const collectCoverageFrom = ['{bin,lib,functions,shared,local,client}/**/*.ts', '!client/api-types.ts'];
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  // middy is ESM-only: transform it to CommonJS like our own sources.
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  // The bundles in cdk.out are loaded as deployed (LOCAL_BUNDLES, test/helpers/bundles.ts), untransformed.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)', '/cdk\\.out/'],
  setupFiles: ['<rootDir>/test/setup-env.js'],
  setupFilesAfterEnv: ['<rootDir>/test/setup-quiet.ts'],
  collectCoverageFrom,
  // V8's own counters: no instrumenting transform of the sources.
  coverageProvider: 'v8',
  // V8 coverage started once per worker, not once per file (test/coverage-runtime.js): half the CPU.
  runtime: '<rootDir>/test/coverage-runtime.js',
};

module.exports = {
  testTimeout: 60000,
  // Jest's default is one worker per core less one, leaving a core to its parent process, which does
  // little: on 2 cores that is one test file at a time. Two workers use both cores.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // The slow suites' files first when jest has no timings (a fresh clone): test/sequencer.js.
  testSequencer: '<rootDir>/test/sequencer.js',
  collectCoverageFrom,
  coverageProvider: 'v8',
  coverageReporters: ['text-summary', 'json-summary', 'lcov'],
  // The floor, as the most uncovered entities allowed (jest reads a negative threshold so): CI's whole
  // suite on 2026-11-29 (05:25 UTC, after the data wing, packed history and webhooks merged) left 135
  // statements and lines, 318 branches and 14 functions of the application code uncovered (99.36 % of
  // 21,259 statements); the floor is those with a little room. Branches are still debt, named in the
  // issues' notes: bring them back to 260.
  // Counts, not percentages (docs/adr/0020): the coverage is binary (test/coverage-runtime.js), and
  // V8 then reports fewer covered branches than with exact counts but the same uncovered ones. Every
  // count is below what the percentages before allowed (168 statements and lines, 356 branches, 29
  // functions). Allow fewer when coverage rises; never allow more to pass.
  coverageThreshold: { global: { statements: -125, branches: -320, functions: -15, lines: -125 } },
  projects: [
    {
      ...shared,
      displayName: 'unit',
      roots: ['<rootDir>/test/unit'],
      testPathIgnorePatterns: ['/test/unit/lib/', '\\.heavy\\.test\\.ts$'],
    },
    { ...shared, displayName: 'heavy', roots: ['<rootDir>/test/unit'], testMatch: ['**/*.heavy.test.ts'] },
    { ...shared, displayName: 'stack', roots: ['<rootDir>/test/unit/lib'] },
    { ...shared, displayName: 'integration', roots: ['<rootDir>/test/integration', '<rootDir>/test/browser'] },
  ],
};
