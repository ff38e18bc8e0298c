/**
 * A regional WAFv2 web ACL in front of the API stage: a per-IP rate rule (a flood guard below
 * which the per-key budgets apply) and AWS's common rule set. Each block answers with the
 * service's error envelope (shared/gateway-responses.ts WAF_RESPONSES): the rate rule 429
 * `rate_limit_exceeded` with Retry-After, a request refused for its content 400
 * `validation_error`.
 */
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { CORS_HEADERS } from '../../shared/cors';
import { gatewayResponseBody, WAF_RESPONSES, type GatewayResponseSpec } from '../../shared/gateway-responses';

export interface ApiWebAclProps {
  stage: apigw.Stage;
  /** Requests one IP may make in any 5 minutes. */
  ratePerIpPer5Minutes: number;
  metricPrefix: string;
}

/** The labels AWS's common rule set gives the requests its rules match. */
const COMMON_RULES_NAMESPACE = 'awswaf:managed:aws:core-rule-set:';
/** API clients (scripts, SDKs) often send no User-Agent: that rule's match is not a refusal. */
const NO_USER_AGENT_LABEL = `${COMMON_RULES_NAMESPACE}NoUserAgent_Header`;

const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: true,
  metricName,
});

/** A block action answering `spec` with the body registered under `key`. */
function blockWith(key: string, spec: GatewayResponseSpec): wafv2.CfnWebACL.RuleActionProperty {
  // WAF sets Content-Type from the body's content type; it refuses it as a custom header.
  const headers = { ...CORS_HEADERS, ...spec.headers };
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
        Object.entries(WAF_RESPONSES).map(([key, spec]) => [key, { contentType: 'APPLICATION_JSON', content: gatewayResponseBody(spec) }]),
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
        {
          // Its rules only label (count) here; the next rule blocks on those labels, so every
          // refusal, of any rule AWS adds later too, answers with the envelope.
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 1,
          overrideAction: { count: {} },
          statement: {
            managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesCommonRuleSet' },
          },
          visibilityConfig: visibility(metric('common-rules')),
        },
        {
          name: 'RefusedByCommonRules',
          priority: 2,
          action: blockWith('refused', WAF_RESPONSES.refused),
          statement: {
            andStatement: {
              statements: [
                { labelMatchStatement: { scope: 'NAMESPACE', key: COMMON_RULES_NAMESPACE } },
                { notStatement: { statement: { labelMatchStatement: { scope: 'LABEL', key: NO_USER_AGENT_LABEL } } } },
              ],
            },
          },
          visibilityConfig: visibility(metric('common-rules-refused')),
        },
      ],
    });

    const association = new wafv2.CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    // The stage ARN is built from names; the stage must exist before WAF can attach to it.
    association.node.addDependency(props.stage);
  }
}
