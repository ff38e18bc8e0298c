/**
 * The import (docs/adr/0006-live-data.md). A data file is validated as a whole; then each family
 * it carries is published as a new immutable version only if its content changed (offers also
 * when a platform reference they render changed), and its history observations are appended under
 * the import's sequence number, beside the observations it records of the offers it publishes
 * (one per offer and UTC hour: docs/adr/0012-recorded-history.md). Publishing is one write of the
 * pointer item, which names the served version of every family, the last sequence number whose
 * history is served and the hour each history family was last recorded.
 * Replaced versions are deleted only once no reader's cached pointer can still name them. An
 * import of what is already served writes nothing. One import runs at a time (a lease on the
 * pointer); a failed or interrupted import leaves the served data and history untouched, and the
 * next import deletes what it had written (its versions from the lease, its history from its journal).
 *
 * `importDataset` is a pipeline of named stages: validate (validate.ts), plan (plan.ts), take the
 * lease (lease-holder.ts), clean up what interrupted imports left, write history, compute the
 * figures and write the changed versions (their index deltas: index-plan.ts), clean up replaced
 * versions past their retention, publish; then settle the history it wrote into ended spans.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type FigureCounts, FigureStore } from '../data/figure-store';
import { HistoryWriter } from '../data/history-writer';
import { LeaseStore } from '../data/import-lease';
import type { Manifest } from '../data/items/manifest';
import {
  DATASET_FAMILY_OF,
  HISTORY_DATASET_FAMILY,
  HISTORY_FAMILIES,
  type HistoryFamily,
  VERSIONED_FAMILIES,
  type VersionedFamily,
} from '../data/keys';
import { PointerWriter, type RetiredVersion, type SnapshotPointer } from '../data/pointer-writer';
import { withSearchChunks } from '../data/search-index';
import { type FamilyVersions, versionsOf } from '../data/snapshot-store';
import { type VersionFigures, VersionWriter } from '../data/version-writer';
import { observations } from '../domain/history-points';
import { OFFER_FAMILY } from '../model/offer-families';
import type { Clock } from '../platform/clock';
import { MAX_SNAPSHOT_CACHE_MS } from '../platform/config';
import { logger } from '../platform/logger';
import { type FigureLine, updateFigures } from './apy-figures';
import { type DataFileInput, type Dataset, type DatasetFamily, parseDataset } from './dataset';
import {
  type AppendResult,
  appendHistory,
  type HistoryAppend,
  historyWouldChange,
  hourOf,
  journalOf,
  recordingOf,
  recordObservations,
  revertHistory,
  settleHistory,
} from './history-plan';
import { replacedDelta } from './index-plan';
import { LeaseHolder } from './lease-holder';
import { type FamilyChange, hasFigures, type PlanContext, planChanges } from './plan';
import type { Projection } from './project';
import { validateAcrossRecords } from './validate';

export type { SnapshotPointer } from '../data/pointer-writer';

/** How long a replaced version stays readable (a list pinned to it, changes since it: docs/api.md). */
const RETAIN_MS = 60 * 60_000;
/**
 * Beyond that, the readers' pointer cache and a margin before it is deleted.
 * @internal (exported for its tests)
 */
export const RETIRE_MARGIN_MS = 60_000;
/**
 * How long after it is replaced a version is deleted, for readers that trust a pointer for
 * `snapshotCacheMs`: a reader may name it that long after, and a list pinned then stays readable
 * RETAIN_MS more.
 * @internal (exported for its tests)
 */
export const retireAfter = (snapshotCacheMs: number): number => RETAIN_MS + snapshotCacheMs + RETIRE_MARGIN_MS;
/**
 * How long an import holds the lease before another may take it over, by default: the ingest
 * function's default timeout (5 minutes), so a crashed import holds off others that long at most.
 * The ingest function passes its own timeout when it is longer (ImportOptions.leaseMs); a longer
 * import renews it as it goes.
 */
