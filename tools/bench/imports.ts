/**
 * What imports cost (docs/performance.md, "Refresh cost"), through the real import, on the bench's
 * embedded DynamoDB, with a client that charges every write by DynamoDB's own size rules, with its
 * index entries (tools/bench/write-units.ts). The cases of issue 21:
 *
 *   (a) a full import into an empty table;
 *   (b) an earn refresh in which every document changed: both timestamps set to the refresh time,
 *       every APY moved by a seeded random ±30 %;
 *   (c) the same for every 20th earn offer (5 %), the others byte-identical;
 *   (d) a re-import of what is served (nothing changed);
 *   (e) one hour of history appended for every earn and borrow offer;
 *
 * then history recorded from imports (CONTRACT §12): an import carrying every earn and borrow
 * offer, first of its hour (one observation recorded per published offer), and a refresh of every
 * earn offer in the same hour (none);
 *
 * and one hour for a sample of offers with no history stored and with three years stored. Each
 * case counts the deletions it causes (`deleteReplaced`), items written and deleted, write units of
 * puts and of deletions, items and read units read, wall time and peak heap. (a) to (d) run one
 * after the other on one table; the history cases on tables of their own.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../local/embedded-dynamodb';
import { encodeJournal } from '../../shared/data/items/history-journal';
import { VersionWriter } from '../../shared/data/version-writer';
import {
  type ImportOptions,
  type ImportResult,
  importDataset,
  readPointer,
  type SnapshotPointer,
} from '../../shared/import/importer';
import { systemClock } from '../../shared/platform/clock';
import { createDocumentClient } from '../../shared/platform/dynamodb';
import type { GeneratedDataset } from '../sample-data/generate';
import { createRng, decimal, type Rng } from '../sample-data/random';
import { measureIndexLoads } from './index-load';
import { round } from './stats';
import { countingClient, itemSize, unitsOf } from './write-units';

/** The cases of issue 21 the baseline (bench/baseline-writes.json) names. */
export type CaseId = 'a' | 'b' | 'c' | 'd' | 'e';

export interface ImportCase {
  id?: CaseId;
  name: string;
  /** Items put or updated. */
  items_written: number;
  /** Items deleted (delete requests sent). */
  items_deleted: number;
  /** Write units of the puts and updates: the table and every index entry. */
  write_units: number;
  /** Write units of the deletions: the table and every index entry of each item deleted. */
  delete_units: number;
  total_units: number;
  /** Of the total, the units of family version items (index segments, manifests, blocks, figure chunks, source records). */
  version_units?: number;
  /** Of the total, the units of the snapshot pointer's writes. */
  pointer_units?: number;
  /** The total by item kind, puts and deletions apart (tools/bench/write-units.ts `kindOf`). */
  units_by_kind?: Record<string, number>;
  /** Items returned by the import's reads (GetItem, BatchGetItem, Query). */
  items_read: number;
  /** Read units of those reads, as the embedded DynamoDB reports them. */
  read_units: number;
  ms: number;
  peak_heap_mb: number;
  observations?: number;
  /** History items among the items written. */
  history_items_written?: number;
  /** Write units of the history items and the history journal among the write units. */
  history_write_units?: number;
  /**
   * Write units of the history journal among them (shared/data/items/history-journal.ts `encodeJournal` of
   * the same series, sized by DynamoDB's rules): what all or nothing costs (docs/adr/0011).
   */
  journal_units?: number;
  /** The figures' chunks read and written (CONTRACT §13), and the index heap with them, on the figure cases. */
  figures_items_read?: number;
  figures_items_written?: number;
  index_heap_mb?: number;
  target?: string;
  met?: boolean;
  detail?: string;
}

/**
 * The deletions a refresh causes, charged to that refresh: the family versions it replaced, deleted
 * as a later import deletes them once their retention has passed (VersionWriter.deleteVersion):
 * the items each owns (index segments, manifest) and the blocks and source chunks it names that no
 * served version names. A block is deleted once, when the last version naming it goes, so in a
 * steady stream of refreshes this is what each refresh makes someone delete. `client` is the
 * counting client.
 */
