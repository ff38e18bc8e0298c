/**
 * The whole service for one stage: the table, one function per resource family, the usage
 * function and the authorizer, the REST API built from the route table, optional WAF and custom domain,
 * the ingest bucket and function, the freshness function, alarms and the dashboard.
 */
import * as path from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { FUNCTION_NAMES, type FunctionName, PUBLIC_PATHS, ROUTES, type Route } from '../shared/http/routes';
import { DATASET_FAMILIES } from '../shared/import/dataset';
import { ENV } from '../shared/platform/config';
import type { StageConfig } from './config';
import { ApiFunction, type ApiFunctionDefaults } from './constructs/api-function';
import { DataTable } from './constructs/data-table';
import { Freshness } from './constructs/freshness';
import { Ingest } from './constructs/ingest';
import { Monitoring } from './constructs/monitoring';
import { MarketDataApi } from './constructs/rest-api';
import type { FunctionSettings } from './constructs/stack-function';
import { ApiWebAcl } from './constructs/web-acl';
import { Webhooks } from './constructs/webhooks';
import { acknowledge } from './nag';

/** functions/<name>/handler.ts, exporting `handler`. */
const FUNCTIONS_DIR = path.join(__dirname, '..', 'functions');
/** @internal (exported for its tests) */
export const handlerEntry = (name: string) => path.join(FUNCTIONS_DIR, name, 'handler.ts');

/**
 * What each function may do on the table: `serve` reads the served data and takes quota units;
 * `count` touches the quota counters only (GET /api/v1/usage answers from the request's charge);
 * `owner` counts and reads the caller's webhook subscriptions and deliveries (never a secret).
 */
const TABLE_ACCESS: Record<FunctionName, 'serve' | 'count' | 'owner'> = {
  platforms: 'serve',
  currencies: 'serve',
  offers: 'serve',
  history: 'serve',
  search: 'serve',
  usage: 'count',
  webhooks: 'owner',
  mcp: 'serve',
};

export interface MarketDataStackProps extends StackProps {
  config: StageConfig;
}

