import { App } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { contextFlag, loadStageConfig, resolveStageConfig } from '../../../lib/config';
import { MAX_SNAPSHOT_CACHE_MS } from '../../../shared/platform/config';
import { cdkJsonContext } from './app-fixture';

describe('resolveStageConfig', () => {
  it('gives the documented defaults to a stage without a block', () => {
    const config = resolveStageConfig('dev');

    expect(config).toMatchObject({
      stage: 'dev',
      ratePerMinute: 60,
      quotaPerMonth: 100_000,
      authorizerCacheTtlSeconds: 300,
      logRetentionDays: RetentionDays.ONE_MONTH,
      removalPolicy: 'destroy',
      deletionProtection: false,
      tracing: false,
      sourceMaps: false,
      snapshotCacheMs: 5000,
      readCacheMb: 64,
      waf: { enabled: false, ratePerIpPer5Minutes: 3000 },
      memorySizes: { platforms: 1769, currencies: 1769, offers: 1769, history: 1769, usage: 256, authorizer: 1769 },
      ingestMemorySize: 1024,
      ingestTimeoutSeconds: 300,
      ingestMaxReceiveCount: 2,
      maxDataAgeMinutes: 1440,
      recordHistory: true,
    });
    expect(config.customDomain).toBeUndefined();
    expect(config.alarmEmail).toBeUndefined();
    expect(config.keyPepperParameter).toBeUndefined();
    expect(config.reservedConcurrency).toEqual({});
    expect(config.docsThrottle).toEqual({ rateLimit: 20, burstLimit: 40 });
    expect(config.onDemandCeiling).toEqual({ maxReadRequestUnits: 20_000, maxWriteRequestUnits: 10_000 });
  });

  it('retains data, turns deletion protection on, peppers keys and reserves concurrency for prod by default', () => {
    const config = resolveStageConfig('prod', { alarmEmail: 'ops@example.com' });

    expect(config.removalPolicy).toBe('retain');
    expect(config.deletionProtection).toBe(true);
    expect(config.keyPepperParameter).toBe('/market-data/prod/key-pepper');
    expect(config.reservedConcurrency).toEqual({
      platforms: 100,
      currencies: 100,
      offers: 100,
      history: 100,
      search: 100,
      mcp: 100,
      usage: 100,
      webhooks: 50,
      authorizer: 100,
      docs: 10,
    });
  });

  it('applies the cost ceilings of a block key by key', () => {
    const config = resolveStageConfig('prod', {
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
      keyPepperParameter: '/other/pepper',
      reservedConcurrency: { offers: 40 },
      docsThrottle: { burstLimit: 5 },
      onDemandCeiling: { maxWriteRequestUnits: 500 },
    });

    expect(config.keyPepperParameter).toBe('/other/pepper');
    expect(config.reservedConcurrency).toMatchObject({ offers: 40, history: 100 });
    expect(config.docsThrottle).toEqual({ rateLimit: 20, burstLimit: 5 });
    expect(config.onDemandCeiling).toEqual({ maxReadRequestUnits: 20_000, maxWriteRequestUnits: 500 });
    expect(() => resolveStageConfig('dev', { reservedConcurrency: { reports: 1 } })).toThrow(
      /stages\.dev\.reservedConcurrency/,
    );
    expect(() => resolveStageConfig('dev', { onDemandCeiling: { maxReadRequestUnits: 0 } })).toThrow(
      /stages\.dev\.onDemandCeiling/,
    );
  });

  it('applies a block key by key over the defaults', () => {
    const config = resolveStageConfig('prod', {
      alarmEmail: 'ops@example.com',
      ratePerMinute: 120,
      authorizerCacheTtlSeconds: 0,
      removalPolicy: 'destroy',
      memorySizes: { offers: 2048 },
      waf: { enabled: true },
    });

    expect(config.ratePerMinute).toBe(120);
    expect(config.quotaPerMonth).toBe(100_000);
    expect(config.authorizerCacheTtlSeconds).toBe(0);
    expect(config.removalPolicy).toBe('destroy');
    expect(config.deletionProtection).toBe(true);
    expect(config.memorySizes).toMatchObject({ offers: 2048, platforms: 1769 });
    expect(config.waf).toEqual({ enabled: true, ratePerIpPer5Minutes: 3000 });
  });

  it('refuses a prod stage without an alarm target, naming both settings; other stages may go without', () => {
    expect(() => resolveStageConfig('prod')).toThrow(/stages\.prod\.alarmEmail.*stages\.prod\.alarmTopicArn/);
    expect(() => resolveStageConfig('prod', { tracing: true })).toThrow(/no alarm target/);
    expect(
      resolveStageConfig('prod', { alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms' }).alarmTopicArn,
    ).toBeDefined();
    expect(resolveStageConfig('dev').alarmEmail).toBeUndefined();
  });

  it('refuses unknown keys and bad values, naming each', () => {
    const bad = () =>
      resolveStageConfig('dev', {
        ratePerMinte: 60,
        quotaPerMonth: 0,
        logRetentionDays: 10,
        authorizerCacheTtlSeconds: 7200,
        alarmEmail: 'not-an-email',
        memorySizes: { reports: 512 },
        ingestTimeoutSeconds: 901,
        maxDataAgeMinutes: 5,
      });

    expect(bad).toThrow(/stages\.dev: Unrecognized key: "ratePerMinte"/);
    expect(bad).toThrow(/stages\.dev\.quotaPerMonth/);
    expect(bad).toThrow(/stages\.dev\.logRetentionDays/);
    expect(bad).toThrow(/stages\.dev\.authorizerCacheTtlSeconds/);
    expect(bad).toThrow(/stages\.dev\.alarmEmail/);
    expect(bad).toThrow(/stages\.dev\.memorySizes/);
    // A Lambda timeout is at most 15 minutes; an age alarm below its 15-minute period could never clear.
    expect(bad).toThrow(/stages\.dev\.ingestTimeoutSeconds/);
    expect(bad).toThrow(/stages\.dev\.maxDataAgeMinutes/);
  });

  it('bounds the pointer cache so that every replaced version outlasts it, whoever imports', () => {
    expect(resolveStageConfig('dev', { snapshotCacheMs: MAX_SNAPSHOT_CACHE_MS }).snapshotCacheMs).toBe(
      MAX_SNAPSHOT_CACHE_MS,
    );
    expect(() => resolveStageConfig('dev', { snapshotCacheMs: MAX_SNAPSHOT_CACHE_MS + 1 })).toThrow(
      /stages\.dev\.snapshotCacheMs/,
    );
  });

  it('refuses a stage name that cannot name a stack and an API stage', () => {
    expect(() => resolveStageConfig('Prod')).toThrow(/stage "Prod"/);
    expect(() => resolveStageConfig('my_stage')).toThrow(/stage "my_stage"/);
  });
});

describe('loadStageConfig', () => {
  it('reads the stage from context and its block from "stages", defaulting to dev', () => {
    const app = new App({ context: { stages: { dev: { ratePerMinute: 5 }, qa: { ratePerMinute: 7 } } } });
    const qa = new App({ context: { stage: 'qa', stages: { qa: { ratePerMinute: 7 } } } });

    expect(loadStageConfig(app)).toMatchObject({ stage: 'dev', ratePerMinute: 5 });
    expect(loadStageConfig(qa)).toMatchObject({ stage: 'qa', ratePerMinute: 7 });
  });

  it('accepts every stage block in cdk.json, prod once an operator adds its alarm target', () => {
    const context = cdkJsonContext();
    const stages = context.stages as Record<string, Record<string, unknown>>;

    expect(Object.keys(stages)).toEqual(expect.arrayContaining(['dev', 'prod']));
    for (const stage of Object.keys(stages).filter((name) => name !== 'prod')) {
      expect(() => loadStageConfig(new App({ context: { ...context, stage } }))).not.toThrow();
    }
    expect(() => loadStageConfig(new App({ context: { ...context, stage: 'prod' } }))).toThrow(/no alarm target/);
    const withTarget = { ...stages, prod: { ...stages.prod, alarmEmail: 'ops@example.com' } };
    expect(() =>
      loadStageConfig(new App({ context: { ...context, stages: withTarget, stage: 'prod' } })),
    ).not.toThrow();
  });

  it('reads flags given as strings on the command line or booleans in cdk.json', () => {
    expect(contextFlag(new App({ context: { nag: 'true' } }), 'nag')).toBe(true);
    expect(contextFlag(new App({ context: { nag: true } }), 'nag')).toBe(true);
    expect(contextFlag(new App({ context: { nag: 'false' } }), 'nag')).toBe(false);
    expect(contextFlag(new App(), 'nag')).toBe(false);
  });
});
