/**
 * The ingest path: a private bucket where operators put dataset files, and the function that
 * imports them with the same code as `npm run import` (functions/ingest/). A file put under
 * `incoming/` is sent by EventBridge to a FIFO queue (the only prefix that is: the function's own
 * writes never trigger it), all in one message group, so the function gets one message at a time,
 * in the order they arrived, and the next one only when that one is done: one import at a time,
 * without reserved concurrency, so no message is ever throttled (docs/adr/0013-ingest-queue.md).
 * It moves the file beside its report (shared/import/ingest-layout.ts). An import that keeps
 * failing moves to failed/ and its event to the dead-letter queue, sent by the function; a message
 * that keeps crashing the function moves there after its last delivery. An event EventBridge cannot
 * deliver goes to a dead-letter queue of its own after its retries. The function imports the version each event names, in
 * upload order (functions/ingest/ingest-handler.ts). docs/deploy.md, "Import data".
 */
import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambdaEvents from 'aws-cdk-lib/aws-lambda-event-sources';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INGEST_MESSAGE_GROUP, INGEST_PREFIXES } from '../../shared/import/ingest-layout';
import { ENV } from '../../shared/platform/config';
import { acknowledge } from '../nag';
import type { DataTable } from './data-table';
import { type FunctionSettings, StackFunction } from './stack-function';

/** The id CDK gives the one function per stack that sets bucket notifications at deploy time. */
const NOTIFICATIONS_HANDLER_ID = 'BucketNotificationsHandler050a0587b7544547bf325f094a3db834';

export interface IngestProps {
  entry: string;
  table: DataTable;
  settings: FunctionSettings;
  /** The API functions' pointer cache: replaced versions are kept long enough for it. */
  snapshotCacheMs: number;
  removalPolicy: RemovalPolicy;
  memorySize: number;
  timeout: Duration;
  /** Deliveries of a message before it moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** Record each import's published offers as history (the stage's `recordHistory`, CONTRACT §12). */
  recordHistory: boolean;
  description: string;
}

/**
 * A message is held the function's timeout and this margin (ADR 0023): the function settles every
 * import failure itself (failed/ and the dead-letter queue), so a message comes back only after a
 * crash, a timeout or another import's lease, and the queue waits no longer than one import.
 */
const VISIBILITY_MARGIN = Duration.seconds(30);

/** How EventBridge retries sending an upload's event to the queue, before its own dead-letter queue. */
const EVENT_RETRY = { maximumRetryAttempts: 10, maximumEventAgeInSeconds: 3_600 } as const;

/** The DynamoDB request timeout of an import's client: batch writes of large files take longer than a read. */
const IMPORT_REQUEST_TIMEOUT_MS = 30_000;

export class Ingest extends Construct {
  readonly bucket: s3.Bucket;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  /** Events EventBridge could not send to the queue (a standard queue: a rule's target DLQ cannot be FIFO). */
  readonly eventDeadLetterQueue: sqs.Queue;
  readonly rule: events.Rule;
  readonly function: StackFunction;