export const LEASE_MS = 5 * 60_000;
export interface ImportOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
  /** The import's clock: its refresh time, recording, retention, figures and lease (CONTRACT §9: time is an input). */
  now: Clock;
  /**
   * How long the readers trust a cached pointer (the stage's SNAPSHOT_CACHE_MS); default the longest
   * a stage may set, MAX_SNAPSHOT_CACHE_MS, so that an import that does not know it keeps replaced
   * versions long enough for any stage.
   */
  snapshotCacheMs?: number;
  /** Replaced versions are deleted this long after (default: retireAfter(snapshotCacheMs)); tests shorten it. */
  retireAfterMs?: number;
  /**
   * How long the lease lasts (default LEASE_MS): at least as long as the import may run, so that an
   * import whose lease was taken over is no longer running (the ingest function passes its timeout).
   */
  leaseMs?: number;
  /**
   * Record each published earn and borrow offer's value at the import's refresh time, once per
   * offer and UTC hour (CONTRACT §12). The stage's `recordHistory`: the ingest function,
   * `npm run import` and the local stack pass it (on by default); off when not given.
   */
  recordHistory?: boolean;
}

export interface ImportResult {
  /** Nothing was written: the file's families are served as they are and its history is stored. */
  unchanged: boolean;
  /** The served version of each family after the import. */
  versions: FamilyVersions;
  /** The families published as a new version. */
  published: VersionedFamily[];
  /** Items written: family versions (manifests, new document blocks, index segments, sources), history, the pointer (not the refresh time beside it). */
  itemsWritten: number;
  /**
   * Items of replaced and abandoned versions deleted (their own items and the blocks no kept version
   * names), and history items a failed import had written, reverted.
   */
  itemsDeleted: number;
  /** The file's own history observations. */
  history: AppendResult;
  /** The observations recorded of the published offers (none within an hour already recorded). */
  recorded: AppendResult;
  /** History items of ended spans settled after the publish (among itemsWritten): docs/adr/0029-packed-history.md. */
  settled: number;
  /** Records per family in the file. */
  counts: Partial<Record<DatasetFamily, number>>;
  /** The items the APY figures read (figure chunks, a seed's history) and the figure chunks written. */
  figures: FigureCounts;
}

const historyOf = (dataset: Dataset): HistoryAppend[] =>
  HISTORY_FAMILIES.flatMap((family) => {
    const series = dataset[HISTORY_DATASET_FAMILY[family]];
    return series && series.length > 0 ? [{ family, series }] : [];
  });

/**
 * The families whose published offers an import at `at` records (docs/adr/0012-recorded-history.md):
 * those the file carries, unless the pointer says an import already recorded them in that hour.
 */
const familiesToRecord = (
  dataset: Dataset,
  pointer: SnapshotPointer | undefined,
  at: number,
  recordHistory: boolean | undefined,
): HistoryFamily[] =>
  recordHistory
    ? HISTORY_FAMILIES.filter(
        (family) => dataset[DATASET_FAMILY_OF[family]] !== undefined && pointer?.recorded[family] !== hourOf(at),
      )
    : [];

/** What every stage of one import shares: its file, options, stores, clock, lease and history's answers. */
interface ImportRun {
  dataset: Dataset;
  options: ImportOptions;
  clock: Clock;
  /** The import's refresh time: the time of the observations it records. */
  startedAt: Date;
  pointers: PointerWriter;
  versions: VersionWriter;
  history: HistoryWriter;
  lease: LeaseHolder;
  /** The file's history, per family. */
  appends: HistoryAppend[];
  /** Would the file's history of a family change what a pointer serves? Asked once per family and pointer. */
  historyChanges: (family: HistoryFamily, pointer: SnapshotPointer | undefined) => Promise<boolean>;
  plan: PlanContext;
}

const NO_HISTORY: AppendResult = { observations: 0, itemsRead: 0, itemsWritten: 0 };

/** The stores of an import: every batch write is fenced by the lease once it is held. */
function storesOf(options: ImportOptions) {
  const { client, tableName, concurrency } = options;
  const lease = new LeaseHolder(
    new LeaseStore(client, tableName),
    options.now,
    Math.max(options.leaseMs ?? LEASE_MS, 60_000),
  );
  const fenced = { concurrency, beforeWrite: () => lease.hold() };
  return {
    lease,
    pointers: new PointerWriter(client, tableName),
    versions: new VersionWriter(client, tableName, { ...fenced, onProgress: options.onProgress }),
    history: new HistoryWriter(client, tableName, fenced),
  };
}