export class MarketDataStack extends Stack {
  readonly table: DataTable;
  readonly functions: Record<FunctionName, ApiFunction>;
  readonly authorizer: ApiFunction;
  readonly docs: ApiFunction;
  readonly api: MarketDataApi;
  readonly ingest: Ingest;
  readonly webhooks: Webhooks;
  readonly freshness: Freshness;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: MarketDataStackProps) {
    super(scope, id, props);
    const { config } = props;
    const removalPolicy = config.removalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = new DataTable(this, 'Data', {
      removalPolicy,
      deletionProtection: config.deletionProtection,
      ...config.onDemandCeiling,
    });

    const settings: FunctionSettings = {
      tableName: this.table.tableName,
      logRetention: config.logRetentionDays,
      removalPolicy,
      tracing: config.tracing,
      sourceMaps: config.sourceMaps,
    };
    const defaults: ApiFunctionDefaults = {
      ...settings,
      ratePerMinute: config.ratePerMinute,
      quotaPerMonth: config.quotaPerMonth,
      snapshotCacheMs: config.snapshotCacheMs,
      readCacheMb: config.readCacheMb,
      dataMaxAgeSeconds: config.maxDataAgeMinutes * 60,
    };

    this.functions = Object.fromEntries(
      FUNCTION_NAMES.map((name) => {
        const fn = new ApiFunction(this, `${pascal(name)}Function`, {
          entry: handlerEntry(name),
          memorySize: config.memorySizes[name],
          reservedConcurrency: config.reservedConcurrency[name],
          description: `Market data API: ${name} routes (${config.stage})`,
          defaults,
        });
        if (TABLE_ACCESS[name] === 'serve') this.table.grantServe(fn.fn);
        else this.table.grantCount(fn.fn);
        if (TABLE_ACCESS[name] === 'owner') this.table.grantWebhookView(fn.fn);
        return [name, fn];
      }),
    ) as Record<FunctionName, ApiFunction>;

    this.authorizer = new ApiFunction(this, 'AuthorizerFunction', {
      entry: handlerEntry('authorizer'),
      memorySize: config.memorySizes.authorizer,
      reservedConcurrency: config.reservedConcurrency.authorizer,
      description: `Market data API: Bearer key authorizer (${config.stage})`,
      defaults,
      // The pepper's parameter by name: the authorizer reads the SecureString at cold start, so
      // the value is in no template and no function configuration (functions/authorizer/pepper.ts).
      environment: config.keyPepperParameter ? { [ENV.keyPepperParameter]: config.keyPepperParameter } : {},
    });
    this.table.grantAuthorize(this.authorizer.fn);
    if (config.keyPepperParameter) this.grantPepperRead(this.authorizer, config.keyPepperParameter);

    // The key-free paths: the API description and docs page (Swagger UI's files travel with the
    // bundle) and the data status, which reads the snapshot pointer and nothing else.
    const swaggerUi = path.dirname(require.resolve('swagger-ui-dist/package.json'));
    this.docs = new ApiFunction(this, 'DocsFunction', {
      entry: handlerEntry('docs'),
      memorySize: 256,
      reservedConcurrency: config.reservedConcurrency.docs,
      description: `Market data API: API description, docs page and data status (${config.stage})`,
      defaults,
      assets: ['swagger-ui.css', 'swagger-ui-bundle.js'].map((file) => ({
        from: path.join(swaggerUi, file),
        to: 'swagger-ui',
      })),
    });
    this.table.grantReadPointer(this.docs.fn);

    this.api = new MarketDataApi(this, 'Api', {
      routes: ROUTES,
      functions: mapValues(this.functions, (fn) => fn.fn),
      authorizer: this.authorizer.fn,
      docs: this.docs.fn,
      config,
      removalPolicy,
    });

    if (config.waf.enabled) {
      new ApiWebAcl(this, 'Waf', {
        stage: this.api.stage,
        ratePerIpPer5Minutes: config.waf.ratePerIpPer5Minutes,
        metricPrefix: `market-data-${config.stage}`,
        logRetention: config.logRetentionDays,
        removalPolicy,
      });
    }

    this.ingest = new Ingest(this, 'Ingest', {
      entry: handlerEntry('ingest'),
      table: this.table,
      settings,
      snapshotCacheMs: config.snapshotCacheMs,
      removalPolicy,
      memorySize: config.ingestMemorySize,
      timeout: Duration.seconds(config.ingestTimeoutSeconds),
      maxReceiveCount: config.ingestMaxReceiveCount,
      recordHistory: config.recordHistory,
      description: `Market data API: imports files put under incoming/ in the ingest bucket (${config.stage})`,
    });

    this.freshness = new Freshness(this, 'Freshness', {
      entry: handlerEntry('freshness'),
      table: this.table,
      settings,
      description: `Market data API: age of each family's served data, every 5 minutes (${config.stage})`,
    });

    const topic = this.alarmTopic(config);
    this.webhooks = new Webhooks(this, 'Webhooks', {
      table: this.table,
      settings,
      matchEntry: handlerEntry('webhooks-match'),
      sendEntry: handlerEntry('webhooks-send'),
      stageName: config.stage,
      topic,
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      stageName: config.stage,
      apiStage: this.api.stage,
      functions: { ...mapValues(this.functions, (fn) => fn.fn), authorizer: this.authorizer.fn },
      authorizerName: 'authorizer',
      table: this.table.table,
      routes: ROUTES,
      topic,
      ingest: {
        fn: this.ingest.function.fn,
        deadLetterQueue: this.ingest.deadLetterQueue,
        eventDeadLetterQueue: this.ingest.eventDeadLetterQueue,
      },
      freshness: {
        fn: this.freshness.function.fn,
        families: DATASET_FAMILIES,
        maxDataAgeMinutes: config.maxDataAgeMinutes,
      },
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the API stage' });
    if (this.api.domainName) {
      new CfnOutput(this, 'CustomDomainUrl', { value: `https://${config.customDomain?.domainName}/` });
    }
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'For npm run import / npm run keys --table',
    });
    new CfnOutput(this, 'IngestBucketName', {
      value: this.ingest.bucket.bucketName,
      description: 'aws s3 cp FILE s3://<bucket>/incoming/ imports FILE',
    });
    new CfnOutput(this, 'DashboardName', { value: `MarketData-${config.stage}` });

    this.acknowledgeNagFindings(config);
  }

  /**
   * GetParameter on the pepper's parameter and nothing else of SSM, and kms:Decrypt only when SSM
   * asks on the function's behalf for that parameter (`kms:ViaService`, and the encryption context
   * SSM gives a SecureString: its ARN), whichever KMS key (AWS-managed or the operator's) it uses.
   */
  private grantPepperRead(fn: ApiFunction, parameterName: string): void {
    const parameterArn = this.formatArn({
      service: 'ssm',
      resource: 'parameter',
      resourceName: parameterName.replace(/^\//, ''),
    });
    fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['ssm:GetParameter'], resources: [parameterArn] }));
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['kms:Decrypt'],
        resources: [this.formatArn({ service: 'kms', resource: 'key', resourceName: '*' })],
        conditions: {
          StringEquals: {
            'kms:ViaService': `ssm.${this.region}.amazonaws.com`,
            'kms:EncryptionContext:PARAMETER_ARN': parameterArn,
          },
        },
      }),
    );
    // cdk-nag names a pseudo parameter `<AWS::Region>`, a stage pinned to a region by its value.
    const named = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value);
    acknowledge(
      fn.role,
      'AwsSolutions-IAM5',
      "Decrypt with the pepper parameter's KMS key, only through SSM and only for that parameter.",
      [`Resource::arn:<AWS::Partition>:kms:${named(this.region, 'Region')}:${named(this.account, 'AccountId')}:key/*`],
    );
  }

  private alarmTopic(config: StageConfig): sns.ITopic | undefined {
    let topic: sns.ITopic | undefined;
    if (config.alarmTopicArn) {
      topic = sns.Topic.fromTopicArn(this, 'AlarmTopic', config.alarmTopicArn);
    } else if (config.alarmEmail) {
      // No KMS key: CloudWatch cannot publish under the AWS-managed SNS key, and alarms hold no secrets.
      topic = new sns.Topic(this, 'AlarmTopic', {
        displayName: `Market data API alarms (${config.stage})`,
        enforceSSL: true,
      });
    }
    if (topic && config.alarmEmail) topic.addSubscription(new subscriptions.EmailSubscription(config.alarmEmail));
    return topic;
  }

  private acknowledgeNagFindings(config: StageConfig): void {
    const api = this.api.api;
    acknowledge(
      api,
      'AwsSolutions-APIG2',
      'Requests are validated by the functions (zod schemas) so errors use the service envelope.',
    );
    acknowledge(
      api,
      'AwsSolutions-COG4',
      'Clients authenticate with Bearer API keys checked by the Lambda TOKEN authorizer, not Cognito.',
    );
    if (!config.waf.enabled) {
      acknowledge(
        this.api.stage,
        'AwsSolutions-APIG3',
        `WAF is off for stage ${config.stage} by configuration (stages.${config.stage}.waf.enabled).`,
      );
    }
    for (const path of PUBLIC_PATHS) {
      const method = this.api.api.root.resourceForPath(path).node.findChild('GET');
      acknowledge(
        method,
        'AwsSolutions-APIG4',
        'The API description, its docs page and the data status are public, served without a key.',
      );
      acknowledge(
        method,
        'AwsSolutions-COG4',
        'The API description, its docs page and the data status are public, served without a key.',
      );
    }
    for (const route of ROUTES.filter((r: Route) => r.onlyMethod)) {
      const method = this.api.api.root.resourceForPath(route.path).node.findChild('ANY');
      const reason = `Every method but ${route.method} on ${route.path} answers a fixed 405 before the authorizer, as an unknown route answers 404.`;
      acknowledge(method, 'AwsSolutions-APIG4', reason);
      acknowledge(method, 'AwsSolutions-COG4', reason);
    }
    for (const fn of [
      ...Object.values(this.functions),
      this.authorizer,
      this.docs,
      this.ingest.function,
      this.freshness.function,
      this.webhooks.matchFunction,
      this.webhooks.sendFunction,
    ]) {
      acknowledge(fn, 'AwsSolutions-L1', 'Pinned to nodejs22.x, the version the bundle targets and the tests run on.');
      if (config.tracing) {
        acknowledge(
          fn.role,
          'AwsSolutions-IAM5',
          'X-Ray PutTraceSegments/PutTelemetryRecords support no resource scoping.',
          ['Resource::*'],
        );
      }
    }
  }
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

function mapValues<K extends string, A, B>(record: Record<K, A>, f: (a: A) => B): Record<K, B> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v as A)])) as Record<K, B>;
}
