/**
 * The regional REST API: one resource and method per entry of the route table (shared/http/routes.ts),
 * each a Lambda proxy to its family function behind the TOKEN authorizer (streamed for a function
 * whose answers the route table streams); JSON access logs; and
 * gateway responses that render API Gateway's own refusals in the service's error envelope.
 */
import { Duration, type RemovalPolicy, Size } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as targets from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import {
  CORS_ALLOW_HEADERS,
  CORS_ALLOW_METHODS,
  CORS_ALLOW_ORIGIN,
  CORS_EXPOSE_HEADERS,
  CORS_HEADERS,
  CORS_MAX_AGE_SECONDS,
} from '../../shared/http/cors';
import {
  GATEWAY_RESPONSE_HEADERS,
  GATEWAY_RESPONSES,
  type GatewayResponseSpec,
  gatewayResponseBody,
  methodNotAllowedResponse,
  WAF_RESPONSES,
} from '../../shared/http/gateway-responses';
import { MIN_COMPRESSION_BYTES } from '../../shared/http/middleware/compression';
import { type FunctionName, OPENAPI_PATH, PUBLIC_PATHS, type Route, STATUS_PATH } from '../../shared/http/routes';
import { BEARER_EXPRESSION } from '../../shared/platform/bearer';
import type { StageConfig } from '../config';

export interface MarketDataApiProps {
  routes: readonly Route[];
  functions: Record<FunctionName, lambda.IFunction>;
  authorizer: lambda.IFunction;
  /** Serves PUBLIC_PATHS (the API description, its docs page, the data status) without a key. */
  docs?: lambda.IFunction;
  config: Pick<
    StageConfig,
    | 'stage'
    | 'authorizerCacheTtlSeconds'
    | 'tracing'
    | 'throttle'
    | 'docsThrottle'
    | 'customDomain'
    | 'logRetentionDays'
  >;
  removalPolicy: RemovalPolicy;
}

/**
 * Gateway responses only the deployed API can give (the local gateway has no WAF and no resource
 * lookup of its own); everything else comes from shared/http/gateway-responses.ts, the table the
 * local gateway answers from.
 */
const DEPLOYED_ONLY_RESPONSES: Record<string, GatewayResponseSpec> = {
  RESOURCE_NOT_FOUND: GATEWAY_RESPONSES.MISSING_AUTHENTICATION_TOKEN,
  // The web ACL's rules answer with their own custom responses (lib/constructs/web-acl.ts), which
  // take precedence; a block without one is a refusal of the request, never a retryable 503.
  WAF_FILTERED: WAF_RESPONSES.refused,
};

/** The access log line: one JSON object per request. */
const ACCESS_LOG_FIELDS: Record<string, string> = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  path: '$context.path',
  resourcePath: '$context.resourcePath',
  status: '$context.status',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  responseLength: '$context.responseLength',
  keyId: '$context.authorizer.keyId',
  errorType: '$context.error.responseType',
  authorizerError: '$context.authorizer.error',
};

export class MarketDataApi extends Construct {
  readonly api: apigw.RestApi;
  readonly accessLogs: logs.LogGroup;
  readonly domainName: apigw.DomainName | undefined;

