/**
 * A regional WAFv2 web ACL in front of the API stage: a per-IP rate rule (a flood guard below
 * which the per-key budgets apply) and AWS's common rule set. Blocked requests get the
 * WAF_FILTERED gateway response (lib/constructs/rest-api.ts).
 */
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface ApiWebAclProps {
  stage: apigw.Stage;
  /** Requests one IP may make in any 5 minutes. */
  ratePerIpPer5Minutes: number;
  metricPrefix: string;
}

const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  sampledRequestsEnabled: true,
  metricName,
});

export class ApiWebAcl extends Construct {
  readonly webAcl: wafv2.CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiWebAclProps) {
    super(scope, id);
    const metric = (name: string) => `${props.metricPrefix}-${name}`;

    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(metric('web-acl')),
      rules: [
        {
          name: 'RateLimitPerIp',
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: { limit: props.ratePerIpPer5Minutes, aggregateKeyType: 'IP', evaluationWindowSec: 300 },
          },
          visibilityConfig: visibility(metric('rate-per-ip')),
        },
        {
          name: 'AWSManagedRulesCommonRuleSet',
          priority: 1,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              // API clients (scripts, SDKs) often send no User-Agent; count those, don't block.
              ruleActionOverrides: [{ name: 'NoUserAgent_HEADER', actionToUse: { count: {} } }],
            },
          },
          visibilityConfig: visibility(metric('common-rules')),
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
