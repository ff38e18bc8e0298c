/**
 * What imports cost (docs/performance.md, "Imports"): items written, estimated write units (the
 * table and every index entry), wall time and peak heap for (a) a full import, (b) an earn-only
 * refresh with 5% of APYs changed, (c) one hour of observations appended for every earn and borrow
 * offer, with no history stored and with three years stored, and (d) re-importing what is served.
 * Each case runs on its own table of the bench's embedded DynamoDB, through the real import.
 */
import { performance } from 'node:perf_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../local/embedded-dynamodb';
import { createDocumentClient } from '../../shared/dynamodb';
import { importDataset, type ImportResult } from '../../shared/import/importer';
import { platformResolver, projectOffers } from '../../shared/import/project';
import { parseDataset } from '../../shared/schemas/dataset';
import { INDEXES } from '../../shared/table';
import type { GeneratedDataset } from '../sample-data/generate';
import { round } from './stats';

export interface ImportCase {
  name: string;
  items_written: number;
  write_units: number;
  /** Keys sent in BatchGetItem calls, retried unprocessed ones again (history appends read the items they may write). */
  items_read: number;
  ms: number;
  peak_heap_mb: number;
  observations?: number;
  /** History items among the items written. */
  history_items_written?: number;
  target?: string;
  met?: boolean;
  detail?: string;
}

/** Write units of a put: 1 per KB (rounded up) on the table and on every index that holds the item. */
function writeUnits(item: Record<string, unknown>): number {
  const units = Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(item)) / 1024));
  const indexes = INDEXES.filter((i) => item[i.partitionKey.name] !== undefined && item[i.sortKey.name] !== undefined).length;
  return units * (1 + indexes);
}

/** A client on the bench's DynamoDB that counts the items and write units of every write it sends, and the items its batch reads ask for. */
function countingClient(endpoint: string) {
  const client: DynamoDBDocumentClient = createDocumentClient({ endpoint, maxAttempts: 10, requestTimeoutMs: 30_000 });
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  const counts = { items: 0, units: 0, read: 0 };
  (client as unknown as { send: (command: unknown) => Promise<unknown> }).send = (command: unknown) => {
    const name = (command as { constructor: { name: string } }).constructor.name;
    const input = (command as { input: Record<string, any> }).input;
    if (name === 'BatchWriteCommand') {
      for (const requests of Object.values(input.RequestItems as Record<string, any[]>)) {
        for (const r of requests) {
          counts.items++;
          counts.units += r.PutRequest ? writeUnits(r.PutRequest.Item) : 1 + INDEXES.length; // a delete: at most every index
        }
      }
    } else if (name === 'BatchGetCommand') {
      for (const request of Object.values(input.RequestItems as Record<string, { Keys: unknown[] }>)) counts.read += request.Keys.length;
    } else if (name === 'PutCommand' || name === 'UpdateCommand' || name === 'DeleteCommand') {
      counts.items++;
      counts.units += name === 'PutCommand' ? writeUnits(input.Item) : 1;
    }
    return send(command);
  };
  return { client, counts, reset: () => Object.assign(counts, { items: 0, units: 0, read: 0 }) };
}

/** Run `work`, measuring wall time and the peak heap above what was in use before. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; peakMb: number }> {
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 10);
  const started = performance.now();
  try {
    const value = await work();
    return { value, ms: Math.round(performance.now() - started), peakMb: round((Math.max(peak, process.memoryUsage().heapUsed) - base) / 2 ** 20, 1) ?? 0 };
  } finally {
    clearInterval(timer);
  }
}

const HOUR = 3_600_000;

/** Hourly observations of one offer over [from, to). */
function hourly(from: number, to: number, earn: boolean) {
  const points: { timestamp: string; apy: string; tvl?: string | null }[] = [];
  for (let t = from, i = 0; t < to; t += HOUR, i++) {
    const apy = (3 + (i % 97) / 100).toFixed(2);
    points.push(earn ? { timestamp: new Date(t).toISOString(), apy, tvl: String(1_000_000 + i) } : { timestamp: new Date(t).toISOString(), apy });
  }
  return points;
}

