/**
 * The whole API on this machine: embedded DynamoDB, the table as the stack defines it, a dataset
 * imported by the real import, accounts loaded, and the local gateway in front of the real
 * handlers and authorizer. `npm start` and the integration tests both use it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildFunctions } from './functions';
import { EMBEDDED_TIMEOUTS, ENV, readConfig } from '../shared/config';
import { createClients, type Clients } from '../shared/dynamodb';
import { importDataset, type ImportResult } from '../shared/import/importer';
import { parseAccounts, type AccountsFile } from '../shared/schemas/dataset';
import { createGateway, type GatewayOptions } from './gateway';
import { ensureTable, startEmbeddedDynamo, type EmbeddedDynamo } from './embedded-dynamodb';

export interface LocalStackOptions {
  port?: number;
  host?: string;
  tableName?: string;
  /** The dataset to import: its file's bytes, or a value already in memory (see `parseDataset`). */
  dataset?: unknown;
  /** The accounts file: its bytes, or a value already in memory. */
  accounts?: unknown;
  authCacheTtlMs?: number;
  /** Function configuration, as the environment variables the stack sets (limits, snapshot cache…). */
  env?: Record<string, string>;
  /** The request time of the handlers and the authorizer (tests). */
  clock?: () => Date;
  publicRoutes?: GatewayOptions['publicRoutes'];
  onImportProgress?: (done: number, total: number) => void;
}

export interface LocalStack {
  url: string;
  endpoint: string;
  tableName: string;
  imported: ImportResult | undefined;
  accounts: AccountsFile | undefined;
  /** The clients every function of this stack uses (tests inject faults into them). */
  clients: Clients;
  server: Server;
  close: () => Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const tableName = options.tableName ?? 'market-data-local';
  const dynamo: EmbeddedDynamo = await startEmbeddedDynamo();
  await ensureTable(dynamo.endpoint, tableName);

  // The functions' configuration, from the same variables the stack sets, without touching process.env.
  const config = readConfig({
    [ENV.tableName]: tableName,
    [ENV.dynamodbEndpoint]: dynamo.endpoint,
    [ENV.dynamodbRequestTimeoutMs]: String(EMBEDDED_TIMEOUTS.dynamodbRequestTimeoutMs),
    [ENV.dynamodbConnectionTimeoutMs]: String(EMBEDDED_TIMEOUTS.dynamodbConnectionTimeoutMs),
    ...options.env,
  });
  const clients = createClients(config);
  const { client } = clients;

  const imported =
    options.dataset === undefined
      ? undefined
      : await importDataset(options.dataset, { client, tableName, onProgress: options.onImportProgress });
  const accounts = options.accounts === undefined ? undefined : parseAccounts(options.accounts);
  // The same factories the functions' composition roots call, with this stack's clients.
  const { handlers, authorizer, keyStore } = buildFunctions(config, clients, options.clock);
  if (accounts) await keyStore.loadAccounts(accounts);

  const server = createGateway({ handlers, authorizer, authCacheTtlMs: options.authCacheTtlMs, publicRoutes: options.publicRoutes });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    endpoint: dynamo.endpoint,
    tableName,
    imported,
    accounts,
    clients,
    server,
    close: async () => {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      client.destroy();
      clients.counterClient.destroy();
      await dynamo.close();
    },
  };
}
