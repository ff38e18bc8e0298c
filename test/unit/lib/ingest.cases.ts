/**
 * The ingest path and the freshness metric as synthesized: the bucket's protections, the
 * notification filter, the queue and its dead-letter queue, one import at a time, the schedule
 * and the alarms (docs/deploy.md, "Import data" and "Alarms").
 */
import { Match } from 'aws-cdk-lib/assertions';
import { DATASET_FAMILIES } from '../../../shared/import/dataset';
import { DATA_AGE_METRIC, FAMILY_DIMENSION, METRICS_NAMESPACE } from '../../../shared/platform/metric-names';
import { type Fixture, synth } from './app-fixture';

let dev: Fixture;

beforeAll(() => {
  dev = synth('dev');
});

const alarmNamed = (fixture: Fixture, name: string) => {
  const alarms = fixture.template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: name } });
  expect(Object.keys(alarms)).toEqual([expect.any(String)]);
  return Object.values(alarms)[0].Properties;
};

const resourceOf = (fixture: Fixture, logicalId: string) => fixture.template.toJSON().Resources[logicalId];

describe('the ingest bucket', () => {
  it('is private, encrypted, versioned and owned by the account', () => {
    const bucket = resourceOf(dev, dev.logicalId(dev.stack.ingest.bucket)).Properties;

    expect(bucket.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(bucket.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
  });

  it('refuses every request without TLS (1.2 at least)', () => {
    const bucketId = dev.logicalId(dev.stack.ingest.bucket);
    const [policy] = Object.values(
      dev.template.findResources('AWS::S3::BucketPolicy', { Properties: { Bucket: { Ref: bucketId } } }),
    );
    const statements = policy.Properties.PolicyDocument.Statement as {
      Effect: string;
      Action: string;
      Condition: Record<string, unknown>;
    }[];

    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        }),
        expect.objectContaining({
          Effect: 'Deny',
          Action: 's3:*',
          Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } },
        }),
      ]),
    );
  });

  it('sends objects created under incoming/ only to the queue, in one message group, so moved files and reports never trigger an import', () => {
    const [notifications] = Object.values(dev.template.findResources('Custom::S3BucketNotifications'));
    expect(notifications.Properties.NotificationConfiguration).toEqual({ EventBridgeConfiguration: {} });
    const rule = resourceOf(dev, dev.logicalId(dev.stack.ingest.rule)).Properties;

    expect(rule.EventPattern).toEqual({
      source: ['aws.s3'],
      'detail-type': ['Object Created'],
      detail: {
        bucket: { name: [{ Ref: dev.logicalId(dev.stack.ingest.bucket) }] },
        object: { key: [{ prefix: 'incoming/' }] },
      },
    });
    expect(rule.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [dev.logicalId(dev.stack.ingest.queue), 'Arn'] },
        SqsParameters: { MessageGroupId: 'uploads' },
      }),
    ]);
  });

  it('is named in an output for `aws s3 cp`', () => {
    dev.template.hasOutput('IngestBucketName', { Value: { Ref: dev.logicalId(dev.stack.ingest.bucket) } });
  });
});

