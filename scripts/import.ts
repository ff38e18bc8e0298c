/**
 * `npm run import -- FILE [--table NAME] [--endpoint URL] [--region R] [--accounts FILE]`
 * Validates the dataset file whole, writes a new snapshot and publishes it atomically; the same
 * code runs against the local stack's embedded DynamoDB (`--endpoint`) and an AWS table.
 */
import { parseArgs } from 'node:util';
import { AccountsConflictError, KeyStore } from '../shared/data/key-store';
import { DataFileError, parseAccounts } from '../shared/import/dataset';
import { importDataset } from '../shared/import/importer';
import { createDocumentClient } from '../shared/platform/dynamodb';
import { progressBar, readDataFile, runMain, UsageError } from './cli';

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
    },
  });
  if (positionals.length > 1 || (positionals.length === 0 && !values.accounts)) {
    throw new UsageError(
      'usage: npm run import -- FILE [--table NAME] [--endpoint URL] [--region R] [--accounts FILE]',
    );
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
      const started = Date.now();
      const result = await importDataset(readDataFile(positionals[0]), {
        client,
        tableName,
        onProgress: progressBar('importing'),
      });
      const summary = Object.entries(result.counts)
        .map(([family, n]) => `${family}=${n}`)
        .join(' ');
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const { observations, itemsWritten: historyItems } = result.history;
      process.stdout.write(
        result.unchanged
          ? `already served: nothing written (${summary})\n`
          : `published ${result.published.length ? result.published.join(', ') : 'no family'}` +
              `${observations ? `; ${observations} observation(s) appended (${historyItems} history items written)` : ''}: ` +
              `${result.itemsWritten} items written, ${result.itemsDeleted} items of replaced or abandoned versions and failed imports deleted in ${seconds} s\n${summary}\n`,
      );
    }
    if (values.accounts) {
      const accounts = parseAccounts(readDataFile(values.accounts));
      await new KeyStore(client, tableName, values.pepper!).loadAccounts(accounts);
      process.stdout.write(`loaded ${accounts.users.length} user(s)\n`);
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
