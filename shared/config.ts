/**
 * Runtime configuration of the functions, read once from the environment and validated, failing
 * fast on a bad value. The CDK stack sets these variables (lib/), the local stack sets them for
 * the in-process handlers (shared/local/).
 */
export interface RuntimeConfig {
  /** The single table. */
  tableName: string;
  /** Optional endpoint override (the local stack's dynalite). */
  dynamodbEndpoint: string | undefined;
  /** Default per-minute budget of a key without its own. */
  ratePerMinute: number;
  /** Default monthly budget of a key without its own. */
  quotaPerMonth: number;
  /** How long a function trusts its cached copy of the snapshot pointer. */
  snapshotCacheMs: number;
  /** Optional HMAC pepper for key hashes (empty: plain SHA-256). */
  keyPepper: string;
  /** Seconds a client is told to wait after a 503. */
  retryAfterSeconds: number;
}

export const ENV = {
  tableName: 'TABLE_NAME',
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  ratePerMinute: 'RATE_LIMIT_PER_MINUTE',
  quotaPerMonth: 'QUOTA_PER_MONTH',
  snapshotCacheMs: 'SNAPSHOT_CACHE_MS',
  keyPepper: 'KEY_PEPPER',
  retryAfterSeconds: 'RETRY_AFTER_SECONDS',
} as const;

export const DEFAULTS = {
  ratePerMinute: 60,
  quotaPerMonth: 100_000,
  snapshotCacheMs: 5_000,
  retryAfterSeconds: 1,
} as const;

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, allowZero = false): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || (!allowZero && Number(raw) === 0)) {
    throw new Error(`configuration: ${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer`);
  }
  return Number(raw);
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const tableName = env[ENV.tableName];
  if (!tableName) throw new Error(`configuration: ${ENV.tableName} is required`);
  return {
    tableName,
    dynamodbEndpoint: env[ENV.dynamodbEndpoint] || undefined,
    ratePerMinute: positiveInt(env, ENV.ratePerMinute, DEFAULTS.ratePerMinute),
    quotaPerMonth: positiveInt(env, ENV.quotaPerMonth, DEFAULTS.quotaPerMonth),
    snapshotCacheMs: positiveInt(env, ENV.snapshotCacheMs, DEFAULTS.snapshotCacheMs, true),
    keyPepper: env[ENV.keyPepper] ?? '',
    retryAfterSeconds: positiveInt(env, ENV.retryAfterSeconds, DEFAULTS.retryAfterSeconds),
  };
}

let cached: RuntimeConfig | undefined;

/** The process-wide configuration, read on first use. */
export function config(): RuntimeConfig {
  cached ??= readConfig();
  return cached;
}

/** Tests and the local stack change the environment; this makes the next read see it. */
export function resetConfig(): void {
  cached = undefined;
}
