#!/usr/bin/env node
/** The CDK app: `npx cdk synth -c stage=prod` (default stage dev; `-c nag=true` runs cdk-nag). */
import { App } from 'aws-cdk-lib';
import { buildMarketDataApp } from '../lib/market-data-app';

buildMarketDataApp(new App());