function startRun(dataset: Dataset, options: ImportOptions, stores: ReturnType<typeof storesOf>): ImportRun {
  const startedAt = options.now();
  const appends = historyOf(dataset);
  const probes = new Map<string, Promise<boolean>>();
  const historyChanges = (family: HistoryFamily, pointer: SnapshotPointer | undefined) => {
    const own = appends.filter((a) => a.family === family);
    const published = pointer?.historySeq ?? 0;
    const key = `${family}:${published}`;
    if (own.length === 0) return Promise.resolve(false);
    if (!probes.has(key)) probes.set(key, historyWouldChange(stores.history, own, startedAt.getTime(), published));
    return probes.get(key)!;
  };
  const writesHistory = async (family: HistoryFamily, pointer: SnapshotPointer | undefined) =>
    familiesToRecord(dataset, pointer, startedAt.getTime(), options.recordHistory).includes(family) ||
    (await historyChanges(family, pointer));
  const plan = { versions: stores.versions, now: startedAt.toISOString(), writesHistory };
  return { dataset, options, clock: options.now, startedAt, ...stores, appends, historyChanges, plan };
}

export async function importDataset(input: DataFileInput, options: ImportOptions): Promise<ImportResult> {
  // Validate: every record by its schema, then the rules across records; nothing is written before.
  const dataset = parseDataset(input);
  const stores = storesOf(options);
  const seen = await stores.pointers.read();
  await validateAcrossRecords(dataset, seen, stores.versions);
  const run = startRun(dataset, options, stores);
  // Plan, first without the lease: an import of what is served writes nothing at all.
  const planned = await planChanges(dataset, seen, run.plan);
  if (await writesNothing(run, planned, seen)) return unchanged(run, seen);
  const before = await run.lease.take(
    planned.map((c) => c.state.version),
    run.startedAt.getTime(),
  );
  try {
    const changes = await planUnderLease(run, seen, before, planned);
    const kept = await keptVersions(run, before, changes);
    // Clean up what interrupted imports left, then write history, the figures and the versions.
    const abandoned = await deleteAbandoned(run, before, kept);
    const history = await writeHistory(run, before);
    const written = await writeVersions(run, before, changes, kept, history);
    // Clean up versions replaced longer ago than their retention, the lease held first, so an
    // import that stalled past it and was taken over deletes nothing.
    await run.lease.hold();
    let retiredDeleted = 0;
    for (const r of before?.retired ?? [])
      if (kept.due(r)) retiredDeleted += await run.versions.deleteVersion(r.version, written.kept);
    const result = await publish(run, before, changes, kept.retained, history);
    const settled = await settle(run, history);
    return {
      ...result,
      settled,
      itemsWritten: history.itemsWritten + written.itemsWritten + 1 + settled,
      itemsDeleted: abandoned + history.itemsDeleted + retiredDeleted,
      figures: written.figures,
    };
  } catch (error) {
    await run.lease.release();
    throw error;
  }
}

/** Nothing to write: no family changes, none is recorded this hour, and the file's history is stored as it is. */
async function writesNothing(
  run: ImportRun,
  planned: FamilyChange[],
  seen: SnapshotPointer | undefined,
): Promise<boolean> {
  if (planned.length > 0) return false;
  if (familiesToRecord(run.dataset, seen, run.startedAt.getTime(), run.options.recordHistory).length > 0) return false;
  return !(await anyOf(HISTORY_FAMILIES, (family) => run.historyChanges(family, seen)));
}

/** The dataset families whose refresh time moves: those the file carries, and those whose offers it renders again. */
const carried = (dataset: Dataset, changes: FamilyChange[]) => [
  ...new Set(
    [
      ...VERSIONED_FAMILIES.filter((f) => dataset[DATASET_FAMILY_OF[f]] !== undefined),
      ...changes.map((c) => c.family),
    ].map((f) => DATASET_FAMILY_OF[f]),
  ),
];

/** An import that writes nothing but the refresh time of the families it carries. */
async function unchanged(run: ImportRun, seen: SnapshotPointer | undefined): Promise<ImportResult> {
  await run.pointers.markRefreshed(carried(run.dataset, []), run.startedAt.toISOString());
  return {
    unchanged: true,
    versions: versionsOf(seen?.families),
    published: [],
    itemsWritten: 0,
    itemsDeleted: 0,
    history: NO_HISTORY,
    recorded: NO_HISTORY,
    settled: 0,
    counts: countsOf(run.dataset),
    figures: { itemsRead: 0, itemsWritten: 0 },
  };
}

const countsOf = (dataset: Dataset): Partial<Record<DatasetFamily, number>> =>
  Object.fromEntries(
    Object.entries(dataset).flatMap(([family, records]) => (Array.isArray(records) ? [[family, records.length]] : [])),
  );

/**
 * Under the lease: plan again only if another import published since the pointer was read (a
 * family version names its hash and references, so equal versions mean an equal plan); the
 * versions the new plan adds are recorded on the lease before they are written.
 */
