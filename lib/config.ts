/**
 * Per-stage configuration of the stack, read from CDK context: the stage name from `-c stage=NAME`
 * (default `dev`) and that stage's block from `context.stages.NAME` in cdk.json. A block overrides
 * the defaults below key by key; an unknown key or an out-of-range value stops the synth, so a
 * typo in cdk.json never deploys silently. docs/deploy.md has the table of keys and defaults.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';
import { z } from 'zod';
import { FUNCTION_NAMES } from '../shared/http/routes';
import { DEFAULTS, MAX_SNAPSHOT_CACHE_MS } from '../shared/platform/config';

/** The API functions and the authorizer: everything with a memory size. */
const LAMBDA_NAMES = [...FUNCTION_NAMES, 'authorizer'] as const;
type LambdaName = (typeof LAMBDA_NAMES)[number];

/** Everything that can have reserved concurrency: the above and the docs function. */
const RESERVABLE_NAMES = [...LAMBDA_NAMES, 'docs'] as const;
type ReservableName = (typeof RESERVABLE_NAMES)[number];

const DEFAULT_STAGE = 'dev';

/** The stage whose data is kept when the stack goes away. */
const PROTECTED_STAGES = new Set(['prod']);

const RETENTION_VALUES = new Set<number>(Object.values(RetentionDays).filter((v) => typeof v === 'number'));

const positiveInt = z.int().min(1);

const memorySizes = z
  .object(Object.fromEntries(LAMBDA_NAMES.map((name) => [name, z.int().min(128).max(10_240).optional()])))
  .strict();

