/**
 * `npm run import -- FILE [--table NAME] [--endpoint URL] [--region R] [--accounts FILE] [--record-history true|false]`
 * (`--accounts`: its users, keys and webhook subscriptions, loaded as `npm start` and `npm run keys -- load` load it)
 * Validates the dataset file whole, writes a new snapshot and publishes it atomically; the same
 * code runs against the local stack's embedded DynamoDB (`--endpoint`) and an AWS table. It
 * records the published offers' values as history (CONTRACT §12) unless `--record-history false`
 * (or `RECORD_HISTORY=false`, the ingest function's variable) says otherwise.
 */
import { parseArgs } from 'node:util';
import { AccountsConflictError, KeyStore } from '../shared/accounts/key-store';
import { WebhookStore } from '../shared/data/webhook-store';
import { DataFileError } from '../shared/import/dataset';
import { importDataset } from '../shared/import/importer';
import { systemClock } from '../shared/platform/clock';
import { booleanOf, DEFAULTS, ENV } from '../shared/platform/config';
import { createDocumentClient } from '../shared/platform/dynamodb';
import { progressBar, readDataFile, runMain, targetRuleOf, UsageError } from '../tools/cli';
import { loadAccountsCommand } from '../tools/keys/keys';

export async function main(argv = process.argv.slice(2)): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      table: { type: 'string', default: process.env.TABLE_NAME ?? 'market-data' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
      accounts: { type: 'string' },
      pepper: { type: 'string', default: process.env.KEY_PEPPER ?? '' },
      'record-history': { type: 'string' },
    },
  });
  if (positionals.length > 1 || (positionals.length === 0 && !values.accounts)) {
    throw new UsageError(
      'usage: npm run import -- FILE [--table NAME] [--endpoint URL] [--region R] [--accounts FILE] [--record-history true|false]',
    );
  }
  let recordHistory: boolean;
  try {
    recordHistory = booleanOf(
      { [ENV.recordHistory]: values['record-history'] ?? process.env[ENV.recordHistory] },
      ENV.recordHistory,
      DEFAULTS.recordHistory,
    );
  } catch {
    throw new UsageError('--record-history (or RECORD_HISTORY) must be true or false');
  }
  const client = createDocumentClient({
    endpoint: values.endpoint,
    region: values.region,
    maxAttempts: 10,
    requestTimeoutMs: 30_000,
  });
  const tableName = values.table!;
  try {
    if (positionals[0]) {
      const started = performance.now();
      const result = await importDataset(readDataFile(positionals[0]), {
        client,
        tableName,
        onProgress: progressBar('importing'),
        recordHistory,
        now: systemClock,
      });
      const summary = Object.entries(result.counts)
        .map(([family, n]) => `${family}=${n}`)
        .join(' ');
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const { observations, itemsWritten: historyItems } = result.history;
      const recorded = result.recorded.observations;
      process.stdout.write(
        result.unchanged
          ? `already served: nothing written (${summary})\n`
          : `published ${result.published.length ? result.published.join(', ') : 'no family'}` +
              `${observations ? `; ${observations} observation(s) appended (${historyItems} history items written)` : ''}` +
              `${recorded ? `; ${recorded} observation(s) recorded (${result.recorded.itemsWritten} history items written)` : ''}: ` +
              `${result.itemsWritten} items written, ${result.itemsDeleted} items of replaced or abandoned versions and failed imports deleted in ${seconds} s\n${summary}\n`,
      );
    }
    if (values.accounts) {
      const stores = {
        keys: new KeyStore(client, tableName, values.pepper!, systemClock),
        webhooks: new WebhookStore(client, tableName),
      };
      const loaded = await loadAccountsCommand(stores, values.accounts, {
        rule: targetRuleOf(values),
        now: systemClock(),
      });
      process.stdout.write(
        `loaded ${loaded.users} user(s), ${loaded.keys} key(s) and ${loaded.webhooks} webhook subscription(s)\n`,
      );
    }
  } catch (error) {
    if (error instanceof DataFileError || error instanceof AccountsConflictError) {
      throw new UsageError(`refused, nothing written:\n${error.errors.join('\n')}`);
    }
    throw error;
  } finally {
    client.destroy();
  }
}

if (require.main === module) runMain(() => main());
