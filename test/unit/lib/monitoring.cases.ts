import { ROUTES } from '../../../shared/http/routes';
import { METRICS_NAMESPACE, ROUTE_DIMENSION } from '../../../shared/platform/metric-names';
import { cdkJsonContext, type Fixture, PROD_BLOCK, synth, synthApp, TEST_ALARM_TOPIC } from './app-fixture';

describe('Monitoring', () => {
  let dev: Fixture;

  beforeAll(() => {
    dev = synth('dev');
  });

  const alarmNamed = (fixture: Fixture, name: string) => {
    const alarms = fixture.template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: name } });
    expect(Object.keys(alarms)).toHaveLength(1);
    return Object.values(alarms)[0].Properties;
  };

  it('alarms on the API 5xx rate from the stage metrics', () => {
    const alarm = alarmNamed(dev, 'MarketData-dev-Api5xxRate');
    const stageDimensions = [
      { Name: 'ApiName', Value: 'market-data-dev' },
      { Name: 'Stage', Value: { Ref: dev.logicalId(dev.stack.api.stage) } },
    ];

    expect(alarm.Threshold).toBe(5);
    expect(alarm.Metrics).toEqual([
      expect.objectContaining({ Expression: 'IF(requests >= 10, 100 * errors / requests, 0)', ReturnData: true }),
      expect.objectContaining({
        Id: 'errors',
        MetricStat: expect.objectContaining({
          Metric: { Namespace: 'AWS/ApiGateway', MetricName: '5XXError', Dimensions: stageDimensions },
        }),
      }),
      expect.objectContaining({
        Id: 'requests',
        MetricStat: expect.objectContaining({
          Metric: { Namespace: 'AWS/ApiGateway', MetricName: 'Count', Dimensions: stageDimensions },
        }),
      }),
    ]);
  });

  it('alarms on API p99 latency', () => {
    expect(alarmNamed(dev, 'MarketData-dev-ApiLatencyP99')).toMatchObject({
      MetricName: 'Latency',
      Namespace: 'AWS/ApiGateway',
      ExtendedStatistic: 'p99',
      Threshold: 2000,
      EvaluationPeriods: 3,
    });
  });

  it('alarms on errors and throttles of every function, the authorizer included', () => {
    const { stack, logicalId } = dev;
    const fns = { ...stack.functions, authorizer: stack.authorizer };
    for (const [name, fn] of Object.entries(fns)) {
      const title = name.charAt(0).toUpperCase() + name.slice(1);
      for (const metric of ['Errors', 'Throttles']) {
        expect(alarmNamed(dev, `MarketData-dev-${title}${metric}`)).toMatchObject({
          Namespace: 'AWS/Lambda',
          MetricName: metric,
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(fn.fn) } }],
          Threshold: 1,
        });
      }
    }
  });

  it('alarms on DynamoDB throttled requests and system errors', () => {
    for (const [name, metricName] of [
      ['TableThrottles', 'ThrottledRequests'],
      ['TableSystemErrors', 'SystemErrors'],
    ]) {
      const alarm = alarmNamed(dev, `MarketData-dev-${name}`);
      const names = (alarm.Metrics as { MetricStat?: { Metric: { MetricName: string; Namespace: string } } }[])
        .map((m) => m.MetricStat?.Metric)
        .filter(Boolean);
      expect(names.length).toBeGreaterThan(0);
      for (const metric of names) expect(metric).toMatchObject({ Namespace: 'AWS/DynamoDB', MetricName: metricName });
    }
  });

  it('has 30 alarms and, without a topic, no alarm actions', () => {
    // API 5xx and p99, errors and throttles of six functions, DynamoDB throttles and system errors;
    // imports refused and failed, ingest errors, its dead letters and the rule's, freshness errors, the age of nine families.
    // And the webhooks function's errors and throttles, and the five of lib/constructs/webhooks.ts.
    dev.template.resourceCountIs('AWS::CloudWatch::Alarm', 38);
    dev.template.resourceCountIs('AWS::SNS::Topic', 0);
    for (const alarm of Object.values(dev.template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toBeUndefined();
    }
  });

  it('creates a topic with an e-mail subscription and wires every alarm to it when an alarm e-mail is set', () => {
    const { template } = synth('dev', { alarmEmail: 'ops@example.com' });
    const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));

    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId },
    });
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
    }
  });

  it('refuses to synthesize prod as cdk.json ships it, without an alarm target, naming the settings', () => {
    const shipped = (cdkJsonContext().stages as Record<string, Record<string, unknown>>).prod;
    expect(shipped.alarmEmail ?? shipped.alarmTopicArn).toBeUndefined();
    expect(() => synthApp('prod', {}, shipped)).toThrow(
      /stage "prod" has no alarm target: set stages\.prod\.alarmEmail .* or stages\.prod\.alarmTopicArn/,
    );
  });

  it('notifies on every alarm of prod, on alarm and on recovery', () => {
    const { template } = synth('prod', PROD_BLOCK);
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms).toHaveLength(38);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([TEST_ALARM_TOPIC]);
      expect(alarm.Properties.OKActions).toEqual([TEST_ALARM_TOPIC]);
    }
  });

  it('uses an existing topic when its ARN is configured', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:ops';
    const { template } = synth('dev', { alarmTopicArn: arn });

    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmActions: [arn] });
  });

  it('builds a dashboard with API, function, table and per-route application metrics', () => {
    const [dashboard] = Object.values(dev.template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard.Properties.DashboardBody);

    expect(dashboard.Properties.DashboardName).toBe('MarketData-dev');
    for (const title of [
      'API requests',
      'API latency',
      'API 4xx',
      'API 5xx',
      'Function duration p99',
      'Function errors',
      'Table consumed capacity',
      'Table throttled requests',
    ]) {
      expect(body).toContain(title);
    }
    // The namespace and dimension the functions write, from the one registry of metric names.
    for (const metric of ['Requests', 'Latency', 'ConsumedReadCapacity', 'QuotaRefusals']) {
      expect(body).toContain(`\\"${METRICS_NAMESPACE}\\",\\"${metric}\\",\\"${ROUTE_DIMENSION}\\"`);
    }
    for (const route of ROUTES) expect(body).toContain(`\\"${ROUTE_DIMENSION}\\",\\"${route.operationId}\\"`);
    expect(body).toContain('ConsumedReadCapacityUnits');
  });

  it('outputs the API URL and the table name', () => {
    dev.template.hasOutput('ApiUrl', {});
    dev.template.hasOutput('TableName', { Value: { Ref: dev.logicalId(dev.stack.table.table) } });
  });
});
