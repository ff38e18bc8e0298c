/**
 * `npm run keys -- COMMAND [options]`: manage API keys and premium users in the table.
 *
 *   create  --user ID [--per-minute N] [--per-month N]   a new key, printed once
 *   revoke  --key-id ID --user ID                        revoke one of the user's keys
 *   list    --user ID                                    key ids, state and limits
 *   premium --user ID (--until DATE|never | --off)       set or end a subscription (creates the user)
 *   load    --accounts FILE                              write an accounts file (idempotent): users, keys,
 *                                                        webhook subscriptions, as `npm start` loads it
 *
 * Common: --table NAME (TABLE_NAME, else market-data), --endpoint URL (the local stack's embedded
 * DynamoDB: webhook targets on loopback only), --region R, --pepper P (KEY_PEPPER; must be the
 * deployed authorizer's). Exit codes: 0 done, 1 failure (e.g. no such key), 2 bad arguments or a
 * refused accounts file.
 */
import { KeyStore } from '../shared/accounts/key-store';
import { WebhookStore } from '../shared/data/webhook-store';
import { systemClock } from '../shared/platform/clock';
import { runMain, targetRuleOf, withTableClient } from '../tools/cli';
import { parseCommandLine, run } from '../tools/keys/keys';

export async function main(
  argv = process.argv.slice(2),
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<void> {
  const { invocation, connection } = parseCommandLine(argv);
  await withTableClient(connection, (client) =>
    run(
      invocation,
      {
        keys: new KeyStore(client, connection.tableName, connection.pepper, systemClock),
        webhooks: new WebhookStore(client, connection.tableName),
      },
      print,
      { rule: targetRuleOf(connection), now: systemClock() },
    ),
  );
}

if (require.main === module) runMain(() => main());