async function deleteReplaced(
  client: DynamoDBDocumentClient,
  tableName: string,
  before: SnapshotPointer | undefined,
  after: SnapshotPointer | undefined,
): Promise<void> {
  const writer = new VersionWriter(client, tableName);
  const replaced = Object.entries(before?.families ?? {}).flatMap(([family, state]) =>
    state?.version && after?.families[family]?.version !== state.version ? [state.version] : [],
  );
  const kept = new Set<string>();
  for (const state of Object.values(after?.families ?? {})) {
    if (state?.version) for (const block of (await writer.readManifest(state.version)).blocks) kept.add(block);
  }
  for (const version of new Set(replaced)) await writer.deleteVersion(version, kept);
}

/** Run `work`, measuring wall time and the peak heap above what was in use before. */
async function measured<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; peakMb: number }> {
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 10);
  const started = performance.now();
  try {
    const value = await work();
    return {
      value,
      ms: Math.round(performance.now() - started),
      peakMb: round((Math.max(peak, process.memoryUsage().heapUsed) - base) / 2 ** 20, 1) ?? 0,
    };
  } finally {
    clearInterval(timer);
  }
}

const HOUR = 3_600_000;
const MINUTE = 60_000;

/** Hourly observations of one offer over [from, to). */
function hourly(from: number, to: number, earn: boolean) {
  const points: { timestamp: string; apy: string; tvl?: string | null }[] = [];
  for (let t = from, i = 0; t < to; t += HOUR, i++) {
    const apy = (3 + (i % 97) / 100).toFixed(2);
    points.push(
      earn
        ? { timestamp: new Date(t).toISOString(), apy, tvl: String(1_000_000 + i) }
        : { timestamp: new Date(t).toISOString(), apy },
    );
  }
  return points;
}

type EarnOffer = GeneratedDataset['earn_offers'][number];

/** A decimal moved by a random ±30 %, with as many decimals as it had (2 to 8), as the generator writes them. */
const moved = (value: string, rng: Rng) =>
  decimal(Number(value) * rng.uniform(0.7, 1.3), Math.min(8, Math.max(2, value.split('.')[1]?.length ?? 0)));

/** Every `every`-th offer (every offer at 1) changed as a feed's refresh changes it at `at`; the others untouched. */
export function refreshed(offers: EarnOffer[], every: number, at: string, stream: string): EarnOffer[] {
  const rng = createRng(2024, stream);
  return offers.map((o, i) =>
    i % every === 0
      ? {
          ...o,
          apy: moved(o.apy, rng),
          estimated_apy: moved(o.estimated_apy, rng),
          available_updated_at: at,
          updated_at: at,
        }
      : o,
  );
}

export interface ImportCaseOptions {
  /** CI's quick run: without the figure cases and the sample cases beside (e) (the history they store is most of their time). */
  quick: boolean;
  /** Only (a) to (d), the refreshes (the scale run: tools/bench/scale.ts). */
  refreshesOnly?: boolean;
}

