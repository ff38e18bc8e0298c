/**
 * Builds the app from its context: the stage's configuration, the stack `MarketData-<stage>`, and
 * cdk-nag's AwsSolutions checks when asked for (`-c nag=true`; the tests always ask).
 */
import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { contextFlag, loadStageConfig } from './config';
import { MarketDataStack } from './market-data-stack';

export interface BuildOptions {
  /** Run cdk-nag at synth; defaults to the `nag` context flag. */
  nag?: boolean;
}

export function buildMarketDataApp(app: App, options: BuildOptions = {}): MarketDataStack {
  const config = loadStageConfig(app);
  const stack = new MarketDataStack(app, `MarketData-${config.stage}`, {
    config,
    description: `Market data API (${config.stage})`,
    env: {
      account: config.account ?? process.env.CDK_DEFAULT_ACCOUNT,
      region: config.region ?? process.env.CDK_DEFAULT_REGION,
    },
    tags: { Service: 'market-data-api', Stage: config.stage },
  });
  if (options.nag ?? contextFlag(app, 'nag')) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  }
  return stack;
}
