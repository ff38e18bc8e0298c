/**
 * Three suites: `unit` (no embedded database, no sockets: seconds), `stack` (CDK assertions on
 * the synthesized template) and `integration` (the real handlers on the embedded DynamoDB, the
 * local gateway, the browser). `npm test` runs all three; `npm run test:unit` the first.
 * Log lines of the code under test are dropped unless TEST_LOGS=1 (test/setup-quiet.ts).
 * @type {import('jest').Config}
 */
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  // middy is ESM-only: transform it to CommonJS like our own sources.
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  // The bundles in cdk.out are loaded as deployed (LOCAL_BUNDLES, test/helpers/bundles.ts), untransformed.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)', '/cdk\\.out/'],
  setupFiles: ['<rootDir>/test/setup-env.js'],
  setupFilesAfterEnv: ['<rootDir>/test/setup-quiet.ts'],
};

module.exports = {
  testTimeout: 60000,
  projects: [
    { ...shared, displayName: 'unit', roots: ['<rootDir>/test/unit'], testPathIgnorePatterns: ['/test/unit/lib/'] },
    { ...shared, displayName: 'stack', roots: ['<rootDir>/test/unit/lib'] },
    { ...shared, displayName: 'integration', roots: ['<rootDir>/test/integration', '<rootDir>/test/browser'] },
  ],
};