describe('the ingest queue and function', () => {
  it('hands one message at a time, in order, to a function nothing throttles: a FIFO queue of one group, no reserved concurrency', () => {
    const fnId = dev.logicalId(dev.stack.ingest.function.fn);
    const fn = resourceOf(dev, fnId).Properties;
    const [mapping] = Object.values(
      dev.template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: { Ref: fnId } } }),
    );

    expect(fn).toMatchObject({ Timeout: 300, MemorySize: 1024 });
    // A reserve below what the queue's poller invokes throttles messages, and a throttle spends a delivery.
    expect(fn.ReservedConcurrentExecutions).toBeUndefined();
    expect(mapping.Properties).toEqual({
      FunctionName: { Ref: fnId },
      EventSourceArn: { 'Fn::GetAtt': [dev.logicalId(dev.stack.ingest.queue), 'Arn'] },
      BatchSize: 1,
    });
    // One message group (above): SQS hands out its next message only when this one is done.
    expect(resourceOf(dev, dev.logicalId(dev.stack.ingest.queue)).Properties).toMatchObject({
      FifoQueue: true,
      ContentBasedDeduplication: true,
    });
  });

  it('holds a message one import (the function timeout and 30 s) and moves it to an encrypted dead-letter queue after its second delivery', () => {
    const queue = resourceOf(dev, dev.logicalId(dev.stack.ingest.queue)).Properties;
    const dlq = resourceOf(dev, dev.logicalId(dev.stack.ingest.deadLetterQueue)).Properties;

    expect(queue.VisibilityTimeout).toBe(300 + 30);
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dev.logicalId(dev.stack.ingest.deadLetterQueue), 'Arn'] },
      maxReceiveCount: 2,
    });
    expect(queue.SqsManagedSseEnabled).toBe(true);
    expect(dlq.SqsManagedSseEnabled).toBe(true);
    expect(dlq.FifoQueue).toBe(true);
    expect(dlq.MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  it('follows the stage’s timeout, memory and delivery count', () => {
    const qa = synth('qa', { ingestTimeoutSeconds: 900, ingestMemorySize: 2048, ingestMaxReceiveCount: 10 });

    expect(resourceOf(qa, qa.logicalId(qa.stack.ingest.function.fn)).Properties).toMatchObject({
      Timeout: 900,
      MemorySize: 2048,
    });
    expect(resourceOf(qa, qa.logicalId(qa.stack.ingest.queue)).Properties).toMatchObject({
      VisibilityTimeout: 930,
      RedrivePolicy: { maxReceiveCount: 10 },
    });
  });

  it('lets the function send an upload whose import kept failing to the dead-letter queue, named in its environment', () => {
    const fnId = dev.logicalId(dev.stack.ingest.function.fn);
    const dlqId = dev.logicalId(dev.stack.ingest.deadLetterQueue);
    expect(resourceOf(dev, fnId).Properties.Environment.Variables).toMatchObject({
      INGEST_DEAD_LETTER_QUEUE_URL: { Ref: dlqId },
    });
    dev.template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: dev.logicalId(dev.stack.ingest.function.role) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: Match.arrayWith(['sqs:SendMessage']),
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [dlqId, 'Arn'] },
          }),
        ]),
      },
    });
  });

  it('gives the rule’s target a retry policy and a dead-letter queue of its own, which only the rule may send to', () => {
    const eventDlqId = dev.logicalId(dev.stack.ingest.eventDeadLetterQueue);
    dev.template.hasResourceProperties('AWS::Events::Rule', {
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [dev.logicalId(dev.stack.ingest.queue), 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 10, MaximumEventAgeInSeconds: 3600 },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [eventDlqId, 'Arn'] } },
        }),
      ],
    });
    dev.template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    dev.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: eventDlqId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'events.amazonaws.com' },
            Condition: {
              ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [dev.logicalId(dev.stack.ingest.rule), 'Arn'] } },
            },
          }),
        ]),
      },
    });
  });

  it('records history from imports unless the stage turns it off (RECORD_HISTORY, CONTRACT §12)', () => {
    const variables = (fixture: Fixture) =>
      resourceOf(fixture, fixture.logicalId(fixture.stack.ingest.function.fn)).Properties.Environment.Variables;
    const off = synth('qa', { recordHistory: false });

    expect(variables(dev)).toMatchObject({ RECORD_HISTORY: 'true' });
    expect(variables(off)).toMatchObject({ RECORD_HISTORY: 'false' });
  });

  it('allows EventBridge to send to the queue only for the ingest rule of the stack’s account, and only over TLS', () => {
    const queueId = dev.logicalId(dev.stack.ingest.queue);
    const [policy] = Object.values(
      dev.template.findResources('AWS::SQS::QueuePolicy', { Properties: { Queues: [{ Ref: queueId }] } }),
    );
    const statements = policy.Properties.PolicyDocument.Statement;

    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { Service: 'events.amazonaws.com' },
          Condition: {
            ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [dev.logicalId(dev.stack.ingest.rule), 'Arn'] } },
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          },
        }),
      ]),
    );
    // That grant is the only one.
    expect(statements.filter((s: { Effect: string }) => s.Effect === 'Allow')).toHaveLength(1);
  });
});

