/**
 * The whole API on this machine: embedded DynamoDB, the table as the stack defines it, a dataset
 * imported by the real import, accounts loaded, and the local gateway in front of the real
 * handlers and authorizer. `npm start` and the integration tests both use it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { config, ENV } from '../config';
import { createDocumentClient, EMBEDDED_TIMEOUT_ENV, setDocumentClient } from '../dynamodb';
import { importDataset, type ImportResult } from '../import/importer';
import { KeyStore } from '../repositories/key-store';
import { parseAccounts, type AccountsFile } from '../schemas/dataset';
import { resetRuntime } from './reset';
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
  /** Extra environment for the functions (limits, snapshot cache…). */
  env?: Record<string, string>;
  publicRoutes?: GatewayOptions['publicRoutes'];
  onImportProgress?: (done: number, total: number) => void;
}

export interface LocalStack {
  url: string;
  endpoint: string;
  tableName: string;
  imported: ImportResult | undefined;
  accounts: AccountsFile | undefined;
  server: Server;
  close: () => Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const tableName = options.tableName ?? 'market-data-local';
  const dynamo: EmbeddedDynamo = await startEmbeddedDynamo();
  await ensureTable(dynamo.endpoint, tableName);

  Object.assign(process.env, { [ENV.tableName]: tableName, [ENV.dynamodbEndpoint]: dynamo.endpoint, ...EMBEDDED_TIMEOUT_ENV, ...options.env });
  resetRuntime();
  const client = createDocumentClient({ endpoint: dynamo.endpoint });
  setDocumentClient(client);

  const imported =
    options.dataset === undefined
      ? undefined
      : await importDataset(options.dataset, { client, tableName, onProgress: options.onImportProgress });
  const accounts = options.accounts === undefined ? undefined : parseAccounts(options.accounts);
  if (accounts) await new KeyStore(client, tableName, config().keyPepper).loadAccounts(accounts);

  // Loaded after the environment is set: the handlers read their configuration on first use.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const handlers = {
    platforms: require('../../functions/platforms/handler').handler,
    currencies: require('../../functions/currencies/handler').handler,
    offers: require('../../functions/offers/handler').handler,
    history: require('../../functions/history/handler').handler,
  };
  const authorizer = require('../../functions/authorizer/handler').handler;
  /* eslint-enable @typescript-eslint/no-require-imports */

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
    server,
    close: async () => {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      client.destroy();
      await dynamo.close();
    },
  };
}
