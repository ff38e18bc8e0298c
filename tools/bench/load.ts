/**
 * The benchmark's table: the embedded DynamoDB in a child process (dynamo-server.ts) and the
 * generated dataset written into it by the real import.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FamilyVersions } from '../../shared/data/snapshot-store';
import { importDataset } from '../../shared/import/importer';
import { systemClock } from '../../shared/platform/clock';
import { EMBEDDED_TIMEOUTS, ENV, type RuntimeConfig, readConfig } from '../../shared/platform/config';
import { round } from './stats';

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
  method: 'importDataset';
  ms: number;
  items: number;
  items_per_s: number | null;
  versions: FamilyVersions;
}

/** The generated dataset written by the real import, timed. */
export async function loadDataset(
  dataset: unknown,
  client: DynamoDBDocumentClient,
  tableName: string,
  onProgress?: (done: number, total: number) => void,
): Promise<ImportReport> {
  const started = performance.now();
  const result = await importDataset(dataset, { client, tableName, onProgress, now: systemClock });
  const ms = performance.now() - started;
  return {
    method: 'importDataset',
    ms: Math.round(ms),
    items: result.itemsWritten,
    items_per_s: round(result.itemsWritten / (ms / 1000), 0),
    versions: result.versions,
  };
}

/**
 * The functions' configuration on the bench's embedded DynamoDB: warm requests (the snapshot pointer
 * stays cached for the whole run) and every request's own read cost (the block cache off: it is
 * measured separately).
 */
export const benchConfig = (tableName: string, endpoint: string): RuntimeConfig =>
  readConfig({
    [ENV.tableName]: tableName,
    [ENV.dynamodbEndpoint]: endpoint,
    [ENV.snapshotCacheMs]: '3600000',
    [ENV.readCacheMb]: '0',
    [ENV.dynamodbRequestTimeoutMs]: String(EMBEDDED_TIMEOUTS.dynamodbRequestTimeoutMs),
    [ENV.dynamodbConnectionTimeoutMs]: String(EMBEDDED_TIMEOUTS.dynamodbConnectionTimeoutMs),
  });