async function planUnderLease(
  run: ImportRun,
  seen: SnapshotPointer | undefined,
  before: SnapshotPointer | undefined,
  planned: FamilyChange[],
): Promise<FamilyChange[]> {
  const servedNow = versionsOf(before?.families);
  const servedSeen = versionsOf(seen?.families);
  const unchangedSince = VERSIONED_FAMILIES.every((f) => servedNow[f] === servedSeen[f]);
  const changes = unchangedSince ? planned : await planChanges(run.dataset, before, run.plan);
  const leased = new Set(planned.map((c) => c.state.version));
  await run.lease.recordWriting([...new Set(changes.map((c) => c.state.version))].filter((v) => !leased.has(v)));
  return changes;
}

/** The versions that stay (served, retained, new), their manifests, and the blocks they store. */
interface KeptVersions {
  served: Set<string>;
  next: Set<string>;
  /** Replaced versions past their retention (deleted by this import). */
  due: (r: RetiredVersion) => boolean;
  retained: RetiredVersion[];
  manifests: Map<string, Manifest>;
  storedBlocks: Set<string>;
}

async function keptVersions(
  run: ImportRun,
  before: SnapshotPointer | undefined,
  changes: FamilyChange[],
): Promise<KeptVersions> {
  const retireAfterMs = run.options.retireAfterMs ?? retireAfter(run.options.snapshotCacheMs ?? MAX_SNAPSHOT_CACHE_MS);
  const next = new Set(changes.map((c) => c.state.version));
  const served = new Set(Object.values(before?.families ?? {}).flatMap((s) => (s?.version ? [s.version] : [])));
  const now = run.clock();
  const due = (r: RetiredVersion) => !next.has(r.version) && Date.parse(r.at) + retireAfterMs <= now.getTime();
  const retained = (before?.retired ?? []).filter((r) => !due(r) && !next.has(r.version));
  // The blocks that stay stored: those of every served and retained version.
  const storedBlocks = new Set<string>();
  const manifests = new Map<string, Manifest>();
  for (const version of new Set([...served, ...retained.map((r) => r.version)])) {
    const manifest = await run.versions.readManifest(version);
    manifests.set(version, manifest);
    for (const block of manifest.blocks) storedBlocks.add(block);
  }
  return { served, next, due, retained, manifests, storedBlocks };
}

/**
 * Versions that interrupted imports wrote and never published: no reader can name them. An
 * interrupted import may have been writing a version that is also retained (its content served
 * again): readers may still name that one, and it is deleted only once it is due. Their blocks
 * that this import names again it writes again (it writes every block no kept version names).
 */
async function deleteAbandoned(run: ImportRun, before: SnapshotPointer | undefined, kept: KeptVersions) {
  const retained = new Set(kept.retained.map((r) => r.version));
  let deleted = 0;
  for (const version of new Set(before?.lease?.writing ?? [])) {
    if (!kept.served.has(version) && !kept.next.has(version) && !retained.has(version))
      deleted += await run.versions.deleteVersion(version, kept.storedBlocks);
  }
  return deleted;
}

/** What an import's history stage did, and what the publish and the figures need of it. */
interface WrittenHistory {
  published: number;
  seq: number;
  journaled: HistoryAppend[];
  recordedFamilies: HistoryFamily[];
  appended: AppendResult;
  recorded: AppendResult;
  /** Per family, the observations the figure state merges: the file's, then those recorded. */
  observed: Map<HistoryFamily, FigureLine[]>;
  itemsWritten: number;
  itemsDeleted: number;
}

/**
 * History an interrupted import wrote under a number never published is reverted from its
 * journal (this import reuses that number); then this import's history (the file's, and the
 * observations it records of its offers) is journaled and appended under its sequence number.
 */
