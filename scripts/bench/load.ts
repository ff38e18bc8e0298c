/**
 * The benchmark's table: the embedded DynamoDB in a child process (dynamo-server.ts) and the
 * generated dataset written into it by the real import. When the dataset holds a record that the
 * import would store as an item over DynamoDB's 400 KB limit (a history series of three years of
 * hourly points is ~1 MB in its `SOURCE` carry-over item), `importDataset` cannot load it; the
 * benchmark then writes the same snapshot minus those `SOURCE` items, which no request reads, and
 * says so in the report.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { putItems } from '../../shared/import/batch-writer';
import { crossRecordErrors, importDataset, versionOf } from '../../shared/import/importer';
import { projectSnapshot, type CompleteDataset } from '../../shared/import/project';
import { pointerKey } from '../../shared/keys';
import { DATASET_FAMILIES, DataFileError, parseDataset } from '../../shared/schemas/dataset';
import { round } from './stats';

/** DynamoDB's item size limit. */
export const MAX_ITEM_BYTES = 400 * 1024;

export interface BenchDynamo {
  endpoint: string;
  /** The process serving it (for its CPU time). */
  pid: number;
  close: () => Promise<void>;
}

export async function startBenchDynamo(tableName: string): Promise<BenchDynamo> {
  const script = resolve(__dirname, 'dynamo-server.ts');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script, tableName], {
    cwd: resolve(__dirname, '../..'),
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  const endpoint = await new Promise<string>((resolveEndpoint, reject) => {
    let buffered = '';
    child.once('exit', (code) => reject(new Error(`embedded DynamoDB exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const line = buffered.split('\n').find((l) => l.startsWith('{'));
      if (line) resolveEndpoint((JSON.parse(line) as { endpoint: string }).endpoint);
    });
  });
  return {
    endpoint,
    pid: child.pid!,
    close: () =>
      new Promise<void>((resolveClose) => {
        if (child.exitCode !== null) return resolveClose();
        child.once('exit', () => resolveClose());
        child.stdin!.end();
        setTimeout(() => child.kill('SIGTERM'), 5_000).unref();
      }),
  };
}

export interface ImportReport {
  method: 'importDataset' | 'projectSnapshot + putItems (SOURCE items over 400 KB left out)';
  ms: number;
  items: number;
  items_per_s: number | null;
  version: string;
  /** Records whose carry-over item would exceed 400 KB, by family (the import cannot store them). */
  oversized_source_records: Record<string, number>;
  largest_source_record_bytes: number;
}

function oversizedSourceRecords(dataset: Record<string, unknown[]>): { counts: Record<string, number>; largest: number } {
  const counts: Record<string, number> = {};
  let largest = 0;
  for (const family of DATASET_FAMILIES) {
    for (const record of dataset[family] ?? []) {
      const bytes = Buffer.byteLength(JSON.stringify(record));
      largest = Math.max(largest, bytes);
      if (bytes > MAX_ITEM_BYTES - 1024) counts[family] = (counts[family] ?? 0) + 1;
    }
  }
  return { counts, largest };
}

export async function loadDataset(dataset: unknown, client: DynamoDBDocumentClient, tableName: string, onProgress?: (done: number, total: number) => void): Promise<ImportReport> {
  const { counts, largest } = oversizedSourceRecords(dataset as Record<string, unknown[]>);
  const started = performance.now();
  if (Object.keys(counts).length === 0) {
    const result = await importDataset(dataset, { client, tableName, onProgress });
    const ms = performance.now() - started;
    return { method: 'importDataset', ms: Math.round(ms), items: result.itemsWritten, items_per_s: round(result.itemsWritten / (ms / 1000), 0), version: result.version, oversized_source_records: {}, largest_source_record_bytes: largest };
  }
  // The import's own steps, minus the items DynamoDB would refuse.
  const parsed = parseDataset(dataset) as CompleteDataset;
  const errors = crossRecordErrors(parsed, new Set(DATASET_FAMILIES));
  if (errors.length > 0) throw new DataFileError(errors);
  const version = versionOf(parsed);
  const items = projectSnapshot(version, parsed).filter((item) => Buffer.byteLength(JSON.stringify(item)) <= MAX_ITEM_BYTES);
  await putItems(items, { client, tableName, onProgress });
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...pointerKey(), version, previous: null, importedAt: new Date().toISOString(), counts: Object.fromEntries(DATASET_FAMILIES.map((f) => [f, parsed[f].length])) },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  const ms = performance.now() - started;
  return {
    method: 'projectSnapshot + putItems (SOURCE items over 400 KB left out)',
    ms: Math.round(ms),
    items: items.length,
    items_per_s: round(items.length / (ms / 1000), 0),
    version,
    oversized_source_records: counts,
    largest_source_record_bytes: largest,
  };
}