export async function measureImports(dataset: GeneratedDataset, endpoint: string, quick: boolean, log: (line: string) => void): Promise<ImportCase[]> {
  const cases: ImportCase[] = [];
  const table = async (name: string) => {
    await ensureTable(endpoint, name);
    return name;
  };
  const { client, counts, reset } = countingClient(endpoint);
  const run = async (name: string, tableName: string, file: unknown): Promise<{ result: ImportResult; entry: ImportCase }> => {
    reset();
    const { value: result, ms, peakMb } = await measured(() => importDataset(file, { client, tableName }));
    const entry: ImportCase = { name, items_written: counts.items, write_units: counts.units, items_read: counts.read, ms, peak_heap_mb: peakMb };
    if (result.history.observations) Object.assign(entry, { observations: result.history.observations, history_items_written: result.history.itemsWritten });
    cases.push(entry);
    log(`  imports: ${name}: ${counts.items} items, ${counts.units} write units, ${counts.read} items read, ${(ms / 1000).toFixed(1)} s`);
    return { result, entry };
  };

  try {
    // (a) a full import into an empty table.
    const full = await table('imports-full');
    await run('a. full import', full, dataset);

    // (b) an earn-only refresh with 5% of the APYs changed.
    const earn = dataset.earn_offers.map((o, i) => (i % 20 === 0 ? { ...o, apy: (Number(o.apy) + 0.01).toFixed(4) } : o));
    const { entry: refresh } = await run('b. earn refresh, 5% of APYs changed', full, { earn_offers: earn });
    const platforms = parseDataset({ exchanges: dataset.exchanges, wallets: dataset.wallets, protocols: dataset.protocols });
    const resolve = platformResolver({ exchanges: platforms.exchanges!, wallets: platforms.wallets!, protocols: platforms.protocols! });
    const own = projectOffers('earn', parseDataset({ earn_offers: earn }).earn_offers!, resolve).blocks.length;
    Object.assign(refresh, { target: `≤ 1.1 × the earn family's ${own} blocks`, met: refresh.items_written <= 1.1 * own, detail: `${round(refresh.items_written / own, 3)} ×` });

    // (d) re-importing what is served (the full file with the refreshed earn offers).
    const { entry: again } = await run('d. re-import of what is served', full, { ...dataset, earn_offers: earn });
    Object.assign(again, { target: '0 writes', met: again.items_written === 0 });

    // (c) one hour of observations for every earn and borrow offer: with no history stored, and with
    // three years stored (for a sample of offers: the embedded DynamoDB cannot hold three years of
    // every offer in a bench run; the cost per observation is the point).
    const { earn_history: _earn, borrow_history: _borrow, ...catalog } = dataset;
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
    const appendFor = (earnIds: number[], borrowIds: number[]) => ({
      earn_history: earnIds.map((offer_id) => ({ offer_id, points: hourly(hourStart, hourStart + HOUR, true) })),
      borrow_history: borrowIds.map((offer_id) => ({ offer_id, points: hourly(hourStart, hourStart + HOUR, false) })),
    });
    const empty = await table('imports-append-empty');
    await importDataset(catalog, { client, tableName: empty });
    const every = await run('c. append 1 h, every offer, no history stored', empty, appendFor(dataset.earn_offers.map((o) => o.id), dataset.borrow_offers.map((o) => o.id)));
    const perObservation = (every.entry.history_items_written ?? 0) / (every.entry.observations ?? 1);
    Object.assign(every.entry, { target: '≤ 4 item writes per observation', met: perObservation <= 4, detail: `${round(perObservation, 2)} per observation` });

    const sample = quick ? 10 : 100;
    const earnIds = dataset.earn_offers.slice(0, sample).map((o) => o.id);
    const borrowIds = dataset.borrow_offers.slice(0, sample).map((o) => o.id);
    const fresh = await table('imports-append-sample-empty');
    await importDataset(catalog, { client, tableName: fresh });
    const withoutHistory = await run(`c. append 1 h, ${2 * sample} offers, no history stored`, fresh, appendFor(earnIds, borrowIds));

    const stored = await table('imports-append-sample-3y');
    await importDataset(catalog, { client, tableName: stored });
    const threeYears = 3 * 365 * 24 * HOUR;
    log(`  imports: storing three years of hourly history for ${2 * sample} offers`);
    for (let i = 0; i < sample; i += 5) {
      const slice = (ids: number[], earnFamily: boolean) => ids.slice(i, i + 5).map((offer_id) => ({ offer_id, points: hourly(hourStart - threeYears, hourStart, earnFamily) }));
      await importDataset({ earn_history: slice(earnIds, true), borrow_history: slice(borrowIds, false) }, { client, tableName: stored });
    }
    const withHistory = await run(`c. append 1 h, ${2 * sample} offers, three years stored`, stored, appendFor(earnIds, borrowIds));
    const same = withHistory.entry.items_written === withoutHistory.entry.items_written;
    Object.assign(withHistory.entry, {
      target: 'the same writes as with no history stored, ≤ 4 history items per observation',
      met: same && (withHistory.entry.history_items_written ?? 0) / (withHistory.entry.observations ?? 1) <= 4,
      detail: `${withHistory.entry.items_written} vs ${withoutHistory.entry.items_written} items`,
    });
    return cases;
  } finally {
    client.destroy();
  }
}

export function importLines(cases: ImportCase[]): string[] {
  return cases.map(
    (c) =>
      `${c.name}: ${c.items_written} items${c.observations ? ` (${c.history_items_written} history items for ${c.observations} observations; the lease and the pointer)` : ''}, ` +
      `${c.write_units} write units, ${c.items_read} items read, ${(c.ms / 1000).toFixed(1)} s, peak heap +${c.peak_heap_mb} MB` +
      `${c.target ? `; target ${c.target}: ${c.met ? 'met' : 'NOT met'}${c.detail ? ` (${c.detail})` : ''}` : ''}`,
  );
}