export async function measureImports(
  dataset: GeneratedDataset,
  endpoint: string,
  { quick, refreshesOnly = false }: ImportCaseOptions,
  log: (line: string) => void,
): Promise<ImportCase[]> {
  const cases: ImportCase[] = [];
  const table = async (name: string) => {
    await ensureTable(endpoint, name);
    return name;
  };
  const { client, counts, reset } = countingClient(endpoint);
  // Pointer reads and the tables' preparation, counted nowhere.
  const raw = createDocumentClient({ endpoint, maxAttempts: 10, requestTimeoutMs: 30_000 });
  const run = async (
    id: CaseId | undefined,
    name: string,
    tableName: string,
    file: unknown,
    options: Pick<ImportOptions, 'now' | 'recordHistory'> = { now: systemClock },
  ): Promise<{ result: ImportResult; entry: ImportCase }> => {
    const before = await readPointer(raw, tableName);
    reset();
    const {
      value: result,
      ms,
      peakMb,
    } = await measured(async () => {
      const imported = await importDataset(file, { client, tableName, ...options });
      await deleteReplaced(client, tableName, before, await readPointer(raw, tableName));
      return imported;
    });
    const entry: ImportCase = {
      ...(id ? { id } : {}),
      name,
      items_written: counts.itemsWritten,
      items_deleted: counts.itemsDeleted,
      write_units: counts.writeUnits,
      delete_units: counts.deleteUnits,
      total_units: counts.writeUnits + counts.deleteUnits,
      items_read: counts.itemsRead,
      read_units: round(counts.readUnits, 1) ?? 0,
      version_units: counts.versionUnits,
      pointer_units: counts.pointerUnits,
      units_by_kind: { ...counts.byKind },
      ms,
      peak_heap_mb: peakMb,
    };
    const { history, recorded } = result;
    if (history.observations || recorded.observations || counts.historyWriteUnits)
      Object.assign(entry, {
        observations: history.observations + recorded.observations,
        history_items_written: history.itemsWritten + recorded.itemsWritten,
        history_write_units: counts.historyWriteUnits,
      });
    cases.push(entry);
    log(
      `  imports: ${name}: ${entry.items_written} items written, ${entry.items_deleted} deleted, ${entry.write_units} + ${entry.delete_units} = ${entry.total_units} write units, ` +
        `${entry.items_read} items read (${entry.read_units} RU), ${(ms / 1000).toFixed(1)} s; by kind ${JSON.stringify(entry.units_by_kind)}`,
    );
    return { result, entry };
  };

  try {
    // (a) a full import into an empty table.
    const main = await table('imports-main');
    await run('a', 'a. full import into an empty table', main, dataset);

    // (b) every earn document changed; (c) every 20th of them again, 5 minutes later.
    const at = Math.floor(systemClock().getTime() / MINUTE) * MINUTE;
    const all = refreshed(dataset.earn_offers, 1, new Date(at).toISOString(), 'bench-refresh-all');
    await run('b', 'b. earn refresh, every document changed', main, { earn_offers: all });
    const some = refreshed(all, 20, new Date(at + 5 * MINUTE).toISOString(), 'bench-refresh-5pc');
    await run('c', 'c. earn refresh, 5% of documents changed', main, { earn_offers: some });

    // (d) re-importing what is served (the full file with the refreshed earn offers).
    const { entry: again } = await run('d', 'd. re-import of what is served', main, { ...dataset, earn_offers: some });
    // Nothing but the refresh time beside the pointer (`refreshed_at`, CONTRACT §11): one small item.
    Object.assign(again, {
      target: 'only the refresh time (1 write unit)',
      met: again.total_units <= 1 && again.items_written === 1,
    });
    if (refreshesOnly) return cases;

    // (e) one hour of observations for every earn and borrow offer, on a table with no history
    // stored; then for a sample of offers with no history stored and with three years stored
    // (the embedded DynamoDB cannot hold three years of every offer in a bench run; the cost per
    // observation is the point).
    const { earn_history: _earn, borrow_history: _borrow, ...catalog } = dataset;
    const hourStart = Math.floor(systemClock().getTime() / HOUR) * HOUR;
    const appendFor = (earnIds: number[], borrowIds: number[]) => ({
      earn_history: earnIds.map((offer_id) => ({ offer_id, points: hourly(hourStart, hourStart + HOUR, true) })),
      borrow_history: borrowIds.map((offer_id) => ({ offer_id, points: hourly(hourStart, hourStart + HOUR, false) })),
    });
    const prepared = async (name: string) => {
      const tableName = await table(name);
      await importDataset(catalog, { client: raw, tableName, now: systemClock });
      return tableName;
    };
    const every = await run(
      'e',
      'e. history: 1 h appended for every earn and borrow offer',
      await prepared('imports-append-every'),
      appendFor(
        dataset.earn_offers.map((o) => o.id),
        dataset.borrow_offers.map((o) => o.id),
      ),
    );
    const perObservation = (every.entry.history_items_written ?? 0) / (every.entry.observations ?? 1);
    const hour = [hourStart];
    const journal = encodeJournal({
      seq: 1,
      series: [
        ...dataset.earn_offers.map((o) => ({ family: 'earn', id: o.id, times: hour })),
        ...dataset.borrow_offers.map((o) => ({ family: 'borrow', id: o.id, times: hour })),
      ],
    });
    Object.assign(every.entry, {
      journal_units: journal.reduce((n, item) => n + unitsOf(itemSize(item)), 0),
      target: '≤ 4 item writes per observation',
      met: perObservation <= 4,
      detail: `${round(perObservation, 2)} per observation`,
    });

    // Recorded from imports: every earn and borrow offer as served, first import of its hour (the
    // catalog was imported without recording), then every earn offer refreshed in the same hour.
    const recordedTable = await prepared('imports-recorded');
    const offers = { earn_offers: catalog.earn_offers, borrow_offers: catalog.borrow_offers };
    const firstOfHour = await run(
      undefined,
      'recorded: every earn and borrow offer, first import of the hour',
      recordedTable,
      offers,
      { recordHistory: true, now: () => new Date(hourStart + MINUTE) },
    );
    const journalUnits = counts.journalWriteUnits;
    const recordedUnits = (firstOfHour.entry.history_write_units ?? 0) - journalUnits;
    const recordedCount = firstOfHour.result.recorded.observations;
    Object.assign(firstOfHour.entry, {
      journal_units: journalUnits,
      target: '≤ 4 write units per offer recorded (beside the journal, as (e))',
      met: recordedCount > 0 && recordedUnits <= 4 * recordedCount,
      detail: `${round(recordedUnits / Math.max(1, recordedCount), 2)} per offer, ${recordedCount} offers; journal ${journalUnits}`,
    });
    const secondInHour = await run(
      undefined,
      'recorded: every earn offer refreshed, second import in the same hour',
      recordedTable,
      {
        earn_offers: refreshed(
          catalog.earn_offers,
          1,
          new Date(hourStart + 6 * MINUTE).toISOString(),
          'bench-recorded-second',
        ),
      },
      { recordHistory: true, now: () => new Date(hourStart + 6 * MINUTE) },
    );
    Object.assign(secondInHour.entry, {
      observations: secondInHour.result.recorded.observations,
      history_write_units: counts.historyWriteUnits,
      target: '0 history write units',
      met: counts.historyWriteUnits === 0 && secondInHour.result.published.includes('earn'),
    });

    // The figure cases and the sample cases (the same writes whatever history is stored) are
    // reported, not checked: the quick run, CI's guard, leaves them to the full run (storing 31 days
    // of history for every offer, and three years for the samples, is most of their time).
    if (quick) return cases;
    await figureCases(catalog, table, raw, run, log);
    const sample = 100;
    const earnIds = dataset.earn_offers.slice(0, sample).map((o) => o.id);
    const borrowIds = dataset.borrow_offers.slice(0, sample).map((o) => o.id);
    const withoutHistory = await run(
      undefined,
      `history: 1 h for ${2 * sample} offers, no history stored`,
      await prepared('imports-append-sample-empty'),
      appendFor(earnIds, borrowIds),
    );

    const stored = await prepared('imports-append-sample-3y');
    const threeYears = 3 * 365 * 24 * HOUR;
    log(`  imports: storing three years of hourly history for ${2 * sample} offers`);
    for (let i = 0; i < sample; i += 5) {
      const slice = (ids: number[], earnFamily: boolean) =>
        ids
          .slice(i, i + 5)
          .map((offer_id) => ({ offer_id, points: hourly(hourStart - threeYears, hourStart, earnFamily) }));
      await importDataset(
        { earn_history: slice(earnIds, true), borrow_history: slice(borrowIds, false) },
        { client: raw, tableName: stored, now: systemClock },
      );
    }
    const withHistory = await run(
      undefined,
      `history: 1 h for ${2 * sample} offers, three years stored`,
      stored,
      appendFor(earnIds, borrowIds),
    );
    // The history items: the figure versions beside them (their index, delta and manifest) are the
    // same in both cases, whatever history is stored.
    const historyItems = (c: ImportCase) => c.history_items_written ?? 0;
    const same = historyItems(withHistory.entry) === historyItems(withoutHistory.entry);
    Object.assign(withHistory.entry, {
      target: 'the same history writes as with no history stored, ≤ 4 history items per observation',
      met: same && historyItems(withHistory.entry) / (withHistory.entry.observations ?? 1) <= 4,
      detail: `${historyItems(withHistory.entry)} vs ${historyItems(withoutHistory.entry)} history items (${withHistory.entry.items_written} vs ${withoutHistory.entry.items_written} items in all)`,
    });
    return cases;
  } finally {
    client.destroy();
    raw.destroy();
  }
}

