/**
 * Webhook matching and delivery (CONTRACT §14, docs/adr/0028-webhook-delivery.md): the table's
 * stream, filtered to the snapshot pointer item, runs the matching function on each publish; it
 * queues one message per delivery on a standard SQS queue, which the sending function reads (10 s
 * an attempt, a batch of 10 sent concurrently). Retries are messages sent back with a delay (hops of
 * at most 15 minutes); a message whose handling keeps throwing moves to the dead-letter queue, as
 * does a stream record whose matching keeps failing. Alarms: the dead-letter queue, failed
 * deliveries and disabled subscriptions (the sending function's EMF metrics), each function's errors.
 */
import { Duration } from 'aws-cdk-lib';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lambdaEvents from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { pointerKey } from '../../shared/data/keys';
import { WEBHOOK_METRICS_NAMESPACE } from '../../shared/platform/metric-names';
import type { DataTable } from './data-table';
import { type FunctionSettings, StackFunction } from './stack-function';

/** The variable naming the queue (shared/webhooks/sqs-queue.ts reads it by this name). */
const QUEUE_URL_VARIABLE = 'WEBHOOK_QUEUE_URL';
/** SQS asks for a visibility timeout of at least 6 times the function's timeout. */
const VISIBILITY_TIMEOUT_FACTOR = 6;
/** A batch of 10 attempts of at most 10 s each, sent concurrently, and their writes. */
const SEND_TIMEOUT = Duration.seconds(30);
/** Matching 10,000 subscriptions against a refresh (docs/performance.md). */
const MATCH_TIMEOUT = Duration.minutes(2);

export interface WebhooksProps {
  table: DataTable;
  settings: FunctionSettings;
  matchEntry: string;
  sendEntry: string;
  stageName: string;
  topic: sns.ITopic | undefined;
}

export class Webhooks extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly matchFunction: StackFunction;
  readonly sendFunction: StackFunction;
  readonly alarms: cw.Alarm[] = [];

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(SEND_TIMEOUT.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      // The last retry is 10 h after the first attempt; a message lives at most a day.
      retentionPeriod: Duration.days(1),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 5 },
    });
    const environment = { [QUEUE_URL_VARIABLE]: this.queue.queueUrl };

    this.matchFunction = new StackFunction(this, 'Match', {
      entry: props.matchEntry,
      // A whole vCPU: matching is CPU-bound (about 1.2 s of CPU for a 5 % refresh against 10,000
      // subscriptions, ADR 0028 "Costs"), which a smaller share would stretch past 2 s.
      memorySize: 1769,
      timeout: MATCH_TIMEOUT,
      settings: props.settings,
      environment,
      description: `Market data API: matches each publish against the webhook subscriptions (${props.stageName})`,
    });
    const pointer = pointerKey();
    this.matchFunction.fn.addEventSource(
      new lambdaEvents.DynamoEventSource(props.table.table, {
        startingPosition: lambda.StartingPosition.LATEST,
        batchSize: 10,
        retryAttempts: 3,
        onFailure: new lambdaEvents.SqsDlq(this.deadLetterQueue),
        filters: [
          lambda.FilterCriteria.filter({
            dynamodb: {
              Keys: {
                PK: { S: lambda.FilterRule.isEqual(pointer.PK) },
                SK: { S: lambda.FilterRule.isEqual(pointer.SK) },
              },
            },
          }),
        ],
      }),
    );
    props.table.grantWebhookMatch(this.matchFunction.fn);
    this.queue.grantSendMessages(this.matchFunction.fn);

    this.sendFunction = new StackFunction(this, 'Send', {
      entry: props.sendEntry,
      memorySize: 512,
      timeout: SEND_TIMEOUT,
      settings: props.settings,
      environment,
      description: `Market data API: sends webhook deliveries, signed, and schedules their retries (${props.stageName})`,
    });
    this.sendFunction.fn.addEventSource(
      new lambdaEvents.SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }),
    );
    props.table.grantWebhookSend(this.sendFunction.fn);
    this.queue.grantSendMessages(this.sendFunction.fn);

    const alarm = (name: string, metric: cw.IMetric, description: string) => {
      const created = new cw.Alarm(this, name, {
        alarmName: `MarketData-${props.stageName}-${name}`,
        alarmDescription: description,
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
      });
      if (props.topic) {
        created.addAlarmAction(new cwActions.SnsAction(props.topic));
        created.addOkAction(new cwActions.SnsAction(props.topic));
      }
      this.alarms.push(created);
    };
    const fiveMinutes = { period: Duration.minutes(5), statistic: 'Sum' };
    alarm(
      'WebhookDeadLetters',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      'A webhook message or a publish could not be handled: see the dead-letter queue.',
    );
    alarm(
      'WebhookDeliveriesFailed',
      new cw.Metric({ namespace: WEBHOOK_METRICS_NAMESPACE, metricName: 'failed', ...fiveMinutes }),
      'A webhook delivery failed its last attempt.',
    );
    alarm(
      'WebhookSubscriptionsDisabled',
      new cw.Metric({ namespace: WEBHOOK_METRICS_NAMESPACE, metricName: 'disabled', ...fiveMinutes }),
      'A webhook subscription was disabled after 24 hours without a successful delivery.',
    );
    alarm(
      'WebhookMatchErrors',
      this.matchFunction.fn.metricErrors(fiveMinutes),
      'Webhook matching failed on a publish.',
    );
    alarm('WebhookSendErrors', this.sendFunction.fn.metricErrors(fiveMinutes), 'The webhook sending function failed.');
  }
}
