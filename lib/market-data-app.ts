/**
 * Builds the app from its context: the stage's configuration, the stack `MarketData-<stage>`, and
 * cdk-nag's AwsSolutions checks when asked for (`-c nag=true`; the tests always ask). With
 * `-c apiGatewayAccount=true`, the stack of the account's API Gateway settings beside it (deployed
 * once per account and region: lib/api-gateway-account-stack.ts).
 */
import { type App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { API_GATEWAY_ACCOUNT_STACK, ApiGatewayAccountStack } from './api-gateway-account-stack';
import { contextFlag, loadStageConfig } from './config';
import { MarketDataStack } from './market-data-stack';

export interface BuildOptions {
  /** Run cdk-nag at synth; defaults to the `nag` context flag. */
  nag?: boolean;
}

export function buildMarketDataApp(app: App, options: BuildOptions = {}): MarketDataStack {
  const config = loadStageConfig(app);
  const env = {
    account: config.account ?? process.env.CDK_DEFAULT_ACCOUNT,
    region: config.region ?? process.env.CDK_DEFAULT_REGION,
  };
  const stack = new MarketDataStack(app, `MarketData-${config.stage}`, {
    config,
    description: `Market data API (${config.stage})`,
    env,
    tags: { Service: 'market-data-api', Stage: config.stage },
  });
  if (contextFlag(app, 'apiGatewayAccount')) {
    new ApiGatewayAccountStack(app, API_GATEWAY_ACCOUNT_STACK, {
      description: 'API Gateway account settings: the CloudWatch logging role (one per account and region)',
      env,
      tags: { Service: 'market-data-api' },
    });
  }
  if (options.nag ?? contextFlag(app, 'nag')) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  }
  return stack;
}
