/**
 * The embedded DynamoDB of the local stack and the integration tests: dynalite in this process,
 * in memory, on a loopback port, with the table created from the same definition as the stack's.
 */
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../shared/data/table';

// dynalite ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const dynalite = require('dynalite') as (options: Record<string, unknown>) => import('node:http').Server;

export interface EmbeddedDynamo {
  endpoint: string;
  close: () => Promise<void>;
}

export async function startEmbeddedDynamo(port = 0, host = '127.0.0.1'): Promise<EmbeddedDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // Node closes a keep-alive connection idle for 5 s by default, racing a client that reuses it (a
  // quota write after a long import failed with ECONNRESET); the clients' sockets stay open instead.
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Connections kept open (above) end now, not when their clients go.
        server.closeAllConnections();
      }),
  };
}

/** Create the table as the stack defines it, unless it exists. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException) && (error as Error).name !== 'ResourceNotFoundException')
      throw error;
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } finally {
    client.destroy();
  }
}