/** Read and write units an earn and borrow offer may cost a refresh that recomputes the figures: 30,000 at BENCH's 25,000 (issue 30). */
export const FIGURE_UNITS_PER_OFFER = 1.2;
const DAY = 24 * HOUR;

type Catalog = Omit<GeneratedDataset, 'earn_history' | 'borrow_history'>;
type Run = (
  id: CaseId | undefined,
  name: string,
  tableName: string,
  file: unknown,
  options?: Pick<ImportOptions, 'now' | 'recordHistory'>,
) => Promise<{ result: ImportResult; entry: ImportCase }>;

/**
 * What the APY figures cost (CONTRACT §13, docs/adr/0015-apy-figures.md), on a table where every
 * earn and borrow offer has 31 days of history, one observation a day (stored by an uncounted
 * import of the catalog with it): an earn refresh where every document changed and the figures
 * were recomputed (≤ 1.2 read and write units an earn and borrow offer: 30,000 at BENCH), the same
 * offers again inside the hour (no figure can have changed: the refresh time only), and the heap of
 * every family's index in one instance with every offer's figures.
 */
async function figureCases(
  catalog: Catalog,
  table: (name: string) => Promise<string>,
  raw: DynamoDBDocumentClient,
  run: Run,
  log: (line: string) => void,
): Promise<void> {
  const tableName = await table('imports-figures');
  const t = Math.floor(systemClock().getTime() / HOUR) * HOUR + MINUTE;
  const daily = (earn: boolean) => (o: { id: number; apy?: string; net_borrow_apy?: string | null }) => ({
    offer_id: o.id,
    points: Array.from({ length: 31 }, (_, k) => {
      const at = new Date(t - (31 - k) * DAY).toISOString();
      const apy = (2 + ((o.id * 7 + k * 13) % 500) / 100).toFixed(2);
      return earn ? { timestamp: at, apy, tvl: null } : { timestamp: at, apy };
    }),
  });
  const started = performance.now();
  await importDataset(
    {
      ...catalog,
      earn_history: catalog.earn_offers.map(daily(true)),
      borrow_history: catalog.borrow_offers.map(daily(false)),
    },
    { client: raw, tableName, recordHistory: true, now: () => new Date(t) },
  );
  const offers = catalog.earn_offers.length + catalog.borrow_offers.length;
  log(
    `  imports: ${offers} offers with 31 days of daily history stored (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  const limit = Math.round(FIGURE_UNITS_PER_OFFER * offers);
  const refreshedAt = (minutes: number) => new Date(t + minutes * MINUTE);
  const all = refreshed(catalog.earn_offers, 1, refreshedAt(5).toISOString(), 'bench-figures');
  const recomputed = await run(
    undefined,
    'figures: earn refresh, every document changed, figures recomputed (31 days of history for every earn and borrow offer)',
    tableName,
    { earn_offers: all },
    { recordHistory: true, now: () => refreshedAt(5) },
  );
  const heap = await measureIndexLoads(raw, tableName, { begin: () => {}, off: () => {} }, 1);
  Object.assign(recomputed.entry, {
    figures_items_read: recomputed.result.figures.itemsRead,
    figures_items_written: recomputed.result.figures.itemsWritten,
    index_heap_mb: heap.heap_mb,
    target: `≤ ${limit} write units and ≤ ${limit} read units (${FIGURE_UNITS_PER_OFFER} an earn and borrow offer: 30,000 at BENCH)`,
    met: recomputed.entry.total_units <= limit && recomputed.entry.read_units <= limit,
    detail: `${recomputed.result.figures.itemsRead} figure chunks read, ${recomputed.result.figures.itemsWritten} written; every family's index in one instance with the figures: ${heap.heap_mb} MB`,
  });
  const again = await run(
    undefined,
    'figures: the same earn offers again inside the hour (no figure can have changed)',
    tableName,
    { earn_offers: all },
    { recordHistory: true, now: () => refreshedAt(10) },
  );
  Object.assign(again.entry, {
    figures_items_written: again.result.figures.itemsWritten,
    target: 'no figure written: the refresh time only (1 write unit)',
    met: again.entry.total_units <= 1 && again.result.figures.itemsWritten === 0,
  });
}

