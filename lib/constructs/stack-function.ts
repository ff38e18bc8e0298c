/**
 * A Lambda function with the project's shared defaults: Node.js 22 on arm64, one minified CJS
 * bundle with the AWS SDK v3 inside (no dependency on the runtime's copy; credentials from the
 * environment only; options in lib/bundling.ts, shared with the benchmark), an explicit log group
 * with retention, a role that may write to that log group only, and in its environment the table's
 * name and whatever the caller adds of the runtime configuration (shared/platform/config.ts): the
 * API functions their budgets and caches (./api-function.ts), the ingest and freshness functions
 * only their own settings.
 */
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '../../shared/platform/config';
import { BUNDLE_OPTIONS } from '../bundling';

/** What every function of the stack shares. */
export interface FunctionSettings {
  tableName: string;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
  tracing: boolean;
  sourceMaps: boolean;
}

export interface StackFunctionProps {
  /** Absolute path of the handler file; it must export `handler`. */
  entry: string;
  memorySize: number;
  settings: FunctionSettings;
  description?: string;
  /** Merged over the table's name (and NODE_OPTIONS with source maps): a variable given here wins. */
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

export class StackFunction extends Construct {
  readonly fn: nodejs.NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: StackFunctionProps) {
    super(scope, id);
    const { settings } = props;

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
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
      tracing: settings.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      // SDK v3 reuses connections by itself; the v2-era variable is not wanted.
      awsSdkConnectionReuse: false,
      environment: mergeEnvironment(baseEnvironment(settings), props.environment),
      // The esbuild options the benchmark measures too (lib/bundling.ts).
      bundling: {
        format: BUNDLE_OPTIONS.format === 'cjs' ? nodejs.OutputFormat.CJS : nodejs.OutputFormat.ESM,
        target: BUNDLE_OPTIONS.target,
        minify: BUNDLE_OPTIONS.minify,
        sourceMap: settings.sourceMaps,
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

function baseEnvironment(settings: FunctionSettings): Record<string, string> {
  return {
    [ENV.tableName]: settings.tableName,
    ...(settings.sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
  };
}

/** The caller's variables over the defaults; neither side loses a key it alone sets. */
export function mergeEnvironment(
  defaults: Record<string, string>,
  caller: Record<string, string> = {},
): Record<string, string> {
  return { ...defaults, ...caller };
}
