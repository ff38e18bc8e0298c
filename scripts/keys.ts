/**
 * `npm run keys -- COMMAND [options]`: manage API keys and premium users in the table.
 *
 *   create  --user ID [--per-minute N] [--per-month N]   a new key, printed once
 *   revoke  --key-id ID --user ID                        revoke one of the user's keys
 *   list    --user ID                                    key ids, state and limits
 *   premium --user ID (--until DATE|never | --off)       set or end a subscription (creates the user)
 *   load    --accounts FILE                              write an accounts file (idempotent)
 *
 * Common: --table NAME (TABLE_NAME, else market-data), --endpoint URL (the local stack's embedded
 * DynamoDB), --region R, --pepper P (KEY_PEPPER; must be the deployed authorizer's).
 * Exit codes: 0 done, 1 failure (e.g. no such key), 2 bad arguments or a refused accounts file.
 */
import { KeyStore } from '../shared/data/key-store';
import { systemClock } from '../shared/platform/clock';
import { createDocumentClient } from '../shared/platform/dynamodb';
import { runMain } from '../tools/cli';
import { parseCommandLine, run } from '../tools/keys/keys';

export async function main(
  argv = process.argv.slice(2),
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<void> {
  const { invocation, connection } = parseCommandLine(argv);
  const client = createDocumentClient({
    endpoint: connection.endpoint,
    region: connection.region,
    maxAttempts: 5,
    requestTimeoutMs: 10_000,
  });
  try {
    await run(invocation, new KeyStore(client, connection.tableName, connection.pepper, systemClock), print);
  } finally {
    client.destroy();
  }
}

if (require.main === module) runMain(() => main());