export function importsTable(cases: ImportCase[]): string {
  const cell = (value: unknown) => (value === undefined || value === null ? '–' : String(value));
  const row = (cells: unknown[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [
    row([
      'case',
      'items written',
      'items deleted',
      'write units (puts)',
      'delete units',
      'total write units',
      'items read',
      'read units',
      'time s',
      'peak heap MB',
      'observations',
      'history write units',
      'target',
    ]),
    row(Array(13).fill('---')),
    ...cases.map((c) =>
      row([
        c.name,
        c.items_written,
        c.items_deleted,
        c.write_units,
        c.delete_units,
        c.total_units,
        c.items_read,
        c.read_units,
        (c.ms / 1000).toFixed(1),
        c.peak_heap_mb,
        c.observations,
        c.history_write_units,
        c.target ? `${c.target}: ${c.met ? 'met' : 'NOT met'}${c.detail ? ` (${c.detail})` : ''}` : undefined,
      ]),
    ),
  ].join('\n');
}

/** The committed figures of the design before issue 21, against which the quick and full benches check the refresh targets. */
const BASELINE_FILE = resolve(__dirname, '../../bench/baseline-writes.json');

export type BaselineDataset = 'quick' | 'bench';

interface BaselineCase {
  name: string;
  items: number;
  items_deleted: number;
  write_units: number;
  delete_units: number;
  total: number;
  items_read: number;
  read_units: number;
}

interface Baseline {
  header: { commit: string; shared_last_changed: string; date: string; method: string };
  datasets: Partial<
    Record<
      BaselineDataset,
      { measured_at: string; commit: string; command: string; cases: Partial<Record<CaseId, BaselineCase>> }
    >
  >;
}

export function readBaseline(dataset: BaselineDataset): Partial<Record<CaseId, BaselineCase>> | undefined {
  try {
    return (JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline).datasets[dataset]?.cases;
  } catch {
    return undefined;
  }
}

/**
 * `--write-baseline`: record these figures as the baseline of `dataset` in bench/baseline-writes.json.
 * Only for the design before issue 21 (the header names its commit), and only from committed code.
 */
export function writeBaseline(
  cases: ImportCase[],
  dataset: BaselineDataset,
  git: { commit: string; sharedCommit: string; dirty: boolean },
  command: string,
): void {
  if (git.dirty)
    throw new Error('--write-baseline: shared/ or scripts/ has uncommitted changes; a baseline names a commit');
  let baseline: Baseline;
  try {
    baseline = JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline;
  } catch {
    baseline = { header: { commit: '', shared_last_changed: '', date: '', method: '' }, datasets: {} };
  }
  baseline.header = {
    commit: git.commit,
    shared_last_changed: git.sharedCommit,
    date: systemClock().toISOString().slice(0, 10),
    method:
      'The import cases of issue 21 (tools/bench/imports.ts) through the real importDataset of this commit, on the embedded DynamoDB, with a client ' +
      "that charges each write by DynamoDB's item-size rules: the table 1 write unit per KB " +
      '(rounded up) of the larger of the item before and after, each GSI entry the same for the projected item (ALL) plus 100 bytes, deletions by the item deleted ' +
      "with its index entries (tools/bench/write-units.ts). A refresh's deletions are counted in it: the versions it replaced, deleted by VersionWriter.deleteVersion " +
      'right after it (deleteReplaced). total = write_units + delete_units; items = items put or updated; items_read = items the reads returned; ' +
      'read_units = the read units the embedded DynamoDB reports for those reads (ReturnConsumedCapacity).',
  };
  baseline.datasets[dataset] = {
    measured_at: systemClock().toISOString(),
    commit: git.commit,
    command,
    cases: Object.fromEntries(
      cases.flatMap((c) =>
        c.id
          ? [
              [
                c.id,
                {
                  name: c.name,
                  items: c.items_written,
                  items_deleted: c.items_deleted,
                  write_units: c.write_units,
                  delete_units: c.delete_units,
                  total: c.total_units,
                  items_read: c.items_read,
                  read_units: c.read_units,
                },
              ],
            ]
          : [],
      ),
    ),
  };
  writeFileSync(BASELINE_FILE, `${JSON.stringify(baseline, null, 2)}\n`);
}
