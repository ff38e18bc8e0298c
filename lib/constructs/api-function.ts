/**
 * A Lambda function with the project's shared defaults: Node.js 22 on arm64, one minified CJS
 * bundle with the AWS SDK v3 inside (no dependency on the runtime's copy; credentials from the
 * environment only; options in lib/bundling.ts, shared with the benchmark), an explicit log group
 * with retention, a role that may write to that log group only, and the runtime configuration of
 * shared/platform/config.ts in its environment.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/platform/config';
import { BUNDLE_OPTIONS } from '../bundling';

export interface ApiFunctionDefaults {
  tableName: string;
  ratePerMinute: number;
  quotaPerMonth: number;
  snapshotCacheMs: number;
  readCacheMb: number;
  /** `stale` of GET /api/v1/status after this long without a refresh. */
  dataMaxAgeSeconds: number;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
  tracing: boolean;
  sourceMaps: boolean;
}

export interface ApiFunctionProps {
  /** Absolute path of the handler file; it must export `handler`. */
  entry: string;
  memorySize: number;
  defaults: ApiFunctionDefaults;
  description?: string;
  /** Merged over the defaults: a variable given here wins, the others stay. */
  environment?: Record<string, string>;
  /** Default 10 s; the DynamoDB client has its own shorter timeouts. */
  timeout?: Duration;
  /** Files copied next to the bundle: `{ from: absolute path, to: directory in the bundle }`. */
  assets?: { from: string; to: string }[];
  /** Concurrent executions set aside for (and capping) this function; default none. */
  reservedConcurrency?: number;
}

/** Node 22 is what the bundle targets and what the tests run on; move both together. */
const RUNTIME = lambda.Runtime.NODEJS_22_X;

export class ApiFunction extends Construct {
  readonly fn: nodejs.NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    const { defaults } = props;

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: defaults.logRetention,
      removalPolicy: defaults.removalPolicy,
    });

    // An own role instead of AWSLambdaBasicExecutionRole: logs go to this log group only.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${this.node.path}`,
    });
    this.logGroup.grant(this.role, 'logs:CreateLogStream', 'logs:PutLogEvents');

    this.fn = new nodejs.NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrency,
      role: this.role,
      logGroup: this.logGroup,
      tracing: defaults.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      // SDK v3 reuses connections by itself; the v2-era variable is not wanted.
      awsSdkConnectionReuse: false,
      environment: mergeEnvironment(defaultEnvironment(defaults), props.environment),
      // The esbuild options the benchmark measures too (lib/bundling.ts).
      bundling: {
        format: BUNDLE_OPTIONS.format === 'cjs' ? nodejs.OutputFormat.CJS : nodejs.OutputFormat.ESM,
        target: BUNDLE_OPTIONS.target,
        minify: BUNDLE_OPTIONS.minify,
        sourceMap: defaults.sourceMaps,
        sourcesContent: BUNDLE_OPTIONS.sourcesContent,
        externalModules: [...BUNDLE_OPTIONS.external],
        mainFields: [...BUNDLE_OPTIONS.mainFields],
        // NodejsFunction has no alias option: esbuild's own flag, `--alias:PACKAGE=PATH`.
        esbuildArgs: Object.fromEntries(
          Object.entries(BUNDLE_OPTIONS.alias).map(([from, to]) => [`--alias:${from}`, to]),
        ),
        commandHooks: props.assets?.length
          ? {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (_input: string, output: string) =>
                props.assets!.map(({ from, to }) => `mkdir -p "${output}/${to}" && cp "${from}" "${output}/${to}/"`),
            }
          : undefined,
      },
    });
  }
}

function defaultEnvironment(defaults: ApiFunctionDefaults): Record<string, string> {
  return {
    [ENV.tableName]: defaults.tableName,
    [ENV.ratePerMinute]: String(defaults.ratePerMinute),
    [ENV.quotaPerMonth]: String(defaults.quotaPerMonth),
    [ENV.snapshotCacheMs]: String(defaults.snapshotCacheMs),
    [ENV.readCacheMb]: String(defaults.readCacheMb),
    [ENV.dataMaxAgeSeconds]: String(defaults.dataMaxAgeSeconds),
    ...(defaults.sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
  };
}

/** The caller's variables over the defaults; neither side loses a key it alone sets. */
export function mergeEnvironment(
  defaults: Record<string, string>,
  caller: Record<string, string> = {},
): Record<string, string> {
  return { ...defaults, ...caller };
}
