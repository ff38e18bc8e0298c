/**
 * The whole API on this machine: embedded DynamoDB, the table as the stack defines it, a dataset
 * imported by the real import, accounts loaded, and the local gateway in front of the real
 * handlers and authorizer: built from the TypeScript sources, or (`bundles`) the bundles
 * `cdk synth` wrote, as deployed (local/bundles.ts). `npm start` and the integration tests both use it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { docsHandler } from '../functions/docs/docs-handler';
import { dataStatus } from '../shared/domain/status';
import type { ApiEvent, ApiResult } from '../shared/http/http';
import { type FunctionName, STATUS_PATH } from '../shared/http/routes';
import { type AccountsFile, parseAccounts } from '../shared/import/dataset';
import { type ImportResult, importDataset } from '../shared/import/importer';
import { type Clock, systemClock } from '../shared/platform/clock';
import { EMBEDDED_TIMEOUTS, ENV, readConfig } from '../shared/platform/config';
import { type Clients, createClients } from '../shared/platform/dynamodb';
import { ValidationError } from '../shared/platform/errors';
import { loadAccounts } from '../shared/webhooks/manage';
import type { Lookup } from '../shared/webhooks/target';
import { loadBundles } from './bundles';
import { type EmbeddedDynamo, ensureTable, startEmbeddedDynamo } from './embedded-dynamodb';
import { buildFunctions } from './functions';
import { type Authorizer, createGateway, type FamilyHandler, type GatewayOptions } from './gateway';
import { type LocalWebhooks, startLocalWebhooks } from './webhooks';

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
  /**
   * The stack's one clock (CONTRACT §9): the import's refresh time, recording, retention, figures
   * and lease, the functions' request time, the gateway's request time and authorizer cache. `npm
   * start` passes `systemClock`; a test passes a clock of the instant it chose. Bundled functions
   * read the process clock, so with `bundles` it must be `systemClock`.
   */
  clock: Clock;
  /**
   * Extra routes served without a key. With `bundles`, the same paths are answered by the
   * bundled docs function instead of the functions given here.
   */
  publicRoutes?: GatewayOptions['publicRoutes'];
  /**
   * A cloud assembly directory (`cdk.out` after `npm run synth`): serve the functions' bundles
   * from it instead of the TypeScript sources, with the template's environment variables and
   * this stack's table, endpoint and `env` over them.
   */
  bundles?: string;
  /** The stack of the cloud assembly, when it holds more than one. */
  bundleStack?: string;
  onImportProgress?: (done: number, total: number) => void;
  /**
   * Webhook deliveries (local/webhooks.ts): how often the pointer is read and the queue drained
   * (`npm start`: every second; default 0, only when a test calls `webhooks.poll()`), and the
   * attempt's name lookup and deadline (tests).
   */
  webhooks?: { intervalMs?: number; lookup?: Lookup; timeoutMs?: number };
}

/** An accounts file's subscription refused: its problems by place. */
export class AccountsWebhooksError extends Error {
  constructor(readonly errors: string[]) {
    super(`the accounts file's webhooks were refused:\n${errors.join('\n')}`);
    this.name = 'AccountsWebhooksError';
  }
}

export interface LocalStack {
  url: string;
  endpoint: string;
  tableName: string;
  imported: ImportResult | undefined;
  accounts: AccountsFile | undefined;
  /**
   * The clients of the import, the accounts and (from the sources) every function: tests inject
   * faults into them. Bundled functions have their own, inside the bundle.
   */
  clients: Clients;
  /** The cloud assembly stack whose bundles serve the API (with `bundles`). */
  bundledStack: string | undefined;
  /** Matching and sending of webhooks on this stack's table. */
  webhooks: LocalWebhooks;
  server: Server;
  close: () => Promise<void>;
}

