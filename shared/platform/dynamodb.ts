/**
 * DynamoDB document clients. Short connection and request timeouts and a bounded retry budget
 * make a slow or failing DynamoDB surface as a 503 within a few seconds, not as an API Gateway
 * timeout at 29 s. Each function's composition root builds its clients once, at module scope.
 */
import { ConditionalCheckFailedException, DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RuntimeConfig } from './config';
import { DEFAULTS } from './config';
import { attachDynamoAccounting } from './dynamo-accounting';

/** A write refused by its condition (the class, or its name where another copy of the SDK threw it). */
export const isConditionFailure = (error: unknown): error is ConditionalCheckFailedException =>
  error instanceof ConditionalCheckFailedException ||
  (error as Error | undefined)?.name === 'ConditionalCheckFailedException';

/** @internal (exported for its tests) */
export const CLIENT_TIMEOUTS = {
  connectionTimeoutMs: DEFAULTS.dynamodbConnectionTimeoutMs,
  requestTimeoutMs: DEFAULTS.dynamodbRequestTimeoutMs,
  maxAttempts: 3,
} as const;

export interface ClientOptions {
  endpoint?: string;
  region?: string;
  maxAttempts?: number;
  requestTimeoutMs?: number;
  connectionTimeoutMs?: number;
}

export function createDocumentClient(options: ClientOptions = {}): DynamoDBDocumentClient {
  const clientConfig: DynamoDBClientConfig = {
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    maxAttempts: options.maxAttempts ?? CLIENT_TIMEOUTS.maxAttempts,
    requestHandler: {
      connectionTimeout: options.connectionTimeoutMs ?? CLIENT_TIMEOUTS.connectionTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? CLIENT_TIMEOUTS.requestTimeoutMs,
      // Without this the handler only logs a warning and waits for the socket's own timeout.
      throwOnRequestTimeout: true,
    },
  };
  if (options.endpoint) {
    clientConfig.endpoint = options.endpoint;
    // The embedded DynamoDB accepts any credentials; never look for real ones.
    clientConfig.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  const base = new DynamoDBClient(clientConfig);
  // The SDK's logger middleware copies every input and output, filtered of sensitive fields, for a
  // logger that is a no-op here (nothing configures one): at a webhook publish, 10,000 subscriptions
  // and every block read were copied for nothing.
  base.middlewareStack.remove('loggerMiddleware');
  const client = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true },
  });
  // Per-request calls and consumed capacity, for the request metrics (shared/platform/dynamo-accounting.ts).
  attachDynamoAccounting(client);
  return client;
}

export interface Clients {
  /** Reads and everything that may be retried. */
  client: DynamoDBDocumentClient;
  /**
   * Counter updates: no SDK retries, because a timed-out ADD may have been applied and retrying
   * it would charge the request twice. The quota store retries throttling itself.
   */
  counterClient: DynamoDBDocumentClient;
}

type ClientConfig = Pick<
  RuntimeConfig,
  'dynamodbEndpoint' | 'dynamodbRequestTimeoutMs' | 'dynamodbConnectionTimeoutMs'
>;

export const clientOptionsOf = (config: ClientConfig): ClientOptions => ({
  endpoint: config.dynamodbEndpoint,
  requestTimeoutMs: config.dynamodbRequestTimeoutMs,
  connectionTimeoutMs: config.dynamodbConnectionTimeoutMs,
});

export function createClients(config: ClientConfig): Clients {
  const options = clientOptionsOf(config);
  return { client: createDocumentClient(options), counterClient: createDocumentClient({ ...options, maxAttempts: 1 }) };
}
