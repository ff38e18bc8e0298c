/**
 * Builds the app as bin/app.ts does, with cdk.json's context (feature flags and stage blocks),
 * esbuild skipped (`aws:cdk:bundling-stacks: []`) and cdk-nag always on, so that every template
 * a test reads has also passed the AwsSolutions checks. CDK's built-in CloudFormation validation is
 * off here (`builtinCloudFormationValidation: false`): without the `validateAgainstDefaultRules` flag
 * its findings are only warnings that no test reads, and its WASM engine was two thirds of a synth's
 * time. `npm run synth` (in .ci/run) still runs it on the deployed template. Nor does the
 * assembly get a tree.json (`treeMetadata: false`), nor do constructs record stack traces
 * (`aws:cdk:disable-stack-trace`, `aws:cdk:disable-creation-stack-traces`): neither goes into a
 * template or is read by a test (cdk-nag walks the constructs themselves), and under jest each trace
 * cost a source-mapped stack.
 *
 * An app is built once per test file for each stage, block and context (`synthApp` and `synth`
 * keep what they built), and the stack suite is one test file (stack.test.ts): aws-cdk-lib loads
 * once, and a stage that several subjects read is synthesized once. What they return is therefore
 * shared: a test reads it and never changes it (the templates are frozen); a test that adds to the
 * tree builds an app of its own with `synthFresh`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { buildMarketDataApp } from '../../../lib/market-data-app';
import type { MarketDataStack } from '../../../lib/market-data-stack';

const CDK_JSON = path.join(__dirname, '..', '..', '..', 'cdk.json');

export const cdkJsonContext = (): Record<string, unknown> => JSON.parse(fs.readFileSync(CDK_JSON, 'utf8')).context;

export interface Fixture {
  app: App;
  stack: MarketDataStack;
  template: Template;
  /** The logical id of a construct's CloudFormation resource. */
  logicalId: (construct: IConstruct) => string;
}

/** An existing topic for the alarms: what an operator adds to cdk.json's `prod` block before deploying it. */
export const TEST_ALARM_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:market-data-alarms';

/**
 * cdk.json's `prod` block with an alarm target. cdk.json ships none (the operator's address or
 * topic), and a prod synth without one fails (lib/config.ts), so the prod fixtures add this one.
 */
export const PROD_BLOCK: Record<string, unknown> = {
  ...(cdkJsonContext().stages as Record<string, Record<string, unknown>>).prod,
  alarmTopicArn: TEST_ALARM_TOPIC,
};

/** The block a fixture of `stage` uses: `block` when given, prod's with an alarm target, cdk.json's otherwise. */
const blockOf = (stage: string, block?: Record<string, unknown>) =>
  block ?? (stage === 'prod' ? PROD_BLOCK : undefined);

function buildApp(stage: string, extra: Record<string, unknown>, block?: Record<string, unknown>): App {
  const context = cdkJsonContext();
  const stages = { ...(context.stages as Record<string, unknown>) };
  if (block) stages[stage] = block;
  const app = new App({
    context: {
      ...context,
      stages,
      stage,
      'aws:cdk:bundling-stacks': [],
      'aws:cdk:disable-stack-trace': true,
      'aws:cdk:disable-creation-stack-traces': true,
      ...extra,
    },
    // CloudFormation's built-in validation only warns, and no test reads it: off, for speed.
    builtinCloudFormationValidation: false,
    // Nor does a test read the assembly's tree.json (cdk-nag walks the constructs themselves).
    treeMetadata: false,
  });
  buildMarketDataApp(app, { nag: true });
  return app;
}

/** The apps this test file has built, by stage, context and block (JSON values). */
const apps = new Map<string, App>();

/**
 * The app for `stage` with `block` replacing that stage's cdk.json block when given, and `extra`
 * context: built once per test file, shared by the tests that ask for it.
 */
export function synthApp(stage: string, extra: Record<string, unknown> = {}, block?: Record<string, unknown>): App {
  const resolved = blockOf(stage, block);
  const key = JSON.stringify([stage, extra, resolved ?? null]);
  const built = apps.get(key) ?? buildApp(stage, extra, resolved);
  apps.set(key, built);
  return built;
}

/** A template's JSON, frozen to the last value: a test that writes to a shared template fails there. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  for (const child of Object.values(value)) deepFreeze(child);
  Object.freeze(value);
}

function fixtureOf(app: App, stage: string): Fixture {
  const stack = app.node.findChild(`MarketData-${stage}`) as MarketDataStack;
  const template = Template.fromStack(stack);
  deepFreeze(template.toJSON());
  const logicalId = (construct: IConstruct) => {
    const element = (construct.node.defaultChild ?? construct) as CfnElement;
    return stack.getLogicalId(element);
  };
  return { app, stack, template, logicalId };
}

/** The fixture of each app `synth` has returned. */
const fixtures = new WeakMap<App, Fixture>();

/**
 * The stack for `stage`, with `block` replacing that stage's cdk.json block when given (prod:
 * PROD_BLOCK by default): built once per test file, shared by the tests that ask for it.
 */
export function synth(stage: string, block?: Record<string, unknown>): Fixture {
  const app = synthApp(stage, {}, block);
  const fixture = fixtures.get(app) ?? fixtureOf(app, stage);
  fixtures.set(app, fixture);
  return fixture;
}

/** The stack for `stage` in an app of its own, for a test that changes the tree. */
export function synthFresh(stage: string, block?: Record<string, unknown>): Fixture {
  return fixtureOf(buildApp(stage, {}, blockOf(stage, block)), stage);
}
