import { Match } from 'aws-cdk-lib/assertions';
import { synth, type Fixture } from './app-fixture';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

const actionsOf = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

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

  it('lets serving functions read the table and indexes and update only QUOTA# items', () => {
    for (const fn of Object.values(fixture.stack.functions).filter((f) => f !== fixture.stack.functions.usage)) {
      const statements = statementsOf(fixture, fixture.logicalId(fn.role)).filter((s) =>
        actionsOf(s).some((a) => a.startsWith('dynamodb:')),
      );
      const actions = statements.flatMap(actionsOf);

      expect(actions.sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
      for (const forbidden of ['PutItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems', 'Scan']) {
        expect(actions).not.toContain(`dynamodb:${forbidden}`);
      }
      const update = statements.find((s) => actionsOf(s).includes('dynamodb:UpdateItem'));
      expect(update).toEqual({
        Effect: 'Allow',
        Action: 'dynamodb:UpdateItem',
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['QUOTA#*'] } },
      });
      const reads = statements.find((s) => actionsOf(s).includes('dynamodb:Query'));
      expect(actionsOf(reads!)).not.toContain('dynamodb:UpdateItem');
      expect(reads!.Resource).toEqual([
        { 'Fn::GetAtt': [tableId, 'Arn'] },
        { 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId, 'Arn'] }, '/index/*']] },
      ]);
    }
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

  it('gives function roles no managed policies', () => {
    const roles = [...Object.values(fixture.stack.functions), fixture.stack.authorizer].map((fn) => fixture.logicalId(fn.role));
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
