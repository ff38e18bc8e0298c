import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';
import { ApiFunction, type ApiFunctionDefaults } from '../../../lib/constructs/api-function';
import { mergeEnvironment } from '../../../lib/constructs/stack-function';
import { handlerEntry } from '../../../lib/market-data-stack';
import { type Fixture, synth } from './app-fixture';

const defaults: ApiFunctionDefaults = {
  tableName: 'table',
  ratePerMinute: 60,
  quotaPerMonth: 100_000,
  snapshotCacheMs: 5000,
  readCacheMb: 64,
  dataMaxAgeSeconds: 86_400,
  logRetention: RetentionDays.TWO_WEEKS,
  removalPolicy: RemovalPolicy.DESTROY,
  tracing: false,
  sourceMaps: false,
};

function singleFunction(props: Partial<ApiFunctionDefaults> = {}, environment?: Record<string, string>): Template {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  const stack = new Stack(app, 'Test');
  new ApiFunction(stack, 'Fn', {
    entry: handlerEntry('offers'),
    memorySize: 640,
    defaults: { ...defaults, ...props },
    environment,
  });
  return Template.fromStack(stack);
}

describe('ApiFunction', () => {
  it('runs Node.js 22 on arm64 with 10 s, the given memory and the runtime configuration', () => {
    const template = singleFunction();

    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: 10,
      MemorySize: 640,
      Handler: 'index.handler',
      Environment: {
        Variables: {
          TABLE_NAME: 'table',
          RATE_LIMIT_PER_MINUTE: '60',
          QUOTA_PER_MONTH: '100000',
          SNAPSHOT_CACHE_MS: '5000',
          NODE_OPTIONS: Match.absent(),
          AWS_NODEJS_CONNECTION_REUSE_ENABLED: Match.absent(),
        },
      },
    });
  });

  it('merges a caller environment over the defaults without losing either', () => {
    const template = singleFunction({}, { SNAPSHOT_CACHE_MS: '0', KEY_PEPPER: 'p' });

    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: { TABLE_NAME: 'table', RATE_LIMIT_PER_MINUTE: '60', SNAPSHOT_CACHE_MS: '0', KEY_PEPPER: 'p' },
      },
    });
    expect(mergeEnvironment({ A: '1', B: '2' }, { B: '3', C: '4' })).toEqual({ A: '1', B: '3', C: '4' });
    expect(mergeEnvironment({ A: '1' })).toEqual({ A: '1' });
  });

  it('logs to its own log group with the configured retention, through its own role only', () => {
    const template = singleFunction();
    const logGroupId = Object.keys(template.findResources('AWS::Logs::LogGroup'))[0];

    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
    template.hasResourceProperties('AWS::Lambda::Function', { LoggingConfig: { LogGroup: { Ref: logGroupId } } });
    template.hasResourceProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          {
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Effect: 'Allow',
            Resource: Match.arrayWith([{ 'Fn::GetAtt': [logGroupId, 'Arn'] }]),
          },
        ],
      },
    });
  });

  it('turns on X-Ray and source maps when configured', () => {
    const template = singleFunction({ tracing: true, sourceMaps: true });

    template.hasResourceProperties('AWS::Lambda::Function', {
      TracingConfig: { Mode: 'Active' },
      Environment: { Variables: Match.objectLike({ NODE_OPTIONS: '--enable-source-maps' }) },
    });
  });

  it('leaves X-Ray off by default', () => {
    singleFunction().hasResourceProperties('AWS::Lambda::Function', { TracingConfig: Match.absent() });
  });
});

