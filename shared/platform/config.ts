/**
 * Runtime configuration of the functions, read once from the environment by each function's
 * composition root (functions/<name>/handler.ts) and validated, so a bad value fails the
 * function's initialization instead of a request. The CDK stack sets these variables (lib/); the
 * local stack builds the same object from its options (local/stack.ts).
 */
export interface RuntimeConfig {
  /** The single table. */
  tableName: string;
  /** Optional endpoint override (the local stack's embedded DynamoDB). */
  dynamodbEndpoint: string | undefined;
  /** Default per-minute budget of a key without its own. */
  ratePerMinute: number;
  /** Default monthly budget of a key without its own. */
  quotaPerMonth: number;
  /** How long a function trusts its cached copy of the snapshot pointer. */
  snapshotCacheMs: number;
  /**
   * Optional HMAC pepper for key hashes (empty: plain SHA-256), given as a value (the local stack,
   * the tests, the scripts)...
   */
  keyPepper: string;
  /**
   * ...or as the name of the SSM SecureString that holds it, which the authorizer reads at cold
   * start (the deployed stack: the value is never in a function's environment). Not both.
   */
  keyPepperParameter: string | undefined;
  /** Seconds a client is told to wait after a 503. */
  retryAfterSeconds: number;
  /** Bound of each instance's cache of published snapshot data, in MB (0 turns it off). */
  readCacheMb: number;
  /**
   * The function's configured memory, MB: Lambda sets `AWS_LAMBDA_FUNCTION_MEMORY_SIZE` from the
   * stack's memory size; locally 512, the API functions' default. The index budget is a share of it
   * (shared/data/index-store.ts `indexBudget`).
   */
  memoryMb: number;
  /**
   * How long after its last refresh a family counts as stale (`GET /api/v1/status`): the stage's
   * `maxDataAgeMinutes`, the age at which its freshness alarm fires too.
   */
  dataMaxAgeSeconds: number;
  /** DynamoDB client timeouts (the local stack, whose embedded DynamoDB shares the process, needs longer ones). */
  dynamodbRequestTimeoutMs: number;
  dynamodbConnectionTimeoutMs: number;
  /**
   * Imports record each published earn and borrow offer's value as history, once per offer and
   * UTC hour (CONTRACT §12): the stage's `recordHistory`, on by default. Read by the ingest
   * function, `npm run import` and the local stack.
   */
  recordHistory: boolean;
}

export const ENV = {
  tableName: 'TABLE_NAME',
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  ratePerMinute: 'RATE_LIMIT_PER_MINUTE',
  quotaPerMonth: 'QUOTA_PER_MONTH',
  snapshotCacheMs: 'SNAPSHOT_CACHE_MS',
  keyPepper: 'KEY_PEPPER',
  keyPepperParameter: 'KEY_PEPPER_PARAMETER',
  retryAfterSeconds: 'RETRY_AFTER_SECONDS',
  readCacheMb: 'READ_CACHE_MB',
  memoryMb: 'AWS_LAMBDA_FUNCTION_MEMORY_SIZE',
  dataMaxAgeSeconds: 'DATA_MAX_AGE_SECONDS',
  dynamodbRequestTimeoutMs: 'DYNAMODB_REQUEST_TIMEOUT_MS',
  dynamodbConnectionTimeoutMs: 'DYNAMODB_CONNECTION_TIMEOUT_MS',
  recordHistory: 'RECORD_HISTORY',
  /** The ingest function's dead-letter queue (its URL), where it sends an upload whose import kept failing. */
  ingestDeadLetters: 'INGEST_DEAD_LETTER_QUEUE_URL',
} as const;

export const DEFAULTS = {
  ratePerMinute: 60,
  quotaPerMonth: 100_000,
  snapshotCacheMs: 5_000,
  retryAfterSeconds: 1,
  readCacheMb: 64,
  memoryMb: 512,
  dataMaxAgeSeconds: 86_400,
  dynamodbRequestTimeoutMs: 2_000,
  dynamodbConnectionTimeoutMs: 1_000,
  recordHistory: true,
} as const;

/**
 * The longest pointer cache a stage may set (lib/config.ts): an import is visible within 5 minutes
 * at most, and an import that does not know the readers' cache (the command line) keeps replaced
 * versions long enough for this one (shared/import/importer.ts retireAfter).
 */
export const MAX_SNAPSHOT_CACHE_MS = 300_000;

/** The timeouts the local stack and integration tests use with the embedded DynamoDB. */
export const EMBEDDED_TIMEOUTS = { dynamodbRequestTimeoutMs: 20_000, dynamodbConnectionTimeoutMs: 10_000 } as const;

function positiveInt(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  allowZero = false,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || (!allowZero && Number(raw) === 0)) {
    throw new Error(`configuration: ${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer`);
  }
  return Number(raw);
}

/** `true` or `false`; absent or empty: the fallback. */
export function booleanOf(env: Record<string, string | undefined>, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new Error(`configuration: ${name} must be true or false`);
  return raw === 'true';
}

export function readConfig(env: Record<string, string | undefined>): RuntimeConfig {
  const tableName = env[ENV.tableName];
  if (!tableName) throw new Error(`configuration: ${ENV.tableName} is required`);
  const keyPepper = env[ENV.keyPepper] ?? '';
  const keyPepperParameter = env[ENV.keyPepperParameter] || undefined;
  if (keyPepper !== '' && keyPepperParameter !== undefined) {
    throw new Error(
      `configuration: ${ENV.keyPepper} and ${ENV.keyPepperParameter} are exclusive (a pepper, or the parameter that holds it)`,
    );
  }
  return {
    tableName,
    dynamodbEndpoint: env[ENV.dynamodbEndpoint] || undefined,
    ratePerMinute: positiveInt(env, ENV.ratePerMinute, DEFAULTS.ratePerMinute),
    quotaPerMonth: positiveInt(env, ENV.quotaPerMonth, DEFAULTS.quotaPerMonth),
    snapshotCacheMs: positiveInt(env, ENV.snapshotCacheMs, DEFAULTS.snapshotCacheMs, true),
    keyPepper,
    keyPepperParameter,
    retryAfterSeconds: positiveInt(env, ENV.retryAfterSeconds, DEFAULTS.retryAfterSeconds),
    readCacheMb: positiveInt(env, ENV.readCacheMb, DEFAULTS.readCacheMb, true),
    memoryMb: positiveInt(env, ENV.memoryMb, DEFAULTS.memoryMb),
    dataMaxAgeSeconds: positiveInt(env, ENV.dataMaxAgeSeconds, DEFAULTS.dataMaxAgeSeconds),
    dynamodbRequestTimeoutMs: positiveInt(env, ENV.dynamodbRequestTimeoutMs, DEFAULTS.dynamodbRequestTimeoutMs),
    dynamodbConnectionTimeoutMs: positiveInt(
      env,
      ENV.dynamodbConnectionTimeoutMs,
      DEFAULTS.dynamodbConnectionTimeoutMs,
    ),
    recordHistory: booleanOf(env, ENV.recordHistory, DEFAULTS.recordHistory),
  };
}
