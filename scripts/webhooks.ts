/**
 * `npm run webhooks -- COMMAND [options]`: manage users' webhook subscriptions in the table
 * (CONTRACT §14; the usage is in tools/webhooks/webhooks.ts).
 *
 *   create        --user ID --url URL --family F [--filter Q] [--events L] [conditions]  the secret, printed once
 *   list          --user ID                                                            state, filter, conditions
 *   remove        --user ID --id ID
 *   enable        --user ID --id ID                                                    after it was disabled
 *   rotate-secret --user ID --id ID                                                    a new secret, printed once
 *
 * Common: --table NAME (TABLE_NAME, else market-data), --endpoint URL (the local stack's embedded
 * DynamoDB: its target rule, loopback only), --region R. Exit codes: 0 done, 1 failure, 2 bad
 * arguments or a refused subscription.
 */
import { WebhookStore } from '../shared/data/webhook-store';
import { systemClock } from '../shared/platform/clock';
import { runMain, withTableClient } from '../tools/cli';
import { parseCommandLine, run } from '../tools/webhooks/webhooks';

export async function main(
  argv = process.argv.slice(2),
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<void> {
  const { invocation, connection } = parseCommandLine(argv);
  await withTableClient(connection, (client) =>
    run(invocation, new WebhookStore(client, connection.tableName), print, {
      rule: connection.rule,
      now: systemClock(),
    }),
  );
}

if (require.main === module) runMain(() => main());
