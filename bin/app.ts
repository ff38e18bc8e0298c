#!/usr/bin/env node
/** The CDK app: `npx cdk synth -c stage=prod` (default stage dev; `-c nag=true` runs cdk-nag). */
import { App } from 'aws-cdk-lib';
import { buildMarketDataApp } from '../lib/market-data-app';

try {
  buildMarketDataApp(new App());
} catch (error) {
  // A configuration error names the setting to change: its message alone, without a stack trace.
  if (error instanceof Error && error.message.startsWith('config:')) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
