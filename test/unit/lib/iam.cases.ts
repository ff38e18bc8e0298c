import { Match } from 'aws-cdk-lib/assertions';
import {
  apiKeyKey,
  documentBlockKey,
  historyJournalKey,
  historyPartition,
  indexSegmentKey,
  manifestPartition,
  pointerKey,
  quotaKey,
  sourcePartition,
  userKey,
  userKeyRefKey,
  userWebhookRefKey,
  webhookDeliveryPartition,
  webhookKey,
  webhookReferenceKey,
  webhookSecretKey,
} from '../../../shared/data/keys';
import { type Fixture, synth } from './app-fixture';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** IAM's StringLike: `*` is any run of characters, `?` one character. */
const stringLike = (pattern: string, value: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(value);

/**
 * IAM's decision for one request with one partition key value (`dynamodb:LeadingKeys`; for an
 * index query, the index's partition key value): an explicit Deny wins, else any Allow.
 */
function decide(statements: Statement[], action: string, resource: unknown, leadingKey: string): boolean {
  let allowed = false;
  for (const statement of statements) {
    const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
    if (!actionsOf(statement).includes(action)) continue;
    if (!resources.some((r) => JSON.stringify(r) === JSON.stringify(resource))) continue;
    const holds = Object.entries(statement.Condition ?? {}).every(([operator, keys]) =>
      Object.entries(keys).every(([key, patterns]) => {
        if (key !== 'dynamodb:LeadingKeys' || !/^For(All|Any)Values?:StringLike$/.test(operator)) {
          throw new Error(`no evaluation for ${operator} ${key}`);
        }
        return ([] as string[]).concat(patterns as string[]).some((pattern) => stringLike(pattern, leadingKey));
      }),
    );
    if (!holds) continue;
    if (statement.Effect === 'Deny') return false;
    allowed = true;
  }
  return allowed;
}

/** The statements of the policies attached to the role of one function. */
function statementsOf(fixture: Fixture, roleId: string): Statement[] {
  const policies = fixture.template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleId }]) },
  });
  return Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

