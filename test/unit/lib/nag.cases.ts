import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { API_GATEWAY_ACCOUNT_STACK } from '../../../lib/api-gateway-account-stack';
import { synth, synthApp, synthFresh } from './app-fixture';

const EVERYTHING_ON = {
  tracing: true,
  sourceMaps: true,
  waf: { enabled: true },
  alarmEmail: 'ops@example.com',
  keyPepperParameter: '/market-data/qa/key-pepper',
  reservedConcurrency: { offers: 50, authorizer: 20, docs: 5 },
  docsThrottle: { rateLimit: 5 },
  onDemandCeiling: { maxReadRequestUnits: 1000 },
  customDomain: {
    domainName: 'api.example.com',
    certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc',
    hostedZone: { id: 'Z123', name: 'example.com' },
  },
};

const violationsOf = (scope: IConstruct) =>
  new AwsSolutionsChecks().validateScope(scope).violations.map((v) => ({
    rule: v.ruleName,
    severity: v.severity,
    resources: v.violatingResources.map((r) => r.constructPath),
  }));

/** Every acknowledgment recorded in the tree: rule id and reason. */
function acknowledgments(scope: IConstruct): { path: string; id: string; reason: string }[] {
  return scope.node.findAll().flatMap((node) =>
    node.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: node.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );
}

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['dev', undefined],
    ['prod', undefined],
    ['qa', EVERYTHING_ON],
    // A stage pinned to an account and region: acknowledgments name the values, not pseudo parameters.
    ['pinned', { ...EVERYTHING_ON, account: '123456789012', region: 'eu-west-1' }],
  ])('reports nothing for %s', (stage, block) => {
    const { stack } = synth(stage, block);

    expect(violationsOf(stack)).toEqual([]);
  });

  it("reports nothing for the stack of the account's API Gateway settings", () => {
    const app = synthApp('dev', { apiGatewayAccount: 'true' });
    expect(violationsOf(app.node.findChild(API_GATEWAY_ACCOUNT_STACK))).toEqual([]);
  });

  it('justifies every acknowledgment in one line and scopes IAM ones to named findings', () => {
    const { stack } = synth('qa', EVERYTHING_ON);
    const acks = acknowledgments(stack);

    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.id).toMatch(/^AwsSolutions-[A-Z]+\d+/);
      expect(ack.reason).toMatch(/\w{3}/);
      expect(ack.reason).not.toContain('\n');
      if (/^AwsSolutions-IAM[45]/.test(ack.id)) expect(ack.id).toMatch(/\[(Resource|Policy|Action)::.+\]$/);
    }
    // No acknowledgment of what the stack no longer has: secondary indexes (ADR 0009).
    expect(acks.filter((ack) => ack.id.includes('/index/'))).toEqual([]);
    // Nothing is acknowledged for the whole stack.
    expect(acks.filter((ack) => ack.path === stack.node.path)).toEqual([]);
  });

  it('still reports a new wildcard: acknowledgments cover only the findings they name', () => {
    // A stack of its own: the other tests share theirs (app-fixture.ts).
    const { stack } = synthFresh('dev');
    stack.functions.offers.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['dynamodb:PutItem'], resources: ['*'] }),
    );

    expect(violationsOf(stack)).toEqual([
      expect.objectContaining({ rule: 'AwsSolutions-IAM5[Resource::*]', severity: 'error' }),
    ]);
  });
});