describe('the stack functions', () => {
  let dev: Fixture;

  beforeAll(() => {
    dev = synth('dev', {
      memorySizes: { history: 2048 },
      snapshotCacheMs: 250,
      readCacheMb: 16,
      ratePerMinute: 30,
      logRetentionDays: 60,
    });
  });

  it('creates one function per family plus the search, MCP, usage, authorizer and docs functions, with the configured sizes and budgets', () => {
    // And the ingest and freshness functions, and CDK's deploy-time handler of bucket notifications.
    // And the webhook functions: the owner's view among the API functions, matching and sending.
    dev.template.resourceCountIs('AWS::Lambda::Function', 15);
    const { functions, authorizer, table } = dev.stack;
    for (const [name, fn] of Object.entries(functions)) {
      dev.template.hasResourceProperties('AWS::Lambda::Function', {
        FunctionName: Match.absent(),
        Description: Match.stringLikeRegexp(`${name} routes`),
        MemorySize: { history: 2048, usage: 256, webhooks: 256 }[name] ?? 1769,
        Environment: {
          Variables: Match.objectLike({
            TABLE_NAME: { Ref: dev.logicalId(table.table) },
            RATE_LIMIT_PER_MINUTE: '30',
            SNAPSHOT_CACHE_MS: '250',
            READ_CACHE_MB: '16',
          }),
        },
      });
      expect(dev.logicalId(fn.fn)).toMatch(/^[A-Z]\w+Function/);
    }
    dev.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('authorizer'),
      MemorySize: 1769,
      Environment: { Variables: Match.objectLike({ TABLE_NAME: { Ref: dev.logicalId(table.table) } }) },
    });
    expect(authorizer.fn.runtime.name).toBe('nodejs22.x');
    dev.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('docs page'),
      MemorySize: 256,
    });
  });

  it('gives the ingest and freshness functions only their own settings: none of the API budgets or caches', () => {
    const variablesOf = (fn: { fn: IConstruct }) =>
      dev.template.toJSON().Resources[dev.logicalId(fn.fn)].Properties.Environment.Variables;
    const table = { Ref: dev.logicalId(dev.stack.table.table) };

    // The import keeps replaced versions for the stage's pointer cache (250 here), and writes with longer timeouts.
    expect(variablesOf(dev.stack.ingest.function)).toEqual({
      TABLE_NAME: table,
      SNAPSHOT_CACHE_MS: '250',
      DYNAMODB_REQUEST_TIMEOUT_MS: '30000',
      RECORD_HISTORY: 'true',
      // Where it sends an upload whose import kept failing (ADR 0023).
      INGEST_DEAD_LETTER_QUEUE_URL: { Ref: dev.logicalId(dev.stack.ingest.deadLetterQueue) },
    });
    expect(variablesOf(dev.stack.freshness.function)).toEqual({ TABLE_NAME: table });
  });

  it('gives every function a log group with the stage retention', () => {
    // Nine functions (four families, usage, authorizer, docs, ingest, freshness), the access logs and the execution logs of the stage.
    dev.template.resourceCountIs('AWS::Logs::LogGroup', 16);
    const groups = Object.values(dev.template.findResources('AWS::Logs::LogGroup'));
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(60);
  });

  it('peppers keys in prod by default, from the documented SSM parameter; no pepper in dev unless configured', () => {
    const pepperOf = (fixture: ReturnType<typeof synth>) => {
      const [authorizer] = Object.values(
        fixture.template.findResources('AWS::Lambda::Function', {
          Properties: { Description: Match.stringLikeRegexp('authorizer') },
        }),
      );
      return authorizer.Properties.Environment.Variables.KEY_PEPPER_PARAMETER;
    };

    expect(pepperOf(synth('prod'))).toBe('/market-data/prod/key-pepper');
    expect(pepperOf(synth('dev', {}))).toBeUndefined();
  });

  it('reserves the configured concurrency per function, none by default outside prod', () => {
    const reserved = (fixture: ReturnType<typeof synth>) =>
      Object.fromEntries(
        [
          ...Object.entries(fixture.stack.functions),
          ['authorizer', fixture.stack.authorizer],
          ['docs', fixture.stack.docs],
        ].map(([name, fn]) => [
          name,
          fixture.template.toJSON().Resources[fixture.logicalId((fn as typeof fixture.stack.docs).fn)].Properties
            .ReservedConcurrentExecutions,
        ]),
      );

    expect(reserved(synth('prod'))).toEqual({
      platforms: 100,
      currencies: 100,
      offers: 100,
      history: 100,
      search: 100,
      usage: 100,
      webhooks: 50,
      mcp: 100,
      authorizer: 100,
      docs: 10,
    });
    expect(Object.values(reserved(synth('dev', {})))).toEqual(Array(10).fill(undefined));
    expect(reserved(synth('dev', { reservedConcurrency: { offers: 7, docs: 2 } }))).toMatchObject({
      offers: 7,
      docs: 2,
      history: undefined,
    });
  });

  it('gives the authorizer only the name of the pepper parameter: no value in any environment or template', () => {
    const { template, logicalId, stack } = synth('dev', { keyPepperParameter: '/market-data/dev/key-pepper' });

    // No deploy-time resolution of the value: no template parameter names it.
    expect(JSON.stringify(template.toJSON().Parameters ?? {})).not.toContain('key-pepper');
    const variables = Object.entries(template.findResources('AWS::Lambda::Function')).map(
      ([id, fn]) => [id, fn.Properties.Environment?.Variables ?? {}] as const,
    );
    for (const [, vars] of variables) expect(vars.KEY_PEPPER).toBeUndefined();
    expect(variables.filter(([, vars]) => vars.KEY_PEPPER_PARAMETER !== undefined)).toEqual([
      [
        logicalId(stack.authorizer.fn),
        expect.objectContaining({ KEY_PEPPER_PARAMETER: '/market-data/dev/key-pepper' }),
      ],
    ]);
  });
});
