/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // middy is ESM-only: transform it to CommonJS like our own sources.
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  testTimeout: 60000,
  setupFiles: ['<rootDir>/test/setup-env.js'],
};
