/**
 * The ingest path: a private bucket where operators put dataset files, and the function that
 * imports them with the same code as `npm run import` (functions/ingest/). A file put under
 * `incoming/` notifies a queue (the only prefix that does: the function's own writes never
 * trigger it); the function takes one message at a time (batch size 1, reserved concurrency 1)
 * and moves the file beside its report (shared/import/ingest-layout.ts). A message that keeps failing
 * moves to the dead-letter queue. The function imports the version each event names, in upload
 * order (functions/ingest/ingest-handler.ts). docs/deploy.md, "Import data".
 */
import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambdaEvents from 'aws-cdk-lib/aws-lambda-event-sources';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INGEST_PREFIXES } from '../../shared/import/ingest-layout';
import { ENV } from '../../shared/platform/config';
import { acknowledge } from '../nag';
import { ApiFunction, type ApiFunctionDefaults } from './api-function';
import type { DataTable } from './data-table';

/** The id CDK gives the one function per stack that sets bucket notifications at deploy time. */
const NOTIFICATIONS_HANDLER_ID = 'BucketNotificationsHandler050a0587b7544547bf325f094a3db834';

export interface IngestProps {
  entry: string;
  table: DataTable;
  defaults: ApiFunctionDefaults;
  removalPolicy: RemovalPolicy;
  memorySize: number;
  timeout: Duration;
  /** Deliveries of a message before it moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** Record each import's published offers as history (the stage's `recordHistory`, CONTRACT §12). */
  recordHistory: boolean;
  description: string;
}

/** SQS asks for a visibility timeout of at least 6 times the function's timeout. */
const VISIBILITY_TIMEOUT_FACTOR = 6;

/** The DynamoDB request timeout of an import's client: batch writes of large files take longer than a read. */
const IMPORT_REQUEST_TIMEOUT_MS = 30_000;

export class Ingest extends Construct {
  readonly bucket: s3.Bucket;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly function: ApiFunction;

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
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(props.timeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    });

    this.function = new ApiFunction(this, 'Function', {
      entry: props.entry,
      memorySize: props.memorySize,
      timeout: props.timeout,
      // One import at a time: the import's lease refuses a second one, this keeps them from starting.
      reservedConcurrency: 1,
      description: props.description,
      defaults: props.defaults,
      environment: {
        [ENV.dynamodbRequestTimeoutMs]: String(IMPORT_REQUEST_TIMEOUT_MS),
        [ENV.recordHistory]: String(props.recordHistory),
      },
    });
    const fn = this.function.fn;
    // At most 2 concurrent batches (the least SQS allows): other files wait in the queue instead of
    // being throttled against the reserved concurrency, which spends their deliveries.
    fn.addEventSource(new lambdaEvents.SqsEventSource(this.queue, { batchSize: 1, maxConcurrency: 2 }));
    props.table.grantImport(fn);

    this.bucket.addEventNotification(s3.EventType.OBJECT_CREATED, new s3n.SqsDestination(this.queue), {
      prefix: INGEST_PREFIXES.incoming,
    });

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
        resources: [objects(INGEST_PREFIXES.imported), objects(INGEST_PREFIXES.refused)],
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
