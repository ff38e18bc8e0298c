/**
 * Alarms and the dashboard. Alarms notify an SNS topic when one is configured. The dashboard
 * shows the API (traffic, latency, errors), each function, the table, the functions' own
 * EMF metrics in the MarketDataApi namespace, one line per route, the imports and the age of
 * each family's data.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Route } from '../../shared/http/routes';
import {
  METRICS_NAMESPACE as APP_METRICS_NAMESPACE,
  DATA_AGE_METRIC,
  FAMILY_DIMENSION,
  IMPORT_METRICS,
  type ImportMetricName,
  type RequestMetricName,
  ROUTE_DIMENSION,
} from '../../shared/platform/metric-names';

/** The application metrics the dashboard shows per route. */
const APP_METRICS: readonly RequestMetricName[] = ['Requests', 'Latency', 'ConsumedReadCapacity', 'QuotaRefusals'];

/** Thresholds of the alarms, documented in docs/deploy.md. */
const ALARM_THRESHOLDS = {
  /** Percent of requests answered 5xx over 5 minutes, when there were at least 10. */
  apiServerErrorPercent: 5,
  /** API p99 latency in ms, over three consecutive 5-minute periods. */
  apiLatencyP99Ms: 2000,
} as const;

/** Table operations the alarms watch: the functions' reads and quota writes, the scripts' writes. */
const TABLE_OPERATIONS = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
];

export interface MonitoringProps {
  stageName: string;
  apiStage: apigw.Stage;
  /** Every function by name; `authorizer` among them. */
  functions: Record<string, lambda.IFunction>;
  authorizerName: string;
  table: dynamodb.ITableV2;
  routes: readonly Route[];
  topic: sns.ITopic | undefined;
  /** The ingest function, its dead-letter queue and the one of the events EventBridge could not send. */
  ingest: { fn: lambda.IFunction; deadLetterQueue: sqs.IQueue; eventDeadLetterQueue: sqs.IQueue };
  /** The freshness function, the families it reports and the stage's threshold. */
  freshness: { fn: lambda.IFunction; families: readonly string[]; maxDataAgeMinutes: number };
}

const FIVE_MINUTES = Duration.minutes(5);
/** SQS sends its queue metrics every minute: a dead letter alarms within minutes. */
const ONE_MINUTE = Duration.minutes(1);
/** Three runs of the freshness function: one missed run is no missing data. */
const DATA_AGE_PERIOD = Duration.minutes(15);

/** `earn_offers` → `EarnOffers`: the family in an alarm's name. */
const familyTitle = (family: string) => family.split('_').map(pascal).join('');

/** An application metric without dimension (the import outcomes). */
const importMetric = (metricName: ImportMetricName) =>
  new cw.Metric({ namespace: APP_METRICS_NAMESPACE, metricName, statistic: cw.Stats.SUM, period: FIVE_MINUTES });

const dataAgeMetric = (family: string, period: Duration) =>
  new cw.Metric({
    namespace: APP_METRICS_NAMESPACE,
    metricName: DATA_AGE_METRIC,
    dimensionsMap: { [FAMILY_DIMENSION]: family },
    statistic: cw.Stats.MAXIMUM,
    period,
  });

export class Monitoring extends Construct {
  readonly alarms: cw.Alarm[] = [];
  readonly dashboard: cw.Dashboard;
  private readonly prefix: string;
  private readonly topic: sns.ITopic | undefined;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.prefix = `MarketData-${props.stageName}`;
    this.topic = props.topic;

    this.addApiAlarms(props.apiStage);
    this.addFunctionAlarms(props.functions, props.authorizerName);
    this.addTableAlarms(props.table);
    this.addIngestAlarms(props.ingest);
    this.addFreshnessAlarms(props.freshness);

