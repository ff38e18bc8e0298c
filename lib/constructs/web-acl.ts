/**
 * A regional WAFv2 web ACL in front of the API stage: a per-IP rate rule (a flood guard below
 * which the per-key budgets apply), AWS's common rule set and its known-bad-inputs rule set. Each
 * block answers with the service's error envelope (shared/http/gateway-responses.ts WAF_RESPONSES): the
 * rate rule 429 `rate_limit_exceeded` with Retry-After, a request refused for its content 400
 * `validation_error`. Every request WAF sees is logged to a log group of its own (`aws-waf-logs-…`,
 * the prefix WAF requires), with the Authorization header redacted: it carries the Bearer key.
 */
import { ArnFormat, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { CORS_HEADERS } from '../../shared/http/cors';
import {
  GATEWAY_RESPONSE_HEADERS,
  type GatewayResponseSpec,
  gatewayResponseBody,
  WAF_RESPONSES,
} from '../../shared/http/gateway-responses';

export interface ApiWebAclProps {
  stage: apigw.Stage;
  /** Requests one IP may make in any 5 minutes. */
  ratePerIpPer5Minutes: number;
  metricPrefix: string;
  logRetention: logs.RetentionDays;
  removalPolicy: RemovalPolicy;
}

/**
 * The AWS managed rule groups, each run in count mode: they only label the requests their rules
 * match, and one rule after them blocks on those labels with the envelope, so every refusal of
 * theirs (of a rule AWS adds later too) answers 400 `validation_error` (CONTRACT §2).
 */
const MANAGED_RULE_GROUPS = [
  { name: 'AWSManagedRulesCommonRuleSet', metric: 'common-rules', labels: 'awswaf:managed:aws:core-rule-set:' },
  {
    name: 'AWSManagedRulesKnownBadInputsRuleSet',
    metric: 'known-bad-inputs',
    labels: 'awswaf:managed:aws:known-bad-inputs:',
  },
] as const;
const CORE_LABELS = MANAGED_RULE_GROUPS[0].labels;

/**
 * Labels of the common rule set that are no refusal here (the rules still count and label, in the
 * metrics and the logs): API clients (scripts, SDKs) often send no User-Agent; and the size rules
 * refuse query strings over 2,048 bytes and paths over 1,024, which valid requests pass (200 `ids`
 * of 16 digits, 20-value lists of 256-character slugs, the `Link` to the next page of either, a
 * non-ASCII slug percent-encoded in a path). The API's own bounds apply instead: the functions answer
 * 400 naming the parameter. No length separates valid from invalid (an integer may have leading
 * zeros), and API Gateway refuses a request line and headers over 10,240 bytes.
 */
const NOT_REFUSED_LABELS = ['NoUserAgent_Header', 'SizeRestrictions_QueryString', 'SizeRestrictions_URIPath'].map(
  (name) => `${CORE_LABELS}${name}`,
);

/**
 * The common rule set's other labels (AWS's list for the rule set's current version), each a refusal
 * even beside one of the above: a request without a User-Agent or with a long query is still refused
 * for a script in it. A rule AWS adds later refuses through the namespace, unless it comes beside one
 * of the above.
 */
const REFUSED_CORE_LABELS = [
  'BadBots_Header',
  'SizeRestrictions_Cookie_Header',
  'SizeRestrictions_Body',
  'EC2MetaDataSSRF_Body',
  'EC2MetaDataSSRF_Cookie',
  'EC2MetaDataSSRF_URIPath',
  'EC2MetaDataSSRF_QueryArguments',
  'GenericLFI_QueryArguments',
  'GenericLFI_URIPath',
  'GenericLFI_Body',
  'RestrictedExtensions_URIPath',
  'RestrictedExtensions_QueryArguments',
  'GenericRFI_QueryArguments',
  'GenericRFI_Body',
  'GenericRFI_URIPath',
  'CrossSiteScripting_Cookie',
  'CrossSiteScripting_QueryArguments',
  'CrossSiteScripting_Body',
  'CrossSiteScripting_URIPath',
].map((name) => `${CORE_LABELS}${name}`);

const label = (key: string): wafv2.CfnWebACL.StatementProperty => ({ labelMatchStatement: { scope: 'LABEL', key } });
const namespace = (key: string): wafv2.CfnWebACL.StatementProperty => ({
  labelMatchStatement: { scope: 'NAMESPACE', key },
});

/**
 * What the managed groups' labels refuse: any label of the known-bad-inputs group; any of the common
 * rule set's when none of NOT_REFUSED_LABELS is among them; any of REFUSED_CORE_LABELS in any case.
 */
const REFUSED_BY_MANAGED_RULES: wafv2.CfnWebACL.StatementProperty = {
  orStatement: {
    statements: [
      namespace(MANAGED_RULE_GROUPS[1].labels),
      {
        andStatement: {
          statements: [
            namespace(CORE_LABELS),
            ...NOT_REFUSED_LABELS.map((key) => ({ notStatement: { statement: label(key) } })),
          ],
        },
      },
      ...REFUSED_CORE_LABELS.map(label),
    ],
  },
};

const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: true,
  metricName,
});

