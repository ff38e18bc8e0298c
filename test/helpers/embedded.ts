/**
 * Integration-test plumbing: an embedded DynamoDB with the stack's table, the runtime pointed at
 * it, and API Gateway proxy events for the real handlers.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV } from '../../shared/config';
import { createDocumentClient, EMBEDDED_TIMEOUT_ENV, setDocumentClient } from '../../shared/dynamodb';
import type { ApiEvent } from '../../shared/http';
import { ensureTable, startEmbeddedDynamo } from '../../shared/local/embedded-dynamodb';
import { proxyEvent } from '../../shared/local/gateway';
import { resetRuntime } from '../../shared/local/reset';
import { matchRoute } from '../../shared/routes';

export interface TestTable {
  client: DynamoDBDocumentClient;
  tableName: string;
  endpoint: string;
  close: () => Promise<void>;
}

export async function startTestTable(env: Record<string, string> = {}): Promise<TestTable> {
  const dynamo = await startEmbeddedDynamo();
  const tableName = 'market-data-test';
  await ensureTable(dynamo.endpoint, tableName);
  Object.assign(process.env, { [ENV.tableName]: tableName, [ENV.dynamodbEndpoint]: dynamo.endpoint, [ENV.snapshotCacheMs]: '0', ...EMBEDDED_TIMEOUT_ENV, ...env });
  resetRuntime();
  const client = createDocumentClient({ endpoint: dynamo.endpoint });
  setDocumentClient(client);
  return {
    client,
    tableName,
    endpoint: dynamo.endpoint,
    close: async () => {
      client.destroy();
      await dynamo.close();
    },
  };
}

export interface EventOptions {
  keyId?: string | null;
  perMinute?: number;
  perMonth?: number;
}

let counter = 0;

/** A REST proxy event for `GET path?query`, as API Gateway builds it after the authorizer. */
export function apiEvent(pathAndQuery: string, options: EventOptions = {}): ApiEvent {
  const url = new URL(pathAndQuery, 'http://test');
  const match = matchRoute('GET', url.pathname);
  if (!match) throw new Error(`no route for ${url.pathname}`);
  const keyId = options.keyId === undefined ? `test-key-${++counter}` : options.keyId;
  return proxyEvent({
    url,
    match,
    requestId: `req-${counter}`,
    authorizer: keyId === null ? null : { keyId, perMinute: options.perMinute, perMonth: options.perMonth },
  });
}
