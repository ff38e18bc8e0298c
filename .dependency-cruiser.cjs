/**
 * The dependency rule (docs/architecture.md): tooling depends on the application, never the
 * reverse; inside shared/, domain → repositories → platform, one way; no cycles anywhere.
 * `npm run deps` checks it; .ci/run fails on a violation.
 */
const PLATFORM =
  '^shared/(config|decimal|dynamodb|errors|keys|logger|table|cors|gateway-responses|lambda-credentials)\\.ts$|^shared/observability/dynamo-accounting\\.ts$|^shared/schemas/constants\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle is a design question: split the shared part out.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'application-not-to-tooling',
      severity: 'error',
      comment:
        'functions/ and shared/ are what we deploy: they never import the local stack, scripts, tests, the stack or examples.',
      from: { path: '^(functions|shared)/' },
      to: { path: '^(local|scripts|test|lib|bin|examples|client)/' },
    },
    {
      name: 'shared-not-to-functions',
      severity: 'error',
      comment: 'shared/ is below the functions.',
      from: { path: '^shared/' },
      to: { path: '^functions/' },
    },
    {
      name: 'infrastructure-not-to-tooling',
      severity: 'error',
      comment: 'The CDK app reads the route table and table definition, never the local stack, scripts or tests.',
      from: { path: '^(lib|bin)/' },
      to: { path: '^(local|scripts|test|examples|client)/' },
    },
    {
      name: 'nothing-imports-tests',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'domain-not-to-http-or-import',
      severity: 'error',
      comment: 'The domain knows no HTTP shapes, middleware or import path.',
      from: { path: '^shared/domain/' },
      to: { path: '^shared/(middleware|import|http\\.ts|api-deps\\.ts|routes\\.ts|observability/metrics\\.ts)' },
    },
    {
      name: 'repositories-not-up',
      severity: 'error',
      comment: 'Repositories build DynamoDB commands; they do not call the domain, HTTP or the import.',
      from: { path: '^shared/repositories/' },
      to: { path: '^shared/(domain|middleware|import|http\\.ts|api-deps\\.ts|routes\\.ts|stores\\.ts)' },
    },
    {
      name: 'platform-not-up',
      severity: 'error',
      comment: 'Clients, keys, config, errors and logging are the bottom layer.',
      from: { path: PLATFORM },
      to: { path: '^shared/', pathNot: PLATFORM },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk\\.out|node_modules|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['cjs', 'es6'],
  },
};
