/**
 * Integration-test plumbing: an embedded DynamoDB with the stack's table, the runtime pointed at
 * it, and API Gateway proxy events for the real handlers.
 */
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { AuthorizerHandler } from '../../functions/authorizer/authorizer';
import { ensureTable, startEmbeddedDynamo } from '../../local/embedded-dynamodb';
import { type ApiFunctions, buildFunctions } from '../../local/functions';
import { SNAPSHOT_PREFIX } from '../../shared/data/keys';
import type { ApiDeps } from '../../shared/http/api-deps';
import type { Clock } from '../../shared/platform/clock';
import { EMBEDDED_TIMEOUTS, ENV, type RuntimeConfig, readConfig } from '../../shared/platform/config';
import { type Clients, createClients } from '../../shared/platform/dynamodb';

export interface TestApi extends ApiFunctions {
  authorizer: AuthorizerHandler;
  deps: ApiDeps;
}

interface ApiOptions {
  /** The request time of every handler (quota and history windows): the test's chosen instant. */
  clock: Clock;
  /** Configuration as the environment variables the stack sets. */
  env?: Record<string, string>;
}

export interface TestTable {
  client: DynamoDBDocumentClient;
  tableName: string;
  endpoint: string;
  config: RuntimeConfig;
  /** Both clients of the functions (reads, counters): tests inject faults into them. */
  clients: () => DynamoDBDocumentClient[];
  /** The functions as their composition roots build them, on this table. */
  api: (options: ApiOptions) => TestApi;
  /** Every item of the table (a Scan, page after page). */
  items: () => Promise<Record<string, unknown>[]>;
  close: () => Promise<void>;
}

/** Every item of a table, page after page. */
export async function scanAll(client: DynamoDBDocumentClient, tableName: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of paginateScan({ client }, { TableName: tableName })) items.push(...(page.Items ?? []));
  return items;
}

export async function startTestTable(env: Record<string, string> = {}): Promise<TestTable> {
  const dynamo = await startEmbeddedDynamo();
  const tableName = env[ENV.tableName] ?? 'market-data-test';
  await ensureTable(dynamo.endpoint, tableName);
  const configOf = (overrides: Record<string, string>) =>
    readConfig({
      [ENV.tableName]: tableName,
      [ENV.dynamodbEndpoint]: dynamo.endpoint,
      [ENV.snapshotCacheMs]: '0',
      [ENV.dynamodbRequestTimeoutMs]: String(EMBEDDED_TIMEOUTS.dynamodbRequestTimeoutMs),
      [ENV.dynamodbConnectionTimeoutMs]: String(EMBEDDED_TIMEOUTS.dynamodbConnectionTimeoutMs),
      ...env,
      ...overrides,
    });
  const config = configOf({});
  const clients: Clients = createClients(config);
  const api = (options: ApiOptions): TestApi => {
    const built = buildFunctions(configOf(options.env ?? {}), clients, options.clock);
    return { ...built.handlers, authorizer: built.authorizer, deps: built.deps };
  };
  return {
    client: clients.client,
    tableName,
    endpoint: dynamo.endpoint,
    config,
    clients: () => [clients.client, clients.counterClient],
    api,
    items: () => scanAll(clients.client, tableName),
    close: async () => {
      clients.client.destroy();
      clients.counterClient.destroy();
      await dynamo.close();
    },
  };
}

export { apiEvent, type EventOptions } from '../../local/events';

/** The version a snapshot partition key (`V#<version>#…`) belongs to, or undefined for items outside versions. */
export function versionOfPartition(pk: string): string | undefined {
  if (!pk.startsWith(SNAPSHOT_PREFIX)) return undefined;
  const end = pk.indexOf('#', SNAPSHOT_PREFIX.length);
  return end < 0 ? undefined : pk.slice(SNAPSHOT_PREFIX.length, end);
}