describe('the freshness function', () => {
  it('runs every 5 minutes', () => {
    dev.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [dev.logicalId(dev.stack.freshness.function.fn), 'Arn'] } })],
    });
  });
});

describe('ingest and freshness alarms', () => {
  it('alarm on a refused and on a failed import, from the functions’ EMF metrics', () => {
    for (const name of ['ImportsRefused', 'ImportsFailed']) {
      expect(alarmNamed(dev, `MarketData-dev-${name}`)).toMatchObject({
        Namespace: METRICS_NAMESPACE,
        MetricName: name,
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    }
  });

  it('alarm on ingest and freshness errors and on a message in the dead-letter queue', () => {
    for (const [name, fn] of [
      ['IngestErrors', dev.stack.ingest.function.fn],
      ['FreshnessErrors', dev.stack.freshness.function.fn],
    ] as const) {
      expect(alarmNamed(dev, `MarketData-dev-${name}`)).toMatchObject({
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: dev.logicalId(fn) } }],
        Threshold: 1,
      });
    }
    // Within minutes: SQS sends its queue metrics every minute, and one period of one minute alarms.
    for (const [name, queue] of [
      ['IngestDeadLetters', dev.stack.ingest.deadLetterQueue],
      ['IngestEventDeadLetters', dev.stack.ingest.eventDeadLetterQueue],
    ] as const)
      expect(alarmNamed(dev, `MarketData-dev-${name}`)).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dev.logicalId(queue), 'QueueName'] } }],
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 1,
      });
  });

  it('alarm per family when its data is older than the stage’s maxDataAgeMinutes, or its age is missing', () => {
    const qa = synth('qa', { maxDataAgeMinutes: 90 });
    for (const [fixture, stage, minutes] of [
      [dev, 'dev', 1440],
      [qa, 'qa', 90],
    ] as const) {
      const alarms = fixture.template.findResources('AWS::CloudWatch::Alarm', {
        Properties: { MetricName: DATA_AGE_METRIC },
      });
      const byFamily = Object.fromEntries(
        Object.values(alarms).map((a) => [
          (a.Properties.Dimensions as { Name: string; Value: string }[]).find((d) => d.Name === FAMILY_DIMENSION)!
            .Value,
          a.Properties,
        ]),
      );

      expect(Object.keys(byFamily).sort()).toEqual([...DATASET_FAMILIES].sort());
      for (const [family, alarm] of Object.entries(byFamily)) {
        expect(alarm).toMatchObject({
          AlarmName: expect.stringMatching(new RegExp(`^MarketData-${stage}-DataAge[A-Z][A-Za-z]+$`)),
          Namespace: METRICS_NAMESPACE,
          Dimensions: [{ Name: FAMILY_DIMENSION, Value: family }],
          Statistic: 'Maximum',
          Period: 900,
          Threshold: minutes * 60,
          ComparisonOperator: 'GreaterThanThreshold',
          TreatMissingData: 'breaching',
        });
      }
    }
  });

  it('notify the alarm topic like every other alarm', () => {
    const { template } = synth('dev', { alarmEmail: 'ops@example.com' });
    const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));

    for (const name of [
      'ImportsRefused',
      'ImportsFailed',
      'IngestErrors',
      'IngestDeadLetters',
      'IngestEventDeadLetters',
      'DataAgeExchanges',
    ]) {
      const [alarm] = Object.values(
        template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: `MarketData-dev-${name}` } }),
      );
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    }
  });

  it('show on the dashboard', () => {
    const [dashboard] = Object.values(dev.template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard.Properties.DashboardBody);

    for (const title of ['Imports (published, refused, failed)', 'Ingest dead-letter queue', 'Data age by family'])
      expect(body).toContain(title);
    for (const family of DATASET_FAMILIES) expect(body).toContain(`\\"${FAMILY_DIMENSION}\\",\\"${family}\\"`);
  });
});