async function writeHistory(run: ImportRun, before: SnapshotPointer | undefined): Promise<WrittenHistory> {
  const { history, dataset, appends, startedAt } = run;
  const published = before?.historySeq ?? 0;
  const sequence = { published, seq: published + 1 };
  let itemsDeleted = 0;
  let itemsWritten = 0;
  let journal = await history.readJournalHead();
  if (journal && journal.seq > published) {
    itemsDeleted += await revertHistory(history, await history.readJournal(journal));
    await history.deleteJournal(journal);
    journal = undefined;
  }
  // Recorded under the lease, against the pointer as it is then: another import may have recorded this hour.
  const recordedFamilies = familiesToRecord(dataset, before, startedAt.getTime(), run.options.recordHistory);
  const recordings = recordedFamilies.map((family) =>
    recordingOf(family, dataset[DATASET_FAMILY_OF[family]]!, appends, startedAt.getTime()),
  );
  const journaled = [...appends, ...recordings].filter((a) => a.series.length > 0);
  let appended = NO_HISTORY;
  let recorded = NO_HISTORY;
  const observed = new Map<HistoryFamily, FigureLine[]>(HISTORY_FAMILIES.map((f) => [f, []]));
  for (const { family, series } of appends)
    for (const s of series)
      for (const [ms, apy] of observations(s.points)) observed.get(family)!.push([s.offer_id, ms, apy]);
  if (journaled.length > 0) {
    // The journal replaces the last one (published: its parts are deleted once the new head is written).
    // It names every offer a recording may write; those it skips (observed this hour) hold nothing of it.
    itemsWritten += await history.writeJournal(journalOf(journaled, sequence.seq), journal);
    appended = await appendHistory(history, appends, startedAt.getTime(), sequence);
    recorded = await recordObservations(history, recordings, startedAt.getTime(), sequence, (family, id, [ms, apy]) =>
      observed.get(family)!.push([id, ms, apy]),
    );
    itemsWritten += appended.itemsWritten + recorded.itemsWritten;
  }
  return {
    published,
    seq: sequence.seq,
    journaled,
    recordedFamilies,
    appended,
    recorded,
    observed,
    itemsWritten,
    itemsDeleted,
  };
}

/** The changed versions' figures (earn and borrow) and projections. */
interface Projected {
  figureStore: FigureStore;
  figureStates: Map<string, VersionFigures>;
  projections: Map<string, Projection>;
}

/**
 * The figures of earn and borrow at the refresh time, from the served version's figure state and
 * what this import wrote (apy-figures.ts); then every version's projection.
 */
async function project(
  run: ImportRun,
  before: SnapshotPointer | undefined,
  changes: FamilyChange[],
  manifests: ReadonlyMap<string, Manifest>,
  history: WrittenHistory,
): Promise<Projected> {
  const figureStore = new FigureStore(run.options.client, run.options.tableName, {
    concurrency: run.options.concurrency,
  });
  const figureStates = new Map<string, VersionFigures>();
  const projections = new Map<string, Projection>();
  for (const change of changes) {
    if (!hasFigures(change.family)) {
      projections.set(change.state.version, withSearchChunks(change.state.version, change.project()));
      continue;
    }
    const apy = OFFER_FAMILY[change.family].fields.apy;
    const servedVersion = before?.families[DATASET_FAMILY_OF[change.family]];
    const update = await updateFigures({
      store: figureStore,
      family: change.family,
      t: run.startedAt.getTime(),
      // None to seed from stored history when the family has no served version yet: what history
      // it has, this import writes (history names offers the file or a served version has).
      previous:
        servedVersion?.version === undefined
          ? { hours: {}, days: {} }
          : servedVersion.figuresAt === undefined
            ? undefined
            : (manifests.get(servedVersion.version)?.figures ?? { hours: {}, days: {} }),
      published: history.published,
      observations: history.observed.get(change.family)!,
      offers: (change.records as Record<string, unknown>[])
        .filter((r) => r.published !== false)
        .map((r) => ({ id: r.id as number, apy: r[apy] as string })),
    });
    figureStates.set(change.state.version, update);
    projections.set(change.state.version, change.project(update.figures));
  }
  return { figureStore, figureStates, projections };
}

/**
 * Write each changed family's version (version-writer.ts): its blocks, chunks and index, with its
 * delta against the version it replaces (index-plan.ts), and the served version's source chunks
 * named again for the records that did not change. Each change's state gets where its index lies.
 * Returns the items written and every name a kept or new version names.
 */