  constructor(scope: Construct, id: string, props: MarketDataApiProps) {
    super(scope, id);
    const { config } = props;

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: config.logRetentionDays,
      removalPolicy: props.removalPolicy,
    });

    const authorizer = new apigw.TokenAuthorizer(this, 'Authorizer', {
      handler: props.authorizer,
      identitySource: apigw.IdentitySource.header('Authorization'),
      // A value the authorizer would refuse unread gets the 401 without invoking it (shared/platform/bearer.ts).
      validationRegex: BEARER_EXPRESSION,
      // Decisions are cached per token: a revoked key or a lapsed subscription keeps its last
      // answer until the TTL ends (docs/deploy.md). 0 turns the cache off.
      resultsCacheTtl: Duration.seconds(config.authorizerCacheTtlSeconds),
    });

    this.api = new apigw.RestApi(this, 'Api', {
      restApiName: `market-data-${config.stage}`,
      description: 'Public market-data API (read-only, Bearer API keys).',
      endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
      minCompressionSize: Size.bytes(MIN_COMPRESSION_BYTES),
      // The functions compress large answers themselves (shared/http/middleware/compression.ts) and
      // return them base64 with isBase64Encoded: the proxy decodes a body to binary only when the
      // request's Accept matches a binary media type, so every type is one. A text body
      // (isBase64Encoded false) passes as it is.
      binaryMediaTypes: ['*/*'],
      // The account-wide CloudWatch role (AWS::ApiGateway::Account, a region-wide singleton) is
      // not the stage's: lib/api-gateway-account-stack.ts, deployed once per account and region.
      cloudWatchRole: false,
      defaultMethodOptions: { authorizer, authorizationType: apigw.AuthorizationType.CUSTOM },
      deployOptions: {
        stageName: config.stage,
        tracingEnabled: config.tracing,
        accessLogDestination: new apigw.LogGroupLogDestination(this.accessLogs),
        accessLogFormat: apigw.AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
        // Execution logs at ERROR only, and never request data: requests carry Bearer keys.
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: config.throttle.rateLimit,
        throttlingBurstLimit: config.throttle.burstLimit,
        // The key-free paths have no per-key budget: their own, lower ceiling.
        methodOptions: Object.fromEntries(
          (props.docs ? PUBLIC_PATHS : []).map((path) => [
            `${path}/GET`,
            {
              throttlingRateLimit: config.docsThrottle.rateLimit,
              throttlingBurstLimit: config.docsThrottle.burstLimit,
              // A method's settings replace the stage's: repeat the logging choice.
              loggingLevel: apigw.MethodLoggingLevel.ERROR,
              dataTraceEnabled: false,
            },
          ]),
        ),
      },
    });

    this.addExecutionLogGroup(config.stage, config.logRetentionDays, props.removalPolicy);
    this.addRoutes(props.routes, props.functions);
    if (props.docs) this.addPublicRoutes(props.docs);
    for (const [type, spec] of Object.entries({ ...GATEWAY_RESPONSES, ...DEPLOYED_ONLY_RESPONSES })) {
      this.addGatewayResponse(type, spec);
    }
    this.domainName = config.customDomain && this.addCustomDomain(config.customDomain);
  }

  get stage(): apigw.Stage {
    return this.api.deploymentStage;
  }

  private addRoutes(routes: readonly Route[], functions: Record<FunctionName, lambda.IFunction>): void {
    const integrations = new Map<FunctionName, apigw.LambdaIntegration>();
    const integrationOf = ({ fn, transfer }: Route) => {
      let integration = integrations.get(fn);
      if (!integration) {
        integration = new apigw.LambdaIntegration(functions[fn], {
          allowTestInvoke: false,
          // A streamed function (ADR 0014) is invoked with InvokeWithResponseStream and its answer
          // passed on as it comes: neither Lambda's 6 MB nor API Gateway's 10 MB limit applies.
          responseTransferMode:
            transfer === 'stream' ? apigw.ResponseTransferMode.STREAM : apigw.ResponseTransferMode.BUFFERED,
        });
        integrations.set(fn, integration);
      }
      return integration;
    };
    const resources = new Set<apigw.Resource>();
    for (const route of routes) {
      const resource = this.api.root.resourceForPath(route.path);
      resource.addMethod(route.method, integrationOf(route), { operationName: route.operationId });
      if (route.onlyMethod) this.addMethodNotAllowed(resource, route.method);
      resources.add(resource);
    }
    // Browsers send the preflight without the Authorization header: answered by a mock, no key.
    for (const resource of resources) {
      const preflight = resource.addCorsPreflight({
        allowOrigins: [CORS_ALLOW_ORIGIN],
        allowHeaders: CORS_ALLOW_HEADERS,
        allowMethods: CORS_ALLOW_METHODS,
        exposeHeaders: CORS_EXPOSE_HEADERS,
        maxAge: Duration.seconds(CORS_MAX_AGE_SECONDS),
      });
      // With every media type binary, a mock cannot apply its request template to the request
      // it takes for binary (500 "Unable to transform request") unless told to treat it as text.
      const method = preflight.node.defaultChild as apigw.CfnMethod;
      method.addPropertyOverride('Integration.ContentHandling', 'CONVERT_TO_TEXT');
      method.addPropertyOverride('Integration.IntegrationResponses.0.ContentHandling', 'CONVERT_TO_TEXT');
    }
  }

  /**
   * Every other method of a path that takes one only (`Route.onlyMethod`): `ANY`, which the path's
   * own method and preflight take precedence over, answered by a mock before the authorizer (like
   * the 404 of an unknown route: no key, no budget) with the 405 of shared/http/gateway-responses.ts
   * and the headers of a gateway response.
   */
  private addMethodNotAllowed(resource: apigw.Resource, allow: string): void {
    const spec = methodNotAllowedResponse(allow);
    const headers: Record<string, string> = { 'X-Request-Id': 'context.requestId' };
    for (const [name, value] of Object.entries({ ...GATEWAY_RESPONSE_HEADERS, ...CORS_HEADERS, ...spec.headers }))
      headers[name] = `'${value}'`;
    const parameter = (name: string) => `method.response.header.${name}`;
    const status = String(spec.statusCode);
    const method = resource.addMethod(
      'ANY',
      new apigw.MockIntegration({
        // The one integration response is the default: it answers whatever the request's type.
        requestTemplates: { 'application/json': `{ "statusCode": ${spec.statusCode} }` },
        passthroughBehavior: apigw.PassthroughBehavior.WHEN_NO_TEMPLATES,
        integrationResponses: [
          {
            statusCode: status,
            responseParameters: Object.fromEntries(
              Object.entries(headers).map(([name, value]) => [parameter(name), value]),
            ),
            responseTemplates: { 'application/json': gatewayResponseBody(spec) },
          },
        ],
      }),
      {
        authorizationType: apigw.AuthorizationType.NONE,
        operationName: 'methodNotAllowed',
        methodResponses: [
          {
            statusCode: status,
            responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [parameter(name), true])),
          },
        ],
      },
    );
    // Every media type is binary to the API: the mock treats the request and its answer as text,
    // as the preflights do.
    const cfn = method.node.defaultChild as apigw.CfnMethod;
    cfn.addPropertyOverride('Integration.ContentHandling', 'CONVERT_TO_TEXT');
    cfn.addPropertyOverride('Integration.IntegrationResponses.0.ContentHandling', 'CONVERT_TO_TEXT');
  }

  /** What anyone may read: no authorizer, no key, no budget. */
  private addPublicRoutes(docs: lambda.IFunction): void {
    const integration = new apigw.LambdaIntegration(docs, { allowTestInvoke: false });
    const operationName = (path: string) =>
      path === OPENAPI_PATH ? 'getOpenApiDocument' : path === STATUS_PATH ? 'getStatus' : 'getDocsPage';
    for (const path of PUBLIC_PATHS) {
      this.api.root.resourceForPath(path).addMethod('GET', integration, {
        authorizationType: apigw.AuthorizationType.NONE,
        operationName: operationName(path),
      });
    }
  }

  private addGatewayResponse(type: string, spec: GatewayResponseSpec): void {
    const headers: Record<string, string> = {
      // The request's own id (a context variable), never a value the client sent.
      'X-Request-Id': 'context.requestId',
    };
    for (const [name, value] of Object.entries({ ...GATEWAY_RESPONSE_HEADERS, ...CORS_HEADERS }))
      headers[name] = `'${value}'`;
    for (const [name, value] of Object.entries(spec.headers ?? {})) headers[name] = `'${value}'`;
    this.api.addGatewayResponse(type, {
      type: apigw.ResponseType.of(type),
      statusCode: String(spec.statusCode),
      responseHeaders: headers,
      templates: { 'application/json': gatewayResponseBody(spec) },
    });
  }

  /**
   * API Gateway creates the execution log group on first use, with no retention; creating it
   * first under the name it will use keeps it under the stack's retention.
   */
  private addExecutionLogGroup(stageName: string, retention: logs.RetentionDays, removalPolicy: RemovalPolicy): void {
    // The stage name as configured, not stage.stageName: that is a Ref to the stage (a cycle).
    const executionLogs = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${stageName}`,
      retention,
      removalPolicy,
    });
    this.stage.node.addDependency(executionLogs);
  }

  private addCustomDomain(domain: NonNullable<StageConfig['customDomain']>): apigw.DomainName {
    const domainName = new apigw.DomainName(this, 'Domain', {
      domainName: domain.domainName,
      certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
      endpointType: apigw.EndpointType.REGIONAL,
      securityPolicy: apigw.SecurityPolicy.TLS_1_2,
      mapping: this.api,
    });
    if (domain.hostedZone) {
      const zone = route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', {
        hostedZoneId: domain.hostedZone.id,
        zoneName: domain.hostedZone.name,
      });
      new route53.ARecord(this, 'AliasRecord', {
        zone,
        recordName: domain.domainName,
        target: route53.RecordTarget.fromAlias(new targets.ApiGatewayDomain(domainName)),
      });
    }
    return domainName;
  }
}