describe.each(['dev', 'prod'])('IAM in %s', (stage) => {
  let fixture: Fixture;
  let tableId: string;

  beforeAll(() => {
    fixture = synth(stage);
    tableId = fixture.logicalId(fixture.stack.table.table);
  });

  it('never grants Action "*" or a service-wide wildcard', () => {
    const all = Object.values(fixture.template.findResources('AWS::IAM::Policy')).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as Statement[],
    );
    for (const statement of all) {
      for (const action of actionsOf(statement)) expect(action).not.toMatch(/(^\*$)|(:\*$)/);
    }
  });

  it('lets the usage function get and update QUOTA# items and nothing else on the table', () => {
    const statements = statementsOf(fixture, fixture.logicalId(fixture.stack.functions.usage.role)).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('dynamodb:')),
    );

    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['QUOTA#*'] } },
      },
    ]);
  });

  it('lets serving functions read only the served partitions, on the table and by index partition', () => {
    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const indexArn = { 'Fn::Join': ['', [tableArn, '/index/*']] };
    const v = '20260101T000000Z';
    const served: [string, unknown, string][] = [
      ['dynamodb:GetItem', tableArn, pointerKey().PK],
      ['dynamodb:GetItem', tableArn, indexSegmentKey(v, 0).PK],
      ['dynamodb:GetItem', tableArn, documentBlockKey('0f'.repeat(16)).PK],
      ['dynamodb:BatchGetItem', tableArn, documentBlockKey('0f'.repeat(16)).PK],
      ['dynamodb:Query', tableArn, historyPartition('borrow', 7)],
      ['dynamodb:UpdateItem', tableArn, quotaKey('k1', '202601').PK],
    ];
    const refused: [string, unknown, string][] = [
      ['dynamodb:GetItem', tableArn, apiKeyKey('a'.repeat(64)).PK],
      ['dynamodb:GetItem', tableArn, userKey('u1').PK],
      ['dynamodb:Query', tableArn, userKeyRefKey('u1', 'k1').PK],
      ['dynamodb:Query', indexArn, userKey('u1').PK],
      ['dynamodb:Query', tableArn, sourcePartition(v, 'exchanges')],
      ['dynamodb:Query', indexArn, sourcePartition(v, 'exchanges')],
      ['dynamodb:GetItem', tableArn, sourcePartition(v, 'exchanges')],
      ['dynamodb:Query', tableArn, manifestPartition(v)],
      ['dynamodb:GetItem', tableArn, historyJournalKey(0, 0).PK],
      ['dynamodb:BatchGetItem', tableArn, sourcePartition(v, 'earn_offers')],
      ['dynamodb:BatchGetItem', tableArn, userKey('u1').PK],
      ['dynamodb:Scan', tableArn, indexSegmentKey(v, 0).PK],
      ['dynamodb:UpdateItem', tableArn, documentBlockKey('0f'.repeat(16)).PK],
      ['dynamodb:PutItem', tableArn, quotaKey('k1', '202601').PK],
    ];
    const { usage, webhooks } = fixture.stack.functions;
    for (const fn of Object.values(fixture.stack.functions).filter((f) => f !== usage && f !== webhooks)) {
      const statements = statementsOf(fixture, fixture.logicalId(fn.role));

      for (const [action, resource, key] of served)
        expect([action, key, decide(statements, action, resource, key)]).toEqual([action, key, true]);
      for (const [action, resource, key] of refused)
        expect([action, key, decide(statements, action, resource, key)]).toEqual([action, key, false]);
      // The table has no secondary index (docs/adr/0009-one-index-per-family-version.md): no index ARN at all.
      const onTable = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:')));
      expect(onTable.flatMap((s) => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]))).toEqual(
        onTable.map(() => tableArn),
      );
      const actions = statements.flatMap(actionsOf).filter((a) => a.startsWith('dynamodb:'));
      for (const forbidden of ['PutItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems', 'Scan']) {
        expect(actions).not.toContain(`dynamodb:${forbidden}`);
      }
    }
  });

  it("lets the webhooks function read users' subscriptions and deliveries, never a secret, a reference or served data", () => {
    const statements = statementsOf(fixture, fixture.logicalId(fixture.stack.functions.webhooks.role));
    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const allowed: [string, string][] = [
      ['dynamodb:Query', userWebhookRefKey('u1', 'wh_0123456789abcdef0123').PK],
      ['dynamodb:BatchGetItem', webhookKey('earn', 'wh_0123456789abcdef0123').PK],
      ['dynamodb:Query', webhookDeliveryPartition('wh_0123456789abcdef0123')],
      ['dynamodb:UpdateItem', quotaKey('k1', '202601').PK],
    ];
    const refused: [string, string][] = [
      ['dynamodb:GetItem', webhookSecretKey('wh_0123456789abcdef0123').PK],
      ['dynamodb:GetItem', webhookReferenceKey('earn', 0, 0).PK],
      ['dynamodb:GetItem', apiKeyKey('a'.repeat(64)).PK],
      ['dynamodb:GetItem', pointerKey().PK],
      ['dynamodb:PutItem', webhookKey('earn', 'wh_0123456789abcdef0123').PK],
    ];
    for (const [action, key] of allowed)
      expect([action, key, decide(statements, action, tableArn, key)]).toEqual([action, key, true]);
    for (const [action, key] of refused)
      expect([action, key, decide(statements, action, tableArn, key)]).toEqual([action, key, false]);
  });

  it('lets the authorizer GetItem key and user items and nothing else on the table', () => {
    const statements = statementsOf(fixture, fixture.logicalId(fixture.stack.authorizer.role)).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('dynamodb:')),
    );

    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['KEY#*', 'USER#*'] } },
      },
    ]);
  });

  it('lets the authorizer read the pepper parameter and decrypt it through SSM only, when the stage has one', () => {
    const pepperStatements = (f: Fixture) =>
      statementsOf(f, f.logicalId(f.stack.authorizer.role)).filter((s) =>
        actionsOf(s).some((a) => /^(ssm|kms):/.test(a)),
      );
    if (stage !== 'prod') {
      expect(pepperStatements(fixture)).toEqual([]);
      return;
    }
    const parameterArn = {
      'Fn::Join': [
        '',
        [
          'arn:',
          { Ref: 'AWS::Partition' },
          ':ssm:',
          { Ref: 'AWS::Region' },
          ':',
          { Ref: 'AWS::AccountId' },
          ':parameter/market-data/prod/key-pepper',
        ],
      ],
    };
    expect(pepperStatements(fixture)).toEqual([
      { Effect: 'Allow', Action: 'ssm:GetParameter', Resource: parameterArn },
      {
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':kms:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':key/*',
            ],
          ],
        },
        Condition: {
          StringEquals: {
            'kms:ViaService': { 'Fn::Join': ['', ['ssm.', { Ref: 'AWS::Region' }, '.amazonaws.com']] },
            'kms:EncryptionContext:PARAMETER_ARN': parameterArn,
          },
        },
      },
    ]);
    // No other function may read it.
    for (const fn of [
      ...Object.values(fixture.stack.functions),
      fixture.stack.docs,
      fixture.stack.ingest.function,
      fixture.stack.freshness.function,
    ]) {
      expect(
        statementsOf(fixture, fixture.logicalId(fn.role))
          .flatMap(actionsOf)
          .filter((a) => /^(ssm|kms):/.test(a)),
      ).toEqual([]);
    }
  });

  it('lets the ingest function import (snapshots, the pointer, its lease) but never touch keys, users or quota counters', () => {
    const statements = statementsOf(fixture, fixture.logicalId(fixture.stack.ingest.function.role));
    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const indexArn = { 'Fn::Join': ['', [tableArn, '/index/*']] };
    const v = 'a1b2c3';
    const allowed: [string, unknown, string][] = [
      ['dynamodb:GetItem', tableArn, pointerKey().PK],
      ['dynamodb:PutItem', tableArn, pointerKey().PK],
      ['dynamodb:Query', tableArn, sourcePartition(v, 'exchanges')],
      ['dynamodb:BatchWriteItem', tableArn, indexSegmentKey(v, 0).PK],
      ['dynamodb:BatchWriteItem', tableArn, documentBlockKey('0f'.repeat(16)).PK],
      // The import's lease, whatever partition it is given (not keys, users or counters).
      ['dynamodb:UpdateItem', tableArn, 'IMPORT'],
      ['dynamodb:DeleteItem', tableArn, 'IMPORT'],
    ];
    const refused: [string, unknown, string][] = [
      ['dynamodb:GetItem', tableArn, apiKeyKey('a'.repeat(64)).PK],
      ['dynamodb:PutItem', tableArn, apiKeyKey('a'.repeat(64)).PK],
      ['dynamodb:BatchWriteItem', tableArn, userKey('u1').PK],
      ['dynamodb:DeleteItem', tableArn, userKeyRefKey('u1', 'k1').PK],
      ['dynamodb:UpdateItem', tableArn, quotaKey('k1', '202601').PK],
      ['dynamodb:Query', indexArn, indexSegmentKey(v, 0).PK],
      ['dynamodb:DeleteTable', tableArn, pointerKey().PK],
    ];

    for (const [action, resource, key] of allowed)
      expect([action, key, decide(statements, action, resource, key)]).toEqual([action, key, true]);
    for (const [action, resource, key] of refused)
      expect([action, key, decide(statements, action, resource, key)]).toEqual([action, key, false]);
  });

  it('lets the ingest function read incoming/ (by version), list its versions, write imported/, refused/ and failed/, delete under incoming/ only', () => {
    const bucketArn = { 'Fn::GetAtt': [fixture.logicalId(fixture.stack.ingest.bucket), 'Arn'] };
    const objects = (prefix: string) => ({ 'Fn::Join': ['', [bucketArn, `/${prefix}*`]] });
    const s3Statements = statementsOf(fixture, fixture.logicalId(fixture.stack.ingest.function.role)).filter((s) =>
      actionsOf(s).some((a) => a.startsWith('s3:')),
    );
    // Each (action, resource, condition) granted, however CDK merges them into statements.
    const grants = s3Statements.flatMap((s) => {
      expect(s.Effect).toBe('Allow');
      return actionsOf(s).flatMap((action) =>
        ([] as unknown[]).concat(s.Resource).map((resource) => JSON.stringify([action, resource, s.Condition ?? null])),
      );
    });

    expect(grants.sort()).toEqual(
      [
        ['s3:GetObject', objects('incoming/'), null],
        ['s3:GetObjectVersion', objects('incoming/'), null],
        ['s3:ListBucketVersions', bucketArn, { StringLike: { 's3:prefix': 'incoming/*' } }],
        ['s3:DeleteObject', objects('incoming/'), null],
        ['s3:DeleteObjectVersion', objects('incoming/'), null],
        ['s3:PutObject', objects('imported/'), null],
        ['s3:PutObject', objects('refused/'), null],
        ['s3:PutObject', objects('failed/'), null],
      ]
        .map((grant) => JSON.stringify(grant))
        .sort(),
    );
  });

  it.each([
    ['freshness', () => fixture.stack.freshness.function],
    ['docs (the data status)', () => fixture.stack.docs],
  ])('lets the %s function GetItem the snapshot pointer and nothing else', (_, fn) => {
    const statements = statementsOf(fixture, fixture.logicalId(fn().role)).filter((s) =>
      actionsOf(s).some((a) => !a.startsWith('logs:') && !a.startsWith('xray:')),
    );

    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:GetItem',
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [pointerKey().PK] } },
      },
    ]);
  });

  it('gives function roles no managed policies', () => {
    const roles = [
      ...Object.values(fixture.stack.functions),
      fixture.stack.authorizer,
      fixture.stack.ingest.function,
      fixture.stack.freshness.function,
    ].map((fn) => fixture.logicalId(fn.role));
    for (const roleId of roles) {
      expect(fixture.template.toJSON().Resources[roleId].Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe('X-Ray permissions', () => {
  it('appear only when tracing is on', () => {
    const xray = (fixture: Fixture) =>
      Object.values(fixture.template.findResources('AWS::IAM::Policy'))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
        .filter((s) => actionsOf(s).some((a) => a.startsWith('xray:')));

    expect(xray(synth('dev', { tracing: false }))).toHaveLength(0);
    expect(xray(synth('dev', { tracing: true })).length).toBeGreaterThan(0);
  });
});
