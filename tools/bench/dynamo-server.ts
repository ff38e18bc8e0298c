/**
 * The benchmark's embedded DynamoDB in a process of its own, so that its work does not share an
 * event loop with the handlers being measured (DynamoDB is a remote service in production). Prints
 * `{"endpoint": …}` once the table exists; exits when its parent closes stdin.
 *
 *   node --import tsx tools/bench/dynamo-server.ts <table-name>
 */
import { ensureTable, startEmbeddedDynamo } from '../../local/embedded-dynamodb';

async function main(): Promise<void> {
  const tableName = process.argv[2];
  if (!tableName) throw new Error('usage: dynamo-server.ts <table-name>');
  const dynamo = await startEmbeddedDynamo();
  await ensureTable(dynamo.endpoint, tableName);
  process.stdout.write(`${JSON.stringify({ endpoint: dynamo.endpoint })}\n`);
  const stop = () => void dynamo.close().finally(() => process.exit(0));
  process.stdin.on('end', stop).on('close', stop).resume();
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
