import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { API_GATEWAY_ACCOUNT_STACK } from '../../../lib/api-gateway-account-stack';
import { CORS_HEADERS } from '../../../shared/http/cors';
import {
  GATEWAY_RESPONSES,
  gatewayResponseBody,
  methodNotAllowedResponse,
  WAF_RESPONSES,
} from '../../../shared/http/gateway-responses';
import { ROUTES, type Route } from '../../../shared/http/routes';
import { bearerKey } from '../../../shared/platform/bearer';
import { type Fixture, PROD_BLOCK, synth, synthApp } from './app-fixture';

type Resources = Record<string, { Properties: Record<string, any> }>;

/** Full path of every AWS::ApiGateway::Resource, rebuilt from PathPart/ParentId. */
function resourcePaths(resources: Resources, restApiId: string): Map<string, string> {
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known) return known;
    const { PathPart, ParentId } = resources[id].Properties;
    const parent = ParentId['Fn::GetAtt']?.[0] === restApiId ? '' : pathOf(ParentId.Ref);
    const full = `${parent}/${PathPart}`;
    paths.set(id, full);
    return full;
  };
  for (const id of Object.keys(resources)) pathOf(id);
  return paths;
}

describe('MarketDataApi', () => {
  let dev: Fixture;

  beforeAll(() => {
    dev = synth('dev');
  });

  it('is a regional REST API named after the stage, compressing from 1 KiB', () => {
    dev.template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: 'market-data-dev',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      MinimumCompressionSize: 1024,
    });
  });

  it("passes the functions' base64 coded answers on as bytes, the preflight mocks still answering as text", () => {
    // The proxy decodes an isBase64Encoded body only when the request's Accept is a binary media type.
    dev.template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
    const options = Object.values(
      dev.template.findResources('AWS::ApiGateway::Method', { Properties: { HttpMethod: 'OPTIONS' } }),
    );
    expect(options.length).toBeGreaterThan(0);
    for (const method of options) {
      expect(method.Properties.Integration).toMatchObject({ Type: 'MOCK', ContentHandling: 'CONVERT_TO_TEXT' });
      for (const response of method.Properties.Integration.IntegrationResponses)
        expect(response.ContentHandling).toBe('CONVERT_TO_TEXT');
    }
  });

  it('has exactly one GET method per route, proxied to the route family function behind the authorizer', () => {
    const { template, stack, logicalId } = dev;
    const restApiId = logicalId(stack.api.api);
    const authorizerId = Object.keys(template.findResources('AWS::ApiGateway::Authorizer'))[0];
    const paths = resourcePaths(template.findResources('AWS::ApiGateway::Resource') as Resources, restApiId);
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
      (m) => m.Properties.HttpMethod !== 'OPTIONS' && m.Properties.AuthorizationType !== 'NONE',
    );

    expect(methods).toHaveLength(ROUTES.length);
    for (const route of ROUTES) {
      const matching = methods.filter((m) => paths.get(m.Properties.ResourceId.Ref) === route.path);
      expect(matching).toHaveLength(1);
      const [method] = matching;
      expect(method.Properties).toMatchObject({
        HttpMethod: route.method,
        OperationName: route.operationId,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: authorizerId },
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      const functionId = logicalId(stack.functions[route.fn].fn);
      expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(`"${functionId}"`);
    }
  });

  it('streams the answers of the currencies routes and buffers the others, as the route table says', () => {
    const { template, stack, logicalId } = dev;
    const paths = resourcePaths(
      template.findResources('AWS::ApiGateway::Resource') as Resources,
      logicalId(stack.api.api),
    );
    const methodOf = (path: string, method: string) =>
      Object.values(template.findResources('AWS::ApiGateway::Method')).find(
        (m) => m.Properties.HttpMethod === method && paths.get(m.Properties.ResourceId.Ref) === path,
      )!;
    const streamed = ROUTES.filter((route) => route.transfer === 'stream');
    expect(streamed.map((route) => route.operationId).sort()).toEqual([
      'getBorrowHistories',
      'getBorrowHistory',
      'getCollateralHistories',
      'getCollateralHistory',
      'getCurrency',
      'getEarnHistories',
      'getEarnHistory',
      'listCurrencies',
    ]);
    for (const route of ROUTES) {
      const integration = methodOf(route.path, route.method).Properties.Integration;
      const uri = JSON.stringify(integration.Uri);
      if (route.transfer === 'stream') {
        expect(integration).toMatchObject({ Type: 'AWS_PROXY', ResponseTransferMode: 'STREAM' });
        expect(uri).toContain('/response-streaming-invocations');
        expect(uri).toContain('2021-11-15/functions/');
      } else {
        expect(integration.ResponseTransferMode ?? 'BUFFERED').toBe('BUFFERED');
        expect(uri).not.toContain('response-streaming');
        expect(uri).toContain('2015-03-31/functions/');
      }
    }
  });

  it('serves the API description, docs page and data status without the authorizer', () => {
    const { template, stack, logicalId } = dev;
    const paths = resourcePaths(
      template.findResources('AWS::ApiGateway::Resource') as Resources,
      logicalId(stack.api.api),
    );
    const open = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
      (m) => m.Properties.HttpMethod === 'GET' && m.Properties.AuthorizationType === 'NONE',
    );
    expect(open.map((m) => paths.get(m.Properties.ResourceId.Ref)).sort()).toEqual([
      '/api/v1/status',
      '/docs',
      '/docs/{asset}',
      '/openapi.json',
    ]);
    for (const method of open)
      expect(JSON.stringify(method.Properties.Integration.Uri)).toContain(logicalId(stack.docs.fn));
  });

  it('answers the CORS preflight of every route without the authorizer', () => {
    const { template, stack, logicalId } = dev;
    const paths = resourcePaths(
      template.findResources('AWS::ApiGateway::Resource') as Resources,
      logicalId(stack.api.api),
    );
    const preflights = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
      (m) => m.Properties.HttpMethod === 'OPTIONS',
    );

    expect(preflights.map((m) => paths.get(m.Properties.ResourceId.Ref)).sort()).toEqual(
      ROUTES.map((r) => r.path).sort(),
    );
    for (const preflight of preflights) {
      expect(preflight.Properties).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
      expect(preflight.Properties.AuthorizerId).toBeUndefined();
      expect(JSON.stringify(preflight.Properties.Integration.IntegrationResponses)).toContain(
        "'Authorization,Content-Type,If-None-Match,Mcp-Protocol-Version'",
      );
    }
  });

  it('answers every other method of a path that takes one only (/mcp) 405 with Allow, without the authorizer, as the local gateway does', () => {
    const { template, stack, logicalId } = dev;
    const paths = resourcePaths(
      template.findResources('AWS::ApiGateway::Resource') as Resources,
      logicalId(stack.api.api),
    );
    const any = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
      (m) => m.Properties.HttpMethod === 'ANY',
    );
    const only = ROUTES.filter((r: Route) => r.onlyMethod);
    expect(only.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /mcp']);
    expect(any.map((m) => paths.get(m.Properties.ResourceId.Ref))).toEqual(only.map((r) => r.path));

    const [method] = any;
    const spec = methodNotAllowedResponse('POST');
    expect(method.Properties).toMatchObject({
      AuthorizationType: 'NONE',
      Integration: { Type: 'MOCK', ContentHandling: 'CONVERT_TO_TEXT' },
    });
    expect(method.Properties.AuthorizerId).toBeUndefined();
    const [response] = method.Properties.Integration.IntegrationResponses;
    // The default (no selection pattern): the one answer, whatever the request's type.
    expect(response.SelectionPattern).toBeUndefined();
    expect(response).toMatchObject({ StatusCode: '405', ContentHandling: 'CONVERT_TO_TEXT' });
    expect(JSON.parse(response.ResponseTemplates['application/json'])).toEqual({
      error: { code: 'method_not_allowed', message: 'This path takes POST only.', details: null },
    });
    expect(response.ResponseTemplates['application/json']).toBe(gatewayResponseBody(spec));
    const headers = response.ResponseParameters as Record<string, string>;
    expect(headers).toMatchObject({
      'method.response.header.Allow': "'POST'",
      'method.response.header.X-Request-Id': 'context.requestId',
      'method.response.header.Content-Type': "'application/json; charset=utf-8'",
      'method.response.header.Cache-Control': "'no-store'",
      'method.response.header.Access-Control-Allow-Origin': `'${CORS_HEADERS['Access-Control-Allow-Origin']}'`,
    });
    // Each header the integration sets is declared by the method response, as API Gateway requires.
    expect(Object.keys(method.Properties.MethodResponses[0].ResponseParameters).sort()).toEqual(
      Object.keys(headers).sort(),
    );
    expect(method.Properties.MethodResponses[0].StatusCode).toBe('405');
    // POST and the preflight keep their own methods, which take precedence over ANY.
    const onMcp = Object.values(template.findResources('AWS::ApiGateway::Method'))
      .filter((m) => paths.get(m.Properties.ResourceId.Ref) === '/mcp')
      .map((m) => m.Properties.HttpMethod)
      .sort();
    expect(onMcp).toEqual(['ANY', 'OPTIONS', 'POST']);
  });

  it('authorizes with a cached TOKEN authorizer on the Authorization header', () => {
    dev.template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    dev.template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 300,
    });
    expect(JSON.stringify(dev.template.findResources('AWS::ApiGateway::Authorizer'))).toContain(
      dev.logicalId(dev.stack.authorizer.fn),
    );
  });

  it('refuses with the identity validation expression exactly the values the authorizer refuses unread', () => {
    const [authorizer] = Object.values(dev.template.findResources('AWS::ApiGateway::Authorizer'));
    const expression = new RegExp(authorizer.Properties.IdentityValidationExpression);
    const key = 'k'.repeat(40);

    for (const accepted of [
      `Bearer ${key}`,
      `bearer ${key}`,
      `bEaReR ${key}`,
      `Bearer    ${key}`,
      ` Bearer ${key}\t`,
      `Bearer ${'a'.repeat(32)}`,
      `Bearer ${'a'.repeat(128)}`,
    ]) {
      expect([accepted, expression.test(accepted), bearerKey(accepted)]).toEqual([accepted, true, expect.any(String)]);
    }
    for (const refused of [
      '',
      key,
      `Basic ${key}`,
      `Bearer${key}`,
      `Bearer\t${key}`,
      `Bearer ${key} x`,
      `Bearer ${'a'.repeat(31)}`,
      `Bearer ${'a'.repeat(129)}`,
      `Bearer ${key}==`,
      `Bearer ${key.slice(1)}.`,
    ]) {
      expect([refused, expression.test(refused), bearerKey(refused)]).toEqual([refused, false, undefined]);
    }
  });

  it('throttles each key-free method below the stage throttle, as configured', () => {
    const settings = (fixture: Fixture) =>
      Object.values(fixture.template.findResources('AWS::ApiGateway::Stage'))[0].Properties.MethodSettings as Record<
        string,
        unknown
      >[];

    for (const path of ['/~1openapi.json', '/~1docs', '/~1docs~1{asset}', '/~1api~1v1~1status']) {
      expect(settings(dev)).toContainEqual(
        expect.objectContaining({
          ResourcePath: path,
          HttpMethod: 'GET',
          ThrottlingRateLimit: 20,
          ThrottlingBurstLimit: 40,
        }),
      );
      expect(settings(synth('dev', { docsThrottle: { rateLimit: 5, burstLimit: 7 } }))).toContainEqual(
        expect.objectContaining({
          ResourcePath: path,
          HttpMethod: 'GET',
          ThrottlingRateLimit: 5,
          ThrottlingBurstLimit: 7,
        }),
      );
    }
  });

  it('turns authorizer caching off with a TTL of 0', () => {
    synth('dev', { authorizerCacheTtlSeconds: 0 }).template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      AuthorizerResultTtlInSeconds: 0,
    });
  });

  it('writes one JSON access log line per request with the fields operations need', () => {
    const stage = Object.values(dev.template.findResources('AWS::ApiGateway::Stage'))[0];
    const format = JSON.parse(stage.Properties.AccessLogSetting.Format);

    expect(stage.Properties.AccessLogSetting.DestinationArn).toEqual({
      'Fn::GetAtt': [dev.logicalId(dev.stack.api.accessLogs), 'Arn'],
    });
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      method: '$context.httpMethod',
      path: '$context.path',
      status: '$context.status',
      latencyMs: '$context.responseLatency',
      keyId: '$context.authorizer.keyId',
    });
  });

  it('names the stage from config, logs errors only and never request data', () => {
    dev.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'dev',
      TracingEnabled: false,
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          ResourcePath: '/*',
          HttpMethod: '*',
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
          ThrottlingRateLimit: 500,
          ThrottlingBurstLimit: 1000,
        }),
      ]),
    });
    const [stage] = Object.values(dev.template.findResources('AWS::ApiGateway::Stage'));
    for (const setting of stage.Properties.MethodSettings)
      expect(setting).toMatchObject({ LoggingLevel: 'ERROR', DataTraceEnabled: false });
    dev.template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: {
        'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: dev.logicalId(dev.stack.api.api) }, '/dev']],
      },
    });
  });

  it('turns X-Ray on the stage on with tracing', () => {
    synth('prod').template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'prod', TracingEnabled: true });
  });

  it.each([
    ['UNAUTHORIZED', '401', 'invalid_api_key', false],
    ['ACCESS_DENIED', '403', 'subscription_required', false],
    ['MISSING_AUTHENTICATION_TOKEN', '404', 'not_found', false],
    ['RESOURCE_NOT_FOUND', '404', 'not_found', false],
    ['AUTHORIZER_FAILURE', '503', 'service_unavailable', true],
    ['AUTHORIZER_CONFIGURATION_ERROR', '503', 'service_unavailable', true],
    ['INTEGRATION_TIMEOUT', '503', 'service_unavailable', true],
    ['THROTTLED', '503', 'service_unavailable', true],
    ['WAF_FILTERED', '400', 'validation_error', false],
    ['DEFAULT_4XX', '400', 'validation_error', false],
    ['DEFAULT_5XX', '500', 'internal_error', false],
  ])('answers %s with %s and the %s envelope', (type, status, code, retryAfter) => {
    const responses = dev.template.findResources('AWS::ApiGateway::GatewayResponse', {
      Properties: { ResponseType: type },
    });
    const [response] = Object.values(responses);

    expect(Object.keys(responses)).toHaveLength(1);
    expect(response.Properties.StatusCode).toBe(status);
    expect(response.Properties.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Content-Type': "'application/json; charset=utf-8'",
      // Nothing to keep, on every answer the description promises it on; and every answer varies by coding.
      'gatewayresponse.header.Cache-Control': "'no-store'",
      'gatewayresponse.header.Vary': "'Accept-Encoding'",
      // The request's own id, never a header the client chose.
      'gatewayresponse.header.X-Request-Id': 'context.requestId',
    });
    expect('gatewayresponse.header.Retry-After' in response.Properties.ResponseParameters).toBe(retryAfter);
    const envelope = JSON.parse(response.Properties.ResponseTemplates['application/json']);
    expect(Object.keys(envelope)).toEqual(['error']);
    expect(Object.keys(envelope.error).sort()).toEqual(['code', 'details', 'message']);
    expect(envelope.error.code).toBe(code);
    expect(envelope.error.message).toMatch(/\w/);
  });

  it('challenges every 401 with WWW-Authenticate: Bearer and invalid_token (RFC 6750)', () => {
    const [unauthorized] = Object.values(
      dev.template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: 'UNAUTHORIZED' } }),
    );
    expect(unauthorized.Properties.ResponseParameters['gatewayresponse.header.WWW-Authenticate']).toBe(
      `'Bearer error="invalid_token"'`,
    );
  });

  it('renders exactly the bodies and headers of shared/http/gateway-responses.ts, which the local gateway serves', () => {
    for (const [type, spec] of Object.entries(GATEWAY_RESPONSES)) {
      const [response] = Object.values(
        dev.template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: type } }),
      );
      expect(response.Properties.StatusCode).toBe(String(spec.statusCode));
      expect(response.Properties.ResponseTemplates).toEqual({ 'application/json': gatewayResponseBody(spec) });
      for (const [header, value] of Object.entries(spec.headers ?? {})) {
        expect(response.Properties.ResponseParameters[`gatewayresponse.header.${header}`]).toBe(`'${value}'`);
      }
    }
    dev.template.resourceCountIs('AWS::ApiGateway::GatewayResponse', Object.keys(GATEWAY_RESPONSES).length + 2);
  });

  it('has no custom domain and no WAF unless configured', () => {
    dev.template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
    dev.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    dev.template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });

  it('maps a custom domain, with an alias record when a hosted zone is given', () => {
    const { template } = synth('dev', {
      customDomain: {
        domainName: 'api.example.com',
        certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
        hostedZone: { id: 'Z123', name: 'example.com' },
      },
    });

    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.example.com',
      RegionalCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.resourceCountIs('AWS::ApiGateway::BasePathMapping', 1);
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: 'api.example.com.',
      Type: 'A',
      HostedZoneId: 'Z123',
    });
    template.hasOutput('CustomDomainUrl', { Value: 'https://api.example.com/' });
  });

  it('attaches a WAF web ACL whose blocks answer with the envelope: 429 for the rate rule, 400 for content', () => {
    const { template, stack, logicalId } = synth('dev', { waf: { enabled: true, ratePerIpPer5Minutes: 1200 } });
    const [acl] = Object.values(template.findResources('AWS::WAFv2::WebACL'));
    const { Rules: rules, CustomResponseBodies: bodies, DefaultAction } = acl.Properties;
    const responseOf = (rule: any) => {
      const custom = rule.Action.Block.CustomResponse;
      const headers = Object.fromEntries(
        custom.ResponseHeaders.map((h: { Name: string; Value: string }) => [h.Name, h.Value]),
      );
      const body = bodies[custom.CustomResponseBodyKey];
      return {
        status: custom.ResponseCode,
        headers,
        contentType: body.ContentType,
        envelope: JSON.parse(body.Content),
      };
    };

    expect(acl.Properties.Scope).toBe('REGIONAL');
    expect(DefaultAction).toEqual({ Allow: {} });
    const rate = rules.find((r: any) => r.Statement.RateBasedStatement);
    expect(rate.Statement.RateBasedStatement).toEqual({
      Limit: 1200,
      AggregateKeyType: 'IP',
      EvaluationWindowSec: 300,
    });
    expect(responseOf(rate)).toEqual({
      status: 429,
      headers: { ...CORS_HEADERS, 'Cache-Control': 'no-store', Vary: 'Accept-Encoding', 'Retry-After': '60' },
      contentType: 'APPLICATION_JSON',
      envelope: { error: { code: 'rate_limit_exceeded', message: WAF_RESPONSES.rateLimited.message, details: null } },
    });
    // The managed rule groups (common rules, known bad inputs) only label; the rule after them
    // refuses on the labels of either with a 400.
    const managed = rules.filter((r: any) => r.Statement.ManagedRuleGroupStatement);
    expect(managed.map((r: any) => r.Statement.ManagedRuleGroupStatement)).toEqual([
      { VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' },
      { VendorName: 'AWS', Name: 'AWSManagedRulesKnownBadInputsRuleSet' },
    ]);
    for (const group of managed) expect(group.OverrideAction).toEqual({ Count: {} });
    const refusal = rules.find((r: any) => JSON.stringify(r.Statement).includes('awswaf:managed:aws:core-rule-set:'));
    expect(JSON.stringify(refusal.Statement)).toContain('awswaf:managed:aws:known-bad-inputs:');
    for (const group of managed) expect(refusal.Priority).toBeGreaterThan(group.Priority);
    expect(JSON.stringify(refusal.Statement)).toContain('NoUserAgent_Header');
    expect(responseOf(refusal)).toEqual({
      status: 400,
      headers: { ...CORS_HEADERS, 'Cache-Control': 'no-store', Vary: 'Accept-Encoding' },
      contentType: 'APPLICATION_JSON',
      envelope: {
        error: { code: 'validation_error', message: expect.any(String), details: { message: [expect.any(String)] } },
      },
    });
    for (const rule of rules) expect(rule.Action?.Block?.CustomResponse ?? rule.OverrideAction).toBeDefined();
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    const [association] = Object.values(template.findResources('AWS::WAFv2::WebACLAssociation'));
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(logicalId(stack.api.api));
    expect(association.DependsOn).toEqual(expect.arrayContaining([logicalId(stack.api.stage)]));
  });

  it('logs what WAF sees to an aws-waf-logs- log group with the stage retention, the Authorization header redacted', () => {
    const { template } = synth('dev', { waf: { enabled: true } });
    const [group] = Object.entries(
      template.findResources('AWS::Logs::LogGroup', {
        Properties: { LogGroupName: Match.stringLikeRegexp('^aws-waf-logs-') },
      }),
    );
    expect(group[1].Properties).toMatchObject({ LogGroupName: 'aws-waf-logs-market-data-dev', RetentionInDays: 30 });
    const [logging] = Object.values(template.findResources('AWS::WAFv2::LoggingConfiguration'));
    const [aclId] = Object.keys(template.findResources('AWS::WAFv2::WebACL'));
    expect(logging.Properties.ResourceArn).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    // WAF wants the log group's ARN without the `:*` of its Arn attribute.
    const destination = JSON.stringify(logging.Properties.LogDestinationConfigs);
    expect(destination).toContain(`":log-group:",{"Ref":"${group[0]}"}]`);
    expect(destination).not.toContain(':*');
    expect(logging.Properties.RedactedFields).toEqual([{ SingleHeader: { Name: 'authorization' } }]);
  });

  it('owns no account-wide API Gateway settings in any stage: that is a stack of its own, on request', () => {
    for (const fixture of [dev, synth('prod', PROD_BLOCK)]) {
      fixture.template.resourceCountIs('AWS::ApiGateway::Account', 0);
      fixture.template.resourcePropertiesCountIs(
        'AWS::IAM::Role',
        {
          AssumeRolePolicyDocument: Match.objectLike({
            Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
          }),
        },
        0,
      );
      expect(fixture.app.node.children.filter((child) => child instanceof Stack)).toHaveLength(1);
    }
    const withAccount = synthApp('dev', { apiGatewayAccount: 'true' });
    const account = Template.fromStack(withAccount.node.findChild(API_GATEWAY_ACCOUNT_STACK) as Stack);
    account.resourceCountIs('AWS::ApiGateway::Account', 1);
    account.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
      }),
    });
    account.hasResource('AWS::IAM::Role', { DeletionPolicy: 'Retain' });
  });
});