export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const { clock } = options;
  if (options.bundles !== undefined && clock !== systemClock)
    throw new Error('a bundled function reads the process clock: with bundles, the clock is systemClock');
  const tableName = options.tableName ?? 'market-data-local';
  const dynamo: EmbeddedDynamo = await startEmbeddedDynamo();
  await ensureTable(dynamo.endpoint, tableName);

  // The functions' configuration, from the same variables the stack sets, without touching process.env.
  const localEnv: Record<string, string> = {
    [ENV.tableName]: tableName,
    [ENV.dynamodbEndpoint]: dynamo.endpoint,
    [ENV.dynamodbRequestTimeoutMs]: String(EMBEDDED_TIMEOUTS.dynamodbRequestTimeoutMs),
    [ENV.dynamodbConnectionTimeoutMs]: String(EMBEDDED_TIMEOUTS.dynamodbConnectionTimeoutMs),
    ...options.env,
  };
  const config = readConfig(localEnv);
  const clients = createClients(config);
  const { client } = clients;

  const imported =
    options.dataset === undefined
      ? undefined
      : await importDataset(options.dataset, {
          client,
          tableName,
          onProgress: options.onImportProgress,
          recordHistory: config.recordHistory,
          now: clock,
        });
  const accounts = options.accounts === undefined ? undefined : parseAccounts(options.accounts);
  // The same factories the functions' composition roots call, with this stack's clients.
  const built = buildFunctions(config, clients, clock);
  const webhooks = await startLocalWebhooks({
    client,
    tableName,
    clock,
    intervalMs: options.webhooks?.intervalMs ?? 0,
    lookup: options.webhooks?.lookup,
    timeoutMs: options.webhooks?.timeoutMs,
  });
  if (accounts) {
    try {
      await loadAccounts({ keys: built.keyStore, webhooks: webhooks.webhooks }, accounts, {
        rule: 'local',
        now: clock(),
        lookup: options.webhooks?.lookup,
      });
    } catch (error) {
      await webhooks.stop();
      if (error instanceof ValidationError) throw new AccountsWebhooksError(error.details?.message as string[]);
      throw error;
    }
  }

  let handlers: Record<FunctionName, FamilyHandler> = built.handlers;
  let authorizer: Authorizer = built.authorizer;
  let publicRoutes = options.publicRoutes;
  let bundledStack: string | undefined;
  // The key-free function, which also serves the data status: an API route, whatever `publicRoutes` holds.
  const { stores, retryAfterSeconds } = built.deps;
  let docs: (event: ApiEvent) => Promise<ApiResult> = docsHandler({
    status: (nowMs) => dataStatus(stores, nowMs, config.dataMaxAgeSeconds),
    clock: built.deps.clock,
    retryAfterSeconds,
  });
  if (options.bundles !== undefined) {
    // Loaded after the import: a bundle's composition root reads its configuration at load time.
    const bundled = loadBundles(options.bundles, localEnv, options.bundleStack);
    ({ handlers, authorizer, docs } = bundled);
    bundledStack = bundled.stackName;
    if (publicRoutes) publicRoutes = docsRoutes(Object.keys(publicRoutes), bundled.docs);
  }
  publicRoutes = { ...publicRoutes, ...docsRoutes([STATUS_PATH], docs) };

  const server = createGateway({ handlers, authorizer, clock, authCacheTtlMs: options.authCacheTtlMs, publicRoutes });
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
    bundledStack,
    webhooks,
    server,
    close: async () => {
      await webhooks.stop();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      client.destroy();
      clients.counterClient.destroy();
      await dynamo.close();
    },
  };
}

/** Public paths answered by the docs function, as API Gateway invokes it (a proxy event of the path's resource, query included). */
function docsRoutes(
  paths: string[],
  docs: (event: ApiEvent) => Promise<ApiResult>,
): NonNullable<GatewayOptions['publicRoutes']> {
  const routes: NonNullable<GatewayOptions['publicRoutes']> = {};
  for (const path of paths) {
    const asset = path.startsWith('/docs/') ? path.slice('/docs/'.length) : undefined;
    routes[path] = async (req, requestId) => {
      const multi: Record<string, string[]> = Object.create(null);
      for (const [name, value] of new URL(req.url ?? '/', 'http://local').searchParams)
        (multi[name] ??= []).push(value);
      const hasQuery = Object.keys(multi).length > 0;
      const result = await docs({
        resource: asset === undefined ? path : '/docs/{asset}',
        path,
        httpMethod: 'GET',
        headers: {},
        multiValueHeaders: {},
        queryStringParameters: hasQuery
          ? Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values[values.length - 1]]))
          : null,
        multiValueQueryStringParameters: hasQuery ? multi : null,
        pathParameters: asset === undefined ? null : { asset },
        stageVariables: null,
        body: null,
        isBase64Encoded: false,
        requestContext: { requestId } as ApiEvent['requestContext'],
      } as ApiEvent);
      const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
      return {
        status: result.statusCode,
        headers,
        body: result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body,
      };
    };
  }
  return routes;
}