const customDomain = z
  .object({
    domainName: z.string().min(1),
    /** An ACM certificate in the stack's region (regional endpoint). */
    certificateArn: z.string().startsWith('arn:'),
    /** When given, an alias A record is created in this zone. */
    hostedZone: z
      .object({ id: z.string().min(1), name: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();

const waf = z
  .object({
    enabled: z.boolean().optional(),
    /** Requests one client IP may make in any 5 minutes before WAF blocks it. */
    ratePerIpPer5Minutes: z.int().min(10).max(2_000_000_000).optional(),
  })
  .strict();

const throttle = z.object({ rateLimit: positiveInt.optional(), burstLimit: positiveInt.optional() }).strict();

const reservedConcurrency = z
  .object(Object.fromEntries(RESERVABLE_NAMES.map((name) => [name, z.int().min(1).max(10_000).optional()])))
  .strict();

/** DynamoDB's bounds for an on-demand maximum (request units per second). */
const requestUnits = z.int().min(1).max(40_000_000);
const onDemandCeiling = z
  .object({ maxReadRequestUnits: requestUnits.optional(), maxWriteRequestUnits: requestUnits.optional() })
  .strict();

/** What a `stages.<name>` block in cdk.json may hold; every key is optional. */
const stageBlock = z
  .object({
    account: z
      .string()
      .regex(/^\d{12}$/)
      .optional(),
    region: z.string().min(1).optional(),
    ratePerMinute: positiveInt.optional(),
    quotaPerMonth: positiveInt.optional(),
    authorizerCacheTtlSeconds: z.int().min(0).max(3600).optional(),
    logRetentionDays: z
      .int()
      .refine(
        (days) => RETENTION_VALUES.has(days),
        'must be a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, …)',
      )
      .optional(),
    removalPolicy: z.enum(['retain', 'destroy']).optional(),
    deletionProtection: z.boolean().optional(),
    memorySizes: memorySizes.optional(),
    tracing: z.boolean().optional(),
    sourceMaps: z.boolean().optional(),
    throttle: throttle.optional(),
    docsThrottle: throttle.optional(),
    reservedConcurrency: reservedConcurrency.optional(),
    onDemandCeiling: onDemandCeiling.optional(),
    customDomain: customDomain.optional(),
    waf: waf.optional(),
    alarmEmail: z.email().optional(),
    alarmTopicArn: z.string().startsWith('arn:').optional(),
    keyPepperParameter: z
      .string()
      .regex(/^\/?[\w.\-/]+$/)
      .optional(),
    // Replaced versions outlast the longest cache a stage may set (shared/import/importer.ts retireAfter).
    snapshotCacheMs: z.int().min(0).max(MAX_SNAPSHOT_CACHE_MS).optional(),
    readCacheMb: z.int().min(0).max(1024).optional(),
    ingestMemorySize: z.int().min(128).max(10_240).optional(),
    ingestTimeoutSeconds: z.int().min(30).max(900).optional(),
    ingestMaxReceiveCount: z.int().min(1).max(1000).optional(),
    maxDataAgeMinutes: z.int().min(15).max(525_600).optional(),
    recordHistory: z.boolean().optional(),
  })
  .strict();

export interface StageConfig {
  /** Stage name: in the stack name (`MarketData-<stage>`), the API stage and resource names. */
  stage: string;
  /** Deployment target; both unset means an environment-agnostic stack. */
  account: string | undefined;
  region: string | undefined;
  /** Default per-minute budget of a key without its own (default 60). */
  ratePerMinute: number;
  /** Default monthly budget of a key without its own (default 100,000). */
  quotaPerMonth: number;
  /** How long API Gateway caches an authorizer decision per key (default 300; 0 disables). */
  authorizerCacheTtlSeconds: number;
  /** Retention of every log group of the stack (default 30). */
  logRetentionDays: RetentionDays;
  /** `retain` for prod, `destroy` elsewhere; applies to the table and the log groups. */
  removalPolicy: 'retain' | 'destroy';
  /** DynamoDB deletion protection: on for prod, off elsewhere. */
  deletionProtection: boolean;
  /** Memory in MB per function. */
  memorySizes: Record<LambdaName, number>;
  /** X-Ray on the API stage and the functions (default off). */
  tracing: boolean;
  /** Ship source maps and run with --enable-source-maps (default off). */
  sourceMaps: boolean;
  /** Stage-wide API Gateway throttle, a ceiling above the per-key budgets. */
  throttle: { rateLimit: number; burstLimit: number };
  /** Throttle of each key-free docs method (/openapi.json, /docs, /docs/{asset}), below the stage's. */
  docsThrottle: { rateLimit: number; burstLimit: number };
  /** Reserved concurrency per function; a function left out has none (uses the account's pool). */
  reservedConcurrency: Partial<Record<ReservableName, number>>;
  /** On-demand throughput ceiling of the table and of each of its indexes. */
  onDemandCeiling: { maxReadRequestUnits: number; maxWriteRequestUnits: number };
  customDomain: z.infer<typeof customDomain> | undefined;
  /** A regional WAFv2 web ACL on the stage: per-IP rate rule and AWS common rules (default off). */
  waf: { enabled: boolean; ratePerIpPer5Minutes: number };
  /**
   * Alarm notifications: a topic is created for the e-mail, or an existing topic is used. Every
   * alarm notifies it; a protected stage (prod) refuses to synthesize without one of the two.
   */
  alarmEmail: string | undefined;
  alarmTopicArn: string | undefined;
  /**
   * SSM SecureString parameter holding the key-hash pepper, read by the authorizer at cold start
   * (its environment carries the name only): by default `/market-data/<stage>/key-pepper` for prod
   * (created before the first deploy), none elsewhere.
   */
  keyPepperParameter: string | undefined;
  /** How long a function trusts its cached snapshot pointer (default 5000, at most 300,000). */
  snapshotCacheMs: number;
  /** Bound of each function instance's cache of published snapshot data, MB (default 64; 0: off). */
  readCacheMb: number;
  /** Memory of the ingest function, MB (default 1024): it holds the file and its projection. */
  ingestMemorySize: number;
  /** Timeout of the ingest function (default 300 s); the queue's visibility timeout is 30 s more. */
  ingestTimeoutSeconds: number;
  /** Deliveries of an ingest message before it moves to the dead-letter queue (default 2: a crash, a timeout or a busy lease retried once). */
  ingestMaxReceiveCount: number;
  /** A family's data older than this raises its DataAge alarm (default 1440, a day). */
  maxDataAgeMinutes: number;
  /**
   * Each import records its published earn and borrow offers' values as history, once per offer
   * and UTC hour (CONTRACT §12; default on): the ingest function's `RECORD_HISTORY`.
   */
  recordHistory: boolean;
}

const DEFAULT_MEMORY: Record<LambdaName, number> = {
  // Each size is the cheapest whose p50 stays within ×1.2 of one vCPU's (ADR 0030; the table in
  // docs/performance.md, "Memory and CPU"), and holds the function's indexes. At a whole vCPU: a
  // request's own CPU (2 to 8 ms typical) is a large share of a p50 of 3 to 19 ms, so less stretches
  // it past ×1.2.
  platforms: 1769,
  currencies: 1769,
  offers: 1769,
  history: 1769,
  search: 1769,
  // It runs the offers' and currencies' paths and keeps every family's index.
  mcp: 1769,
  // No data read: it answers from the request's own charge.
  usage: 256,
  webhooks: 256,
  // A decision API Gateway caches for the key: the key's hash and one read, on a first request only
  // (1.2 ms of own CPU: ×2.5 at 512 MB for $0.03 less a million).
  authorizer: 1769,
};

/**
 * Reserved concurrency of a protected stage. Concurrency is rate × duration: the stage throttle
 * (500 requests/s) times 0.2 s, a duration well above the functions' measured p99
 * (docs/performance.md), is 100; the docs function serves static documents. Other stages reserve
 * nothing, so a personal stack deploys into an account with a small concurrency quota.
 */
const PROTECTED_RESERVED_CONCURRENCY: Record<ReservableName, number> = {
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
};

/**
 * The default on-demand ceiling. Reads: the stage throttle (500 requests/s) times 10 read units,
 * the cost of a typical page, times 4 for headroom. Writes: an import's batch writes, far above
 * the counter write per request (500 units/s at the stage throttle).
 */
const DEFAULT_ON_DEMAND_CEILING = { maxReadRequestUnits: 20_000, maxWriteRequestUnits: 10_000 };

/** The configuration of `stage` with `block` applied over the documented defaults. */
export function resolveStageConfig(stage: string, block: unknown = {}): StageConfig {
  if (!/^[a-z][a-z0-9-]{0,20}$/.test(stage)) {
    throw new Error(`config: stage "${stage}" must be lowercase letters, digits and dashes, starting with a letter`);
  }
  const parsed = stageBlock.safeParse(block ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${['stages', stage, ...issue.path].join('.')}: ${issue.message}`,
    );
    throw new Error(`config: invalid stage block\n  ${problems.join('\n  ')}`);
  }
  const b = parsed.data;
  const isProtected = PROTECTED_STAGES.has(stage);
  // A protected stage's alarms must reach someone: 30 alarms that notify no one are none.
  if (isProtected && b.alarmEmail === undefined && b.alarmTopicArn === undefined) {
    throw new Error(
      `config: stage "${stage}" has no alarm target: set stages.${stage}.alarmEmail (an address to notify) or ` +
        `stages.${stage}.alarmTopicArn (an existing SNS topic) in cdk.json; its alarms would notify no one`,
    );
  }
  return {
    stage,
    account: b.account,
    region: b.region,
    ratePerMinute: b.ratePerMinute ?? DEFAULTS.ratePerMinute,
    quotaPerMonth: b.quotaPerMonth ?? DEFAULTS.quotaPerMonth,
    authorizerCacheTtlSeconds: b.authorizerCacheTtlSeconds ?? 300,
    logRetentionDays: (b.logRetentionDays ?? RetentionDays.ONE_MONTH) as RetentionDays,
    removalPolicy: b.removalPolicy ?? (isProtected ? 'retain' : 'destroy'),
    deletionProtection: b.deletionProtection ?? isProtected,
    memorySizes: { ...DEFAULT_MEMORY, ...definedOnly(b.memorySizes ?? {}) },
    tracing: b.tracing ?? false,
    sourceMaps: b.sourceMaps ?? false,
    throttle: { rateLimit: b.throttle?.rateLimit ?? 500, burstLimit: b.throttle?.burstLimit ?? 1000 },
    // Swagger UI loads four documents per page view: 20 requests/s is five views a second.
    docsThrottle: { rateLimit: b.docsThrottle?.rateLimit ?? 20, burstLimit: b.docsThrottle?.burstLimit ?? 40 },
    reservedConcurrency: {
      ...(isProtected ? PROTECTED_RESERVED_CONCURRENCY : {}),
      ...definedOnly(b.reservedConcurrency ?? {}),
    },
    onDemandCeiling: { ...DEFAULT_ON_DEMAND_CEILING, ...definedOnly(b.onDemandCeiling ?? {}) },
    customDomain: b.customDomain,
    waf: { enabled: b.waf?.enabled ?? false, ratePerIpPer5Minutes: b.waf?.ratePerIpPer5Minutes ?? 3000 },
    alarmEmail: b.alarmEmail,
    alarmTopicArn: b.alarmTopicArn,
    keyPepperParameter: b.keyPepperParameter ?? (isProtected ? `/market-data/${stage}/key-pepper` : undefined),
    snapshotCacheMs: b.snapshotCacheMs ?? DEFAULTS.snapshotCacheMs,
    readCacheMb: b.readCacheMb ?? DEFAULTS.readCacheMb,
    ingestMemorySize: b.ingestMemorySize ?? 1024,
    ingestTimeoutSeconds: b.ingestTimeoutSeconds ?? 300,
    ingestMaxReceiveCount: b.ingestMaxReceiveCount ?? 2,
    maxDataAgeMinutes: b.maxDataAgeMinutes ?? 1440,
    recordHistory: b.recordHistory ?? DEFAULTS.recordHistory,
  };
}

/** The configuration selected by the context of `scope` (`-c stage=…`, `stages` in cdk.json). */
export function loadStageConfig(scope: IConstruct): StageConfig {
  const stage = String(scope.node.tryGetContext('stage') ?? DEFAULT_STAGE);
  const stages: unknown = scope.node.tryGetContext('stages') ?? {};
  if (typeof stages !== 'object' || stages === null || Array.isArray(stages)) {
    throw new Error('config: context "stages" must be an object of stage blocks');
  }
  return resolveStageConfig(stage, (stages as Record<string, unknown>)[stage]);
}

/** Context flags arrive as strings from `-c key=value` and as booleans from cdk.json. */
export function contextFlag(scope: IConstruct, key: string): boolean {
  const value: unknown = scope.node.tryGetContext(key);
  return value === true || value === 'true';
}

function definedOnly<T extends object>(record: T): Partial<T> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Partial<T>;
}