async function writeVersions(
  run: ImportRun,
  before: SnapshotPointer | undefined,
  changes: FamilyChange[],
  kept: KeptVersions,
  history: WrittenHistory,
) {
  const { figureStore, figureStates, projections } = await project(run, before, changes, kept.manifests, history);
  const names = new Set(kept.storedBlocks);
  for (const projection of projections.values()) for (const block of projection.blocks) names.add(block.hash);
  for (const state of figureStates.values()) for (const hash of state.hashes) names.add(hash);
  let itemsWritten = 0;
  for (const change of changes) {
    await run.lease.hold();
    const figures = figureStates.get(change.state.version);
    const name = DATASET_FAMILY_OF[change.family];
    const projection = projections.get(change.state.version)!;
    const servedState = before?.families[name];
    const layout = servedState?.version ? kept.manifests.get(servedState.version)?.source : undefined;
    const sameRecords = change.state.hash !== undefined && change.state.hash === servedState?.hash;
    const delta = await replacedDelta(run.versions, servedState, projection.index);
    const written = await run.versions.write(change.state.version, {
      projection,
      source: { family: name, records: change.records, ...(layout ? { served: { layout, sameRecords } } : {}) },
      stored: kept.storedBlocks,
      ...(figures ? { figures } : {}),
      ...(delta ? { delta } : {}),
    });
    for (const shared of written.shared) names.add(shared);
    // A state copied from the served one names that one's delta: this version's, or none.
    const { delta: _, ...state } = change.state;
    change.state = {
      ...state,
      segments: written.segments,
      indexHash: written.indexHash,
      ...(written.delta ? { delta: written.delta } : {}),
    };
    itemsWritten += written.itemsWritten;
    figureStore.counts.itemsWritten += figures?.chunks.filter((c) => !kept.storedBlocks.has(c.hash)).length ?? 0;
  }
  return { itemsWritten, kept: names, figures: figureStore.counts };
}

/**
 * Publish: one conditional put of the pointer names the new versions, records the replaced ones
 * in `retired` (read as a cold instance reads them: their whole index) and ends the lease; then
 * the import's refresh time.
 */
async function publish(
  run: ImportRun,
  before: SnapshotPointer | undefined,
  changes: FamilyChange[],
  retained: RetiredVersion[],
  history: WrittenHistory,
): Promise<Omit<ImportResult, 'itemsWritten' | 'itemsDeleted' | 'figures' | 'settled'>> {
  const publishedAt = run.clock();
  const retired: RetiredVersion[] = [...retained];
  const families: SnapshotPointer['families'] = { ...before?.families };
  for (const change of changes) {
    const replaced = families[DATASET_FAMILY_OF[change.family]];
    if (replaced?.version && replaced.version !== change.state.version) {
      const { segments, indexHash, publishedAt: at } = replaced;
      const readable = segments ? { segments, publishedAt: at, ...(indexHash ? { indexHash } : {}) } : {};
      retired.push({ family: change.family, version: replaced.version, at: publishedAt.toISOString(), ...readable });
    }
    families[DATASET_FAMILY_OF[change.family]] = change.state;
  }
  for (const { family } of history.journaled)
    families[HISTORY_DATASET_FAMILY[family]] = { publishedAt: run.startedAt.toISOString() };
  const recorded = { ...before?.recorded };
  for (const family of history.recordedFamilies) recorded[family] = hourOf(run.startedAt.getTime());
  await run.pointers.publish(run.lease.owner, {
    families,
    retired,
    historySeq: history.journaled.length > 0 ? history.seq : history.published,
    recorded,
    importedAt: publishedAt.toISOString(),
  });
  await run.pointers.markRefreshed(carried(run.dataset, changes), run.startedAt.toISOString());
  return {
    unchanged: false,
    versions: versionsOf(families),
    published: changes.map((c) => c.family),
    history: history.appended,
    recorded: history.recorded,
    counts: countsOf(run.dataset),
  };
}

/**
 * After the publish, outside the lease (its puts are conditional, not fenced): fold the pending
 * buckets of the items of ended spans this import corrected into their committed ones
 * (history-plan.ts `settleHistory`). A failure
 * changes no answer (they stay pending, served as published, folded by the next import that
 * writes them), so it is a warning, not a failed import.
 */
async function settle(run: ImportRun, history: WrittenHistory): Promise<number> {
  if (history.journaled.length === 0) return 0;
  try {
    return await settleHistory(run.history, history.seq, run.startedAt.getTime());
  } catch (error) {
    logger.warn('history: settling after the publish failed; its items stay pending until rewritten', {
      seq: history.seq,
      error: error instanceof Error ? error.message : String(error),
    });
    return 0;
  }
}

/** Does `test` hold for some item (asked in order, until one does)? */
async function anyOf<T>(items: readonly T[], test: (item: T) => Promise<boolean>): Promise<boolean> {
  for (const item of items) if (await test(item)) return true;
  return false;
}

/** The served state of every family (for the freshness metric and the command line). */
export async function readPointer(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<SnapshotPointer | undefined> {
  return new PointerWriter(client, tableName).read();
}