  constructor(scope: Construct, id: string, props: IngestProps) {
    super(scope, id);

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: props.removalPolicy,
      // Object events go to EventBridge, which alone can send to a FIFO queue.
      eventBridgeEnabled: true,
      // Versions replaced or moved away are kept a month (an upload overwritten by mistake can be recovered).
      lifecycleRules: [
        {
          noncurrentVersionExpiration: Duration.days(30),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
          expiredObjectDeleteMarker: true,
        },
      ],
    });

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', {
      fifo: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      fifo: true,
      // An event delivered twice within 5 minutes is one message (the event id is in its body).
      contentBasedDeduplication: true,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: props.timeout.plus(VISIBILITY_MARGIN),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });

    this.function = new StackFunction(this, 'Function', {
      entry: props.entry,
      memorySize: props.memorySize,
      timeout: props.timeout,
      description: props.description,
      settings: props.settings,
      environment: {
        [ENV.snapshotCacheMs]: String(props.snapshotCacheMs),
        [ENV.dynamodbRequestTimeoutMs]: String(IMPORT_REQUEST_TIMEOUT_MS),
        [ENV.recordHistory]: String(props.recordHistory),
        [ENV.ingestDeadLetters]: this.deadLetterQueue.queueUrl,
      },
    });
    const fn = this.function.fn;
    // An upload whose import kept failing: the function sends its event there itself.
    this.deadLetterQueue.grantSendMessages(fn);
    // One message group: the next message waits, unreceived, until this one is done (no reserved
    // concurrency to throttle against, no delivery spent but on a failure).
    fn.addEventSource(new lambdaEvents.SqsEventSource(this.queue, { batchSize: 1 }));
    props.table.grantImport(fn);

    this.rule = new events.Rule(this, 'Uploads', {
      description: 'Objects created under incoming/ in the ingest bucket, to the ingest queue',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: {
          bucket: { name: [this.bucket.bucketName] },
          object: { key: [{ prefix: INGEST_PREFIXES.incoming }] },
        },
      },
    });
    this.eventDeadLetterQueue = new sqs.Queue(this, 'EventDeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const queue = this.queue;
    const eventDeadLetters = this.eventDeadLetterQueue;
    this.rule.addTarget({
      bind: () => ({
        arn: queue.queueArn,
        sqsParameters: { messageGroupId: INGEST_MESSAGE_GROUP },
        deadLetterConfig: { arn: eventDeadLetters.queueArn },
        retryPolicy: EVENT_RETRY,
      }),
    });
    eventDeadLetters.grantSendMessages(
      new iam.ServicePrincipal('events.amazonaws.com', {
        conditions: { ArnEquals: { 'aws:SourceArn': this.rule.ruleArn } },
      }),
    );
    // EventBridge may send for this rule of this account only.
    queue.grantSendMessages(
      new iam.ServicePrincipal('events.amazonaws.com', {
        conditions: {
          ArnEquals: { 'aws:SourceArn': this.rule.ruleArn },
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
        },
      }),
    );

    // Read incoming/ (the version an event names: GetObjectVersion; the versions still waiting under
    // its name: ListBucketVersions, for incoming/ only), write imported/ and refused/ (files and
    // reports), delete the versions it moved.
    const objects = (prefix: string) => this.bucket.arnForObjects(`${prefix}*`);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject', 's3:GetObjectVersion'],
        resources: [objects(INGEST_PREFIXES.incoming)],
      }),
    );
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucketVersions'],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': `${INGEST_PREFIXES.incoming}*` } },
      }),
    );
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
        resources: [objects(INGEST_PREFIXES.incoming)],
      }),
    );
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [
          objects(INGEST_PREFIXES.imported),
          objects(INGEST_PREFIXES.refused),
          objects(INGEST_PREFIXES.failed),
        ],
      }),
    );
    this.acknowledgeNagFindings();
  }

  private acknowledgeNagFindings(): void {
    const bucketArn = `<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as never)}.Arn>`;
    acknowledge(
      this.function.role,
      'AwsSolutions-IAM5',
      'Object grants are scoped to one prefix each: read incoming/, write imported/ and refused/.',
      [...Object.values(INGEST_PREFIXES).map((prefix) => `Resource::${bucketArn}/${prefix}*`)],
    );
    acknowledge(
      this.eventDeadLetterQueue,
      'AwsSolutions-SQS3',
      "The ingest rule's target dead-letter queue: it is the dead-letter queue (cdk-nag sees no redrive policy naming it).",
    );
    acknowledge(
      this.bucket,
      'AwsSolutions-S1',
      'Every upload is logged by the ingest function and answered by a report in the bucket; no access-log bucket.',
    );
    const notifications = Stack.of(this).node.tryFindChild(NOTIFICATIONS_HANDLER_ID);
    if (notifications) {
      acknowledge(
        notifications,
        'AwsSolutions-IAM4',
        "CDK's deploy-time handler that sets the bucket notification uses the basic execution role.",
        ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
      );
    }
  }
}