/** A block action answering `spec` with the body registered under `key`. */
function blockWith(key: string, spec: GatewayResponseSpec): wafv2.CfnWebACL.RuleActionProperty {
  // WAF sets Content-Type from the body's content type (`application/json`, without a charset:
  // it refuses Content-Type as a custom header); the other headers are every answer's.
  const { 'Content-Type': _contentType, ...common } = GATEWAY_RESPONSE_HEADERS;
  const headers = { ...common, ...CORS_HEADERS, ...spec.headers };
  return {
    block: {
      customResponse: {
        responseCode: spec.statusCode,
        customResponseBodyKey: key,
        responseHeaders: Object.entries(headers).map(([name, value]) => ({ name, value })),
      },
    },
  };
}

export class ApiWebAcl extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiWebAclProps) {
    super(scope, id);
    const metric = (name: string) => `${props.metricPrefix}-${name}`;

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(metric('web-acl')),
      customResponseBodies: Object.fromEntries(
        Object.entries(WAF_RESPONSES).map(([key, spec]) => [
          key,
          { contentType: 'APPLICATION_JSON', content: gatewayResponseBody(spec) },
        ]),
      ),
      rules: [
        {
          name: 'RateLimitPerIp',
          priority: 0,
          action: blockWith('rateLimited', WAF_RESPONSES.rateLimited),
          statement: {
            rateBasedStatement: { limit: props.ratePerIpPer5Minutes, aggregateKeyType: 'IP', evaluationWindowSec: 300 },
          },
          visibilityConfig: visibility(metric('rate-per-ip')),
        },
        ...MANAGED_RULE_GROUPS.map((group, index) => ({
          name: group.name,
          priority: 1 + index,
          overrideAction: { count: {} },
          statement: { managedRuleGroupStatement: { vendorName: 'AWS', name: group.name } },
          visibilityConfig: visibility(metric(group.metric)),
        })),
        {
          name: 'RefusedByManagedRules',
          priority: 1 + MANAGED_RULE_GROUPS.length,
          action: blockWith('refused', WAF_RESPONSES.refused),
          statement: REFUSED_BY_MANAGED_RULES,
          visibilityConfig: visibility(metric('managed-rules-refused')),
        },
      ],
    });

    // WAF delivers only to log groups whose name starts with `aws-waf-logs-`, named by an ARN
    // without the `:*` suffix a log group's own ARN attribute carries.
    const logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: `aws-waf-logs-${props.metricPrefix}`,
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    new wafv2.CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: logGroup.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      // Requests carry Bearer keys: never in a log.
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
    });

    const association = new wafv2.CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    // The stage ARN is built from names; the stage must exist before WAF can attach to it.
    association.node.addDependency(props.stage);
  }
}
