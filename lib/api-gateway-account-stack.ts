/**
 * API Gateway's account settings for one account and region: the CloudWatch role through which
 * every REST API of the region writes its access and execution logs. `AWS::ApiGateway::Account`
 * is a region-wide singleton, so it is not part of a stage's stack (two stages in one account
 * would fight over it, and deleting one would take the other's logging down): it is this stack,
 * deployed once per account and region before the first stage (docs/deploy.md), or left out where
 * the account's settings are managed elsewhere.
 */
import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { acknowledge } from './nag';

/** The stack's name: one per account and region, whatever the stages. */
export const API_GATEWAY_ACCOUNT_STACK = 'MarketData-ApiGatewayAccount';

export class ApiGatewayAccountStack extends Stack {
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.role = new iam.Role(this, 'CloudWatchRole', {
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      description: 'Lets API Gateway write the access and execution logs of the REST APIs of this account and region',
      managedPolicies: [
        iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs'),
      ],
    });
    // Other APIs of the account may log through it: it outlives this stack.
    this.role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    const account = new apigw.CfnAccount(this, 'Account', { cloudWatchRoleArn: this.role.roleArn });
    account.node.addDependency(this.role);
    acknowledge(this.role, 'AwsSolutions-IAM4', 'The API Gateway logging role uses the AWS policy made for it.', [
      'Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs',
    ]);
  }
}