    this.dashboard = new cw.Dashboard(this, 'Dashboard', {
      dashboardName: this.prefix,
      defaultInterval: Duration.hours(6),
    });
    this.addDashboardWidgets(props);
  }

  private addApiAlarms(stage: apigw.Stage): void {
    const serverErrorRate = new cw.MathExpression({
      label: 'API 5xx %',
      expression: 'IF(requests >= 10, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: stage.metricServerError({ statistic: cw.Stats.SUM, period: FIVE_MINUTES }),
        requests: stage.metricCount({ statistic: cw.Stats.SUM, period: FIVE_MINUTES }),
      },
      period: FIVE_MINUTES,
    });
    this.alarm('Api5xxRate', serverErrorRate, {
      threshold: ALARM_THRESHOLDS.apiServerErrorPercent,
      evaluationPeriods: 1,
      description: `More than ${ALARM_THRESHOLDS.apiServerErrorPercent}% of API requests answered 5xx in 5 minutes.`,
    });
    this.alarm('ApiLatencyP99', stage.metricLatency({ statistic: cw.Stats.p(99), period: FIVE_MINUTES }), {
      threshold: ALARM_THRESHOLDS.apiLatencyP99Ms,
      evaluationPeriods: 3,
      description: `API p99 latency above ${ALARM_THRESHOLDS.apiLatencyP99Ms} ms for 15 minutes.`,
    });
  }

  private addFunctionAlarms(functions: Record<string, lambda.IFunction>, authorizerName: string): void {
    for (const [name, fn] of Object.entries(functions)) {
      const title = pascal(name);
      const why =
        name === authorizerName
          ? 'Authorizer errors answer 503 to every uncached request.'
          : 'Unhandled errors or timeouts in a serving function.';
      this.alarm(`${title}Errors`, fn.metricErrors({ statistic: cw.Stats.SUM, period: FIVE_MINUTES }), {
        threshold: 1,
        evaluationPeriods: 1,
        description: `${name}: Lambda errors. ${why}`,
      });
      this.alarm(`${title}Throttles`, fn.metricThrottles({ statistic: cw.Stats.SUM, period: FIVE_MINUTES }), {
        threshold: 1,
        evaluationPeriods: 1,
        description: `${name}: Lambda throttles (account or reserved concurrency exhausted).`,
      });
    }
  }

  private addTableAlarms(table: dynamodb.ITableV2): void {
    this.alarm(
      'TableThrottles',
      table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES }),
      {
        threshold: 1,
        evaluationPeriods: 1,
        description: 'DynamoDB throttled requests (hot partition or on-demand limits).',
      },
    );
    this.alarm(
      'TableSystemErrors',
      table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES }),
      {
        threshold: 1,
        evaluationPeriods: 1,
        description: 'DynamoDB system errors (the API answers 503 while they last).',
      },
    );
  }

  private addIngestAlarms(ingest: MonitoringProps['ingest']): void {
    this.alarm('ImportsRefused', importMetric('ImportsRefused'), {
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'A file put under incoming/ was refused; nothing of it was published. Its report is beside it under refused/.',
    });
    this.alarm('ImportsFailed', importMetric('ImportsFailed'), {
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'An import failed (DynamoDB, S3, or another import holding the lease); SQS delivers it again, then to the dead-letter queue.',
    });
    this.alarm('IngestErrors', ingest.fn.metricErrors({ statistic: cw.Stats.SUM, period: FIVE_MINUTES }), {
      threshold: 1,
      evaluationPeriods: 1,
      description: 'ingest: Lambda errors or timeouts (a failed import, or a timeout: raise ingestTimeoutSeconds).',
    });
    this.alarm(
      'IngestDeadLetters',
      ingest.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: cw.Stats.MAXIMUM,
        period: ONE_MINUTE,
      }),
      {
        threshold: 1,
        evaluationPeriods: 1,
        description:
          'An upload could not be imported: its file is under failed/ beside a report (or, after the function crashed on every delivery, still under incoming/). Fix the cause and put the file again.',
      },
    );
    this.alarm(
      'IngestEventDeadLetters',
      ingest.eventDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        statistic: cw.Stats.MAXIMUM,
        period: ONE_MINUTE,
      }),
      {
        threshold: 1,
        evaluationPeriods: 1,
        description:
          'EventBridge could not send an upload event to the ingest queue after its retries; the file is still under incoming/: put it again.',
      },
    );
  }

  private addFreshnessAlarms(freshness: MonitoringProps['freshness']): void {
    this.alarm('FreshnessErrors', freshness.fn.metricErrors({ statistic: cw.Stats.SUM, period: FIVE_MINUTES }), {
      threshold: 1,
      evaluationPeriods: 1,
      description:
        'freshness: Lambda errors (the snapshot pointer could not be read); the DataAge alarms see no data meanwhile.',
    });
    const seconds = freshness.maxDataAgeMinutes * 60;
    for (const family of freshness.families) {
      this.alarm(`DataAge${familyTitle(family)}`, dataAgeMetric(family, DATA_AGE_PERIOD), {
        threshold: seconds,
        evaluationPeriods: 1,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
        // No value means nothing published yet, or the freshness function not running: both need a look.
        treatMissingData: cw.TreatMissingData.BREACHING,
        description: `${family}: the served data is older than ${freshness.maxDataAgeMinutes} minutes, or its age is not reported.`,
      });
    }
  }

  private alarm(
    id: string,
    metric: cw.IMetric,
    options: {
      threshold: number;
      evaluationPeriods: number;
      description: string;
      comparisonOperator?: cw.ComparisonOperator;
      treatMissingData?: cw.TreatMissingData;
    },
  ): void {
    const alarm = new cw.Alarm(this, id, {
      alarmName: `${this.prefix}-${id}`,
      alarmDescription: options.description,
      metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods,
      comparisonOperator: options.comparisonOperator ?? cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: options.treatMissingData ?? cw.TreatMissingData.NOT_BREACHING,
    });
    if (this.topic) {
      alarm.addAlarmAction(new cwActions.SnsAction(this.topic));
      alarm.addOkAction(new cwActions.SnsAction(this.topic));
    }
    this.alarms.push(alarm);
  }

  private addDashboardWidgets(props: MonitoringProps): void {
    const stage = props.apiStage;
    const fns = Object.entries(props.functions);
    const sum = { statistic: cw.Stats.SUM, period: FIVE_MINUTES };
    const graph = (title: string, left: cw.IMetric[], width = 6) =>
      new cw.GraphWidget({ title, left, width, height: 6 });

    this.dashboard.addWidgets(
      new cw.TextWidget({
        markdown: `# Market data API — ${props.stageName}\nAPI traffic and errors, functions, table, and per-route metrics (${APP_METRICS_NAMESPACE}). See docs/deploy.md.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      graph('API requests', [stage.metricCount({ ...sum, label: 'requests' })]),
      graph('API latency (ms)', [
        stage.metricLatency({ statistic: cw.Stats.p(50), period: FIVE_MINUTES, label: 'p50' }),
        stage.metricLatency({ statistic: cw.Stats.p(99), period: FIVE_MINUTES, label: 'p99' }),
        stage.metricIntegrationLatency({ statistic: cw.Stats.p(99), period: FIVE_MINUTES, label: 'integration p99' }),
      ]),
      graph('API 4xx', [stage.metricClientError({ ...sum, label: '4xx' })]),
      graph('API 5xx', [stage.metricServerError({ ...sum, label: '5xx' })]),
    );
    this.dashboard.addWidgets(
      graph(
        'Function duration p99 (ms)',
        fns.map(([name, fn]) => fn.metricDuration({ statistic: cw.Stats.p(99), period: FIVE_MINUTES, label: name })),
        8,
      ),
      graph(
        'Function errors',
        fns.map(([name, fn]) => fn.metricErrors({ ...sum, label: name })),
        8,
      ),
      graph(
        'Function throttles',
        fns.map(([name, fn]) => fn.metricThrottles({ ...sum, label: name })),
        8,
      ),
    );
    this.dashboard.addWidgets(
      graph(
        'Table consumed capacity',
        [
          props.table.metricConsumedReadCapacityUnits({ ...sum, label: 'read units' }),
          props.table.metricConsumedWriteCapacityUnits({ ...sum, label: 'write units' }),
        ],
        8,
      ),
      graph(
        'Table throttled requests',
        [props.table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES })],
        8,
      ),
      graph(
        'Table system errors',
        [props.table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, period: FIVE_MINUTES })],
        8,
      ),
    );
    const perRoute = (metricName: (typeof APP_METRICS)[number], statistic: string) =>
      props.routes.map(
        (route) =>
          new cw.Metric({
            namespace: APP_METRICS_NAMESPACE,
            metricName,
            dimensionsMap: { [ROUTE_DIMENSION]: route.operationId },
            statistic,
            period: FIVE_MINUTES,
            label: route.operationId,
          }),
      );
    this.dashboard.addWidgets(
      graph('Requests by route', perRoute('Requests', cw.Stats.SUM)),
      graph('Latency p99 by route (ms)', perRoute('Latency', cw.Stats.p(99))),
      graph('Read capacity by route', perRoute('ConsumedReadCapacity', cw.Stats.SUM)),
      graph('Quota refusals by route', perRoute('QuotaRefusals', cw.Stats.SUM)),
    );
    this.dashboard.addWidgets(
      graph(
        'Imports (published, refused, failed)',
        Object.keys(IMPORT_METRICS).map((name) => importMetric(name as ImportMetricName).with({ label: name })),
        8,
      ),
      graph(
        'Ingest dead-letter queue',
        [
          props.ingest.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            statistic: cw.Stats.MAXIMUM,
            period: FIVE_MINUTES,
            label: 'messages',
          }),
        ],
        8,
      ),
      graph(
        'Data age by family (s)',
        props.freshness.families.map((family) => dataAgeMetric(family, FIVE_MINUTES).with({ label: family })),
        8,
      ),
    );
    this.dashboard.addWidgets(new cw.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 6 }));
  }
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
