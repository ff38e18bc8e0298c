/**
 * Webhook matching and delivery as synthesized (docs/adr/0028-webhook-delivery.md): the table's
 * stream, the matching function fed by the pointer item's writes only, the queue and its
 * dead-letter queue, the sending function's batch and partial failures, the alarms, and least
 * privilege: matching never reads a secret, sending never reads served data, keys or users.
 */
import { Match } from 'aws-cdk-lib/assertions';
import {
  apiKeyKey,
  pointerKey,
  userKey,
  webhookDeliveryKey,
  webhookKey,
  webhookReferenceKey,
  webhookSecretKey,
} from '../../../shared/data/keys';
import { type Fixture, synth } from './app-fixture';

let dev: Fixture;

beforeAll(() => {
  dev = synth('dev');
});

const resourceOf = (fixture: Fixture, logicalId: string) => fixture.template.toJSON().Resources[logicalId];

interface Statement {
  Effect: string;
  Action: string | string[];
  Condition?: Record<string, Record<string, string[]>>;
}

/** Whether a role's statements allow `action` on a partition key (StringLike on LeadingKeys; no condition: any). */
function allows(fixture: Fixture, role: Parameters<Fixture['logicalId']>[0], action: string, pk: string): boolean {
  const id = fixture.logicalId(role);
  const policies = Object.values(fixture.template.findResources('AWS::IAM::Policy')).filter((p) =>
    (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === id),
  );
  const statements: Statement[] = policies.flatMap((p) => p.Properties.PolicyDocument.Statement);
  return statements.some((s) => {
    const actions = Array.isArray(s.Action) ? s.Action : [s.Action];
    if (s.Effect !== 'Allow' || !actions.includes(action)) return false;
    const keys = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
    if (!keys) return true;
    return keys.some((pattern) =>
      new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(pk),
    );
  });
}

describe('webhooks', () => {
  it('streams both images of the table and feeds matching the pointer item only', () => {
    dev.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
    });
    const pointer = pointerKey();
    dev.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: dev.logicalId(dev.stack.webhooks.matchFunction.fn) },
      StartingPosition: 'LATEST',
      FilterCriteria: {
        Filters: [
          { Pattern: JSON.stringify({ dynamodb: { Keys: { PK: { S: [pointer.PK] }, SK: { S: [pointer.SK] } } } }) },
        ],
      },
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
    // Matching is CPU-bound: a whole vCPU (ADR 0028, "Costs").
    expect(resourceOf(dev, dev.logicalId(dev.stack.webhooks.matchFunction.fn)).Properties.MemorySize).toBe(1769);
  });

  it('queues deliveries with a dead-letter queue, encrypted, and sends them in batches with partial failures', () => {
    const queue = resourceOf(dev, dev.logicalId(dev.stack.webhooks.queue)).Properties;
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dev.logicalId(dev.stack.webhooks.deadLetterQueue), 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(queue.VisibilityTimeout).toBe(180);
    dev.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: dev.logicalId(dev.stack.webhooks.sendFunction.fn) },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    dev.template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: Match.absent(),
      Timeout: 30,
      Environment: {
        Variables: Match.objectLike({ WEBHOOK_QUEUE_URL: { Ref: dev.logicalId(dev.stack.webhooks.queue) } }),
      },
    });
  });

  it('alarms on dead letters, failed deliveries, disabled subscriptions and function errors', () => {
    const names = dev.stack.webhooks.alarms.map((a) => resourceOf(dev, dev.logicalId(a)).Properties.AlarmName);
    expect(names).toEqual([
      'MarketData-dev-WebhookDeadLetters',
      'MarketData-dev-WebhookDeliveriesFailed',
      'MarketData-dev-WebhookSubscriptionsDisabled',
      'MarketData-dev-WebhookMatchErrors',
      'MarketData-dev-WebhookSendErrors',
    ]);
  });

  it('grants each function only its own partitions', () => {
    const id = 'wh_0123456789abcdef0123';
    const match = dev.stack.webhooks.matchFunction.role;
    const send = dev.stack.webhooks.sendFunction.role;
    expect([
      allows(dev, match, 'dynamodb:GetItem', pointerKey().PK),
      allows(dev, match, 'dynamodb:Query', webhookKey('earn', id).PK),
      allows(dev, match, 'dynamodb:BatchWriteItem', webhookReferenceKey('earn', 0, 0).PK),
      allows(dev, match, 'dynamodb:BatchWriteItem', webhookDeliveryKey(id, 'msg_1').PK),
      allows(dev, match, 'dynamodb:GetItem', webhookSecretKey(id).PK),
      allows(dev, match, 'dynamodb:GetItem', apiKeyKey('a'.repeat(64)).PK),
      allows(dev, match, 'dynamodb:GetItem', userKey('u1').PK),
    ]).toEqual([true, true, true, true, false, false, false]);
    expect([
      allows(dev, send, 'dynamodb:GetItem', webhookSecretKey(id).PK),
      allows(dev, send, 'dynamodb:PutItem', webhookDeliveryKey(id, 'msg_1').PK),
      allows(dev, send, 'dynamodb:UpdateItem', webhookKey('earn', id).PK),
      allows(dev, send, 'dynamodb:GetItem', pointerKey().PK),
      allows(dev, send, 'dynamodb:GetItem', apiKeyKey('a'.repeat(64)).PK),
      allows(dev, send, 'dynamodb:PutItem', webhookKey('earn', id).PK),
    ]).toEqual([true, true, true, false, false, false]);
  });
});
