/**
 * The dependency rule (docs/architecture.md): tooling depends on the application, never the
 * reverse; tools/ hold what the entry points of scripts/ run, and each tool its own rule; inside shared/, each folder is one layer and imports only the folders below it
 * (webhooks on top, then http and import side by side, then domain, accounts, data, model, platform); no cycles anywhere.
 * `npm run deps` checks it; .ci/run fails on a violation.
 */
/** The layer folders of shared/, top first. */
const LAYERS = '(webhooks|http|import|domain|accounts|data|model|platform)';

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
      to: { path: '^(local|scripts|tools|test|lib|bin|examples|client)/' },
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
      to: { path: '^(local|scripts|tools|test|examples|client)/' },
    },
    {
      name: 'entries-are-leaves',
      severity: 'error',
      comment:
        'A script is a thin entry point (STYLE rule 25): what it runs lives in tools/; only tests import an entry.',
      from: { pathNot: '^(scripts|test)/' },
      to: { path: '^scripts/' },
    },
    {
      name: 'sample-data-alone',
      severity: 'error',
      comment:
        'The sample data generator (tools/sample-data) needs the dataset declarations only: no other tool, no local stack, no stack.',
      from: { path: '^tools/sample-data/' },
      to: { path: '^(tools/(?!sample-data/)|local/|lib/|functions/)' },
    },
    {
      name: 'openapi-from-declarations',
      severity: 'error',
      comment:
        "The description (tools/openapi) is generated from the application's declarations (routes, schemas, families) alone.",
      from: { path: '^tools/openapi/' },
      to: { path: '^(tools/(?!openapi/)|local/|lib/|functions/)' },
    },
    {
      name: 'smoke-and-keys-over-http-and-the-store',
      severity: 'error',
      comment:
        'The smoke test speaks HTTP to a stage and the key commands use the key store: neither runs the local stack or another tool (their entries start what they need).',
      from: { path: '^tools/(smoke|keys|webhooks)/' },
      to: { path: '^(tools/(bench|openapi|sample-data)/|local/|lib/|functions/)' },
    },
    {
      name: 'nothing-imports-tests',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'shared-is-layers',
      severity: 'error',
      comment: 'Each layer is a folder of shared/ and nothing sits beside them (STYLE rule 18).',
      from: { path: '^shared/', pathNot: `^shared/${LAYERS}/` },
      to: {},
    },
    {
      name: 'shared-is-layers-imported',
      severity: 'error',
      comment: 'Each layer is a folder of shared/ and nothing sits beside them (STYLE rule 18).',
      from: {},
      to: { path: '^shared/', pathNot: `^shared/${LAYERS}/` },
    },
    {
      name: 'nothing-below-to-webhooks',
      severity: 'error',
      comment:
        "Webhooks sit on top (their filters are the lists' queries); the import and the API know nothing of them: a publish is their only seam (ADR 0028).",
      from: { path: '^shared/', pathNot: '^shared/webhooks/' },
      to: { path: '^shared/webhooks/' },
    },
    {
      name: 'webhooks-not-to-import',
      severity: 'error',
      comment: 'Matching reads what a publish wrote; it never runs an import.',
      from: { path: '^shared/webhooks/' },
      to: { path: '^shared/import/' },
    },
    {
      name: 'http-not-to-import',
      severity: 'error',
      comment: 'http/ and import/ are the two tops, side by side: the API functions never run an import.',
      from: { path: '^shared/http/' },
      to: { path: '^shared/import/' },
    },
    {
      name: 'import-not-to-http',
      severity: 'error',
      comment: 'The import knows no routes, middleware or HTTP shapes.',
      from: { path: '^shared/import/' },
      to: { path: '^shared/http/' },
    },
    {
      name: 'domain-not-up',
      severity: 'error',
      comment: 'The domain knows no HTTP shapes, middleware or import path; it declares what it takes.',
      from: { path: '^shared/domain/' },
      to: { path: '^shared/(http|import)/' },
    },
    {
      name: 'accounts-not-up',
      severity: 'error',
      comment:
        'The accounts (API keys, users, quota counters) build their own DynamoDB commands over the data layer; they call no domain, HTTP or import.',
      from: { path: '^shared/accounts/' },
      to: { path: '^shared/(http|import|domain)/' },
    },
    {
      name: 'data-not-up',
      severity: 'error',
      comment:
        'The data layer builds every DynamoDB command; it does not call the accounts, the domain, HTTP or the import.',
      from: { path: '^shared/data/' },
      to: { path: '^shared/(http|import|domain|accounts)/' },
    },
    {
      name: 'model-not-up',
      severity: 'error',
      comment:
        'The declarations (offer families: fields, sorts, filters, index columns) are below every layer that derives from them.',
      from: { path: '^shared/model/' },
      to: { path: '^shared/(http|import|domain|accounts|data)/' },
    },
    {
      name: 'platform-not-up',
      severity: 'error',
      comment: 'Config, errors, logging, clients and plain values are the bottom layer.',
      from: { path: '^shared/platform/' },
      to: { path: '^shared/(http|import|domain|accounts|data|model)/' },
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
