/**
 * The one DynamoDB document client per process. Short connection and request timeouts and a
 * bounded retry budget make a slow or failing DynamoDB surface as a 503 within a few seconds,
 * not as an API Gateway timeout at 29 s.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from './config';

export const CLIENT_TIMEOUTS = { connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000, maxAttempts: 3 } as const;

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
      connectionTimeout: CLIENT_TIMEOUTS.connectionTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? CLIENT_TIMEOUTS.requestTimeoutMs,
    },
  };
  if (options.endpoint) {
    clientConfig.endpoint = options.endpoint;
    // The embedded DynamoDB accepts any credentials; never look for real ones.
    clientConfig.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

let shared: DynamoDBDocumentClient | undefined;

/** The process-wide client, built from the runtime configuration on first use. */
export function documentClient(): DynamoDBDocumentClient {
  shared ??= createDocumentClient({ endpoint: config().dynamodbEndpoint });
  return shared;
}

/** Replace the process-wide client (tests, the local stack). */
export function setDocumentClient(client: DynamoDBDocumentClient | undefined): void {
  shared = client;
}
