/**
 * The one DynamoDB document client per process. Short connection and request timeouts and a
 * bounded retry budget make a slow or failing DynamoDB surface as a 503 within a few seconds,
 * not as an API Gateway timeout at 29 s.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from './config';
import { attachDynamoAccounting } from './observability/dynamo-accounting';

export const CLIENT_TIMEOUTS = { connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxAttempts: 3 } as const;

/**
 * Timeouts are overridable for the local stack, whose embedded DynamoDB shares the process (and
 * its event loop) with a gateway serving many requests at once; a Lambda serves one.
 */
const requestTimeoutMs = () => Number(process.env.DYNAMODB_REQUEST_TIMEOUT_MS) || CLIENT_TIMEOUTS.requestTimeoutMs;
const connectionTimeoutMs = () => Number(process.env.DYNAMODB_CONNECTION_TIMEOUT_MS) || CLIENT_TIMEOUTS.connectionTimeoutMs;

/** The timeouts the local stack and integration tests use with the embedded DynamoDB. */
export const EMBEDDED_TIMEOUT_ENV = { DYNAMODB_REQUEST_TIMEOUT_MS: '20000', DYNAMODB_CONNECTION_TIMEOUT_MS: '10000' } as const;

export interface ClientOptions {
  endpoint?: string;
  region?: string;
  maxAttempts?: number;
  requestTimeoutMs?: number;
}

export function createDocumentClient(options: ClientOptions = {}): DynamoDBDocumentClient {
  const clientConfig: DynamoDBClientConfig = {
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    maxAttempts: options.maxAttempts ?? CLIENT_TIMEOUTS.maxAttempts,
    requestHandler: {
      connectionTimeout: connectionTimeoutMs(),
      requestTimeout: options.requestTimeoutMs ?? requestTimeoutMs(),
      // Without this the handler only logs a warning and waits for the socket's own timeout.
      throwOnRequestTimeout: true,
    },
  };
  if (options.endpoint) {
    clientConfig.endpoint = options.endpoint;
    // The embedded DynamoDB accepts any credentials; never look for real ones.
    clientConfig.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  const client = DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig), {
    marshallOptions: { removeUndefinedValues: true },
  });
  // Per-request calls and consumed capacity, for the request metrics (shared/observability).
  attachDynamoAccounting(client);
  return client;
}

let shared: DynamoDBDocumentClient | undefined;
let counters: DynamoDBDocumentClient | undefined;

/** The process-wide client, built from the runtime configuration on first use. */
export function documentClient(): DynamoDBDocumentClient {
  shared ??= createDocumentClient({ endpoint: config().dynamodbEndpoint });
  return shared;
}

/**
 * The client for counter updates: no SDK retries, because a timed-out ADD may have been applied
 * and retrying it would charge the request twice. The quota store retries throttling itself.
 */
export function counterClient(): DynamoDBDocumentClient {
  counters ??= createDocumentClient({ endpoint: config().dynamodbEndpoint, maxAttempts: 1 });
  return counters;
}

/** Replace the process-wide client (tests, the local stack); the counter client is rebuilt. */
export function setDocumentClient(client: DynamoDBDocumentClient | undefined): void {
  shared = client;
  counters?.destroy();
  counters = undefined;
}
