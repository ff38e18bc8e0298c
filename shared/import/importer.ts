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
 */
import { createHash, randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IndexData, OfferIndexData } from '../data/family-index';
import { type FigureCounts, FigureStore } from '../data/figure-store';
import { HistoryWriter } from '../data/history-writer';
import { applyDelta, type IndexDeltaData, indexDelta, sameIndex } from '../data/index-delta';
import { BLOCK_LAYOUT } from '../data/items/document-block';
import { decodeIndexDelta, encodeIndexDelta } from '../data/items/index-delta';
import { INDEX_LAYOUT } from '../data/items/index-segment';
import type { Manifest } from '../data/items/manifest';
import {
  CATALOG_FAMILIES,
  DATASET_FAMILY_OF,
  HISTORY_DATASET_FAMILY,
  HISTORY_FAMILIES,
  type HistoryFamily,
  OFFER_FAMILIES,
  PLATFORM_FAMILIES,
  VERSIONED_FAMILIES,
  type VersionedFamily,
} from '../data/keys';
import { withSearchChunks } from '../data/search-index';
import { type FamilyVersions, versionsOf } from '../data/snapshot-store';
import {
  type FamilyState,
  type IndexPlan,
  type RetiredVersion,
  type SnapshotPointer,
  SnapshotWriter,
  type VersionFigures,
} from '../data/snapshot-writer';
import type { ApyStats } from '../domain/apy-stats';
import { observations } from '../domain/history-points';
import { OFFER_FAMILY } from '../model/offer-families';
import type { Clock } from '../platform/clock';
import { MAX_SNAPSHOT_CACHE_MS } from '../platform/config';
import { CorruptDataError, MissingItemError } from '../platform/errors';
import { type FigureLine, updateFigures } from './apy-figures';
import {
  DataFileError,
  type DataFileInput,
  type Dataset,
  type DatasetFamily,
  type PlatformRecord,
  parseDataset,
  RECORD_SCHEMA,
} from './dataset';
import {
  type AppendResult,
  appendHistory,
  denseDayErrors,
  type HistoryAppend,
  historyWouldChange,
  hourOf,
  journalOf,
  recordingOf,
  recordObservations,
  revertHistory,
} from './history-plan';
import {
  type PlatformResolver,
  type Platforms,
  type Projection,
  platformResolver,
  projectCatalog,
  projectOffers,
} from './project';

export type { SnapshotPointer } from '../data/snapshot-writer';

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
/**
 * How long past a lease's end another import waits before taking it over: room for clocks that disagree.
 * @internal (exported for its tests)
 */
export const TAKEOVER_GRACE_MS = 30_000;
/**
 * The layout of family versions, derived from what it versions, never bumped by hand: the blocks'
 * format (items/document-block.ts `BLOCK_LAYOUT`) and the index's layout, from its declared
 * columns and their encodings (items/index-segment.ts `INDEX_LAYOUT`). It is part of every
 * version's identity, hence of its keys (`V#<v>#`): a layout change is a new version, written by
 * the first import after the deploy (docs/deploy.md, ADR 0024).
 */
const LAYOUT = [BLOCK_LAYOUT, INDEX_LAYOUT];

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
  /** Records per family in the file. */
  counts: Partial<Record<DatasetFamily, number>>;
  /** The items the APY figures read (figure chunks, a seed's history) and the figure chunks written. */
  figures: FigureCounts;
}

const hashOf = (...parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 20);

/**
 * A family version's identity: the layout, its records' hash, the references it rendered and, for
 * a version with APY figures, the refresh time they are computed at (docs/adr/0015-apy-figures.md).
 */
const versionOf = (family: VersionedFamily, state: Pick<FamilyState, 'hash' | 'refs' | 'figuresAt'>) =>
  state.figuresAt === undefined
    ? hashOf(LAYOUT, family, state.hash, state.refs ?? null)
    : hashOf(LAYOUT, family, state.hash, state.refs ?? null, state.figuresAt);

/** The families whose versions carry APY figures (earn and borrow: those with history). */
const hasFigures = (family: VersionedFamily): family is HistoryFamily =>
  (HISTORY_FAMILIES as readonly string[]).includes(family);

/**
 * Rules across the records of one family in the file: unique identifiers, former slugs naming one record only.
 * @internal (exported for its tests)
 */
export function crossRecordErrors(dataset: Dataset): string[] {
  const errors: string[] = [];
  /** Each value's last place; every repeated value is an error at its place. */
  const unique = <K>(name: DatasetFamily, values: readonly K[] | undefined, field: string): Map<K, number> => {
    const seen = new Map<K, number>();
    values?.forEach((value, i) => {
      if (seen.has(value)) errors.push(`${name}[${i}].${field}: duplicate of ${name}[${seen.get(value)}]`);
      seen.set(value, i);
    });
    return seen;
  };
  for (const family of CATALOG_FAMILIES) {
    const records = dataset[family];
    if (!records) continue;
    const seen = unique(
      family,
      records.map((record) => record.slug),
      'slug',
    );
    // A former slug naming another record would make that record's address a redirect, even once it is hidden.
    const former = new Map<string, number>();
    records.forEach((record, i) => {
      record.previous_slugs.forEach((slug, j) => {
        if (slug === record.slug) errors.push(`${family}[${i}].previous_slugs[${j}]: equals the record's own slug`);
        else if (seen.has(slug))
          errors.push(`${family}[${i}].previous_slugs[${j}]: "${slug}" is the slug of ${family}[${seen.get(slug)}]`);
        else if (former.has(slug) && former.get(slug) !== i) {
          errors.push(
            `${family}[${i}].previous_slugs[${j}]: "${slug}" is also a former slug of ${family}[${former.get(slug)}]`,
          );
        }
        former.set(slug, i);
      });
    });
  }
  for (const family of OFFER_FAMILIES)
    unique(
      DATASET_FAMILY_OF[family],
      dataset[DATASET_FAMILY_OF[family]]?.map((o) => o.id),
      'id',
    );
  for (const family of HISTORY_FAMILIES) {
    const name = HISTORY_DATASET_FAMILY[family];
    unique(
      name,
      dataset[name]?.map((s) => s.offer_id),
      'offer_id',
    );
    errors.push(...denseDayErrors(name, dataset[name] ?? []));
  }
  return errors;
}

/** A family whose served version changes. */
interface FamilyChange {
  family: VersionedFamily;
  state: FamilyState & { version: string };
  /** Its projection, given each published offer's figures (earn and borrow). */
  project: (figures?: ReadonlyMap<number, ApyStats>) => Projection;
  records: readonly unknown[];
}

/**
 * Which families of the file (and which offers, through their platform references) change, against
 * a pointer. An earn or borrow version also changes, its figures recomputed at `now` with its
 * documents as they are, when the import writes history for the family (`writesHistory`) or the
 * served version has no figure state.
 */
async function planChanges(
  dataset: Dataset,
  pointer: SnapshotPointer | undefined,
  writer: SnapshotWriter,
  now: string,
  writesHistory: (family: HistoryFamily, pointer: SnapshotPointer | undefined) => Promise<boolean>,
): Promise<FamilyChange[]> {
  const served = pointer?.families ?? {};
  const changes: FamilyChange[] = [];
  const change = (
    family: VersionedFamily,
    state: Omit<FamilyChange['state'], 'version'>,
    project: FamilyChange['project'],
    records: readonly unknown[],
  ) =>
    changes.push({
      family,
      state: { ...state, version: versionOf(family, state) },
      project,
      records,
    });

  for (const family of CATALOG_FAMILIES) {
    const stored = served[family];
    const given = dataset[family];
    if (given) {
      const state = { hash: hashOf(given), publishedAt: now };
      if (stored?.version !== versionOf(family, state))
        change(family, state, () => projectCatalog(family, given), given);
    }
  }

  // Offers render their platform references: resolve them when offers come in or platforms change.
  const platformsChanged = changes.some((c) => (PLATFORM_FAMILIES as readonly string[]).includes(c.family));
  const offersInFile = OFFER_FAMILIES.some((f) => dataset[DATASET_FAMILY_OF[f]] !== undefined);
  // Figures to compute for a family the file does not carry: its history is in the file, or it has none yet.
  const figuresDue = HISTORY_FAMILIES.some((f) => {
    const stored = served[DATASET_FAMILY_OF[f]];
    return stored?.version !== undefined && (stored.figuresAt === undefined || dataset[HISTORY_DATASET_FAMILY[f]]);
  });
  if (!platformsChanged && !offersInFile && !figuresDue) return changes;
  const platforms = {} as Record<(typeof PLATFORM_FAMILIES)[number], readonly PlatformRecord[]>;
  for (const family of PLATFORM_FAMILIES) {
    const version = served[family]?.version;
    platforms[family] =
      dataset[family] ?? (version ? await writer.readSource(version, family, RECORD_SCHEMA[family]) : []);
  }
  const resolve: PlatformResolver = platformResolver(platforms as Platforms);

  for (const family of OFFER_FAMILIES) {
    const name = DATASET_FAMILY_OF[family];
    const stored = served[name];
    const given = dataset[name];
    const figuresAt = hasFigures(family) ? { figuresAt: now } : {};
    // Figures only: the documents stay (and their Last-Modified), the figures move to `now`.
    const figuresOnly = async () =>
      hasFigures(family) &&
      stored?.version !== undefined &&
      (stored.figuresAt === undefined || (await writesHistory(family, pointer)));
    if (given) {
      const state = { hash: hashOf(given), refs: resolve.digest, publishedAt: now };
      const project = (figures?: ReadonlyMap<number, ApyStats>) => projectOffers(family, given, resolve, figures);
      if (stored?.version !== versionOf(family, { ...state, figuresAt: stored?.figuresAt }))
        change(family, { ...state, ...figuresAt }, project, given);
      else if (await figuresOnly())
        change(family, { ...state, ...figuresAt, publishedAt: stored!.publishedAt }, project, given);
    } else if (stored?.version && stored.hash && stored.refs !== resolve.digest) {
      // The family is not in the file, but a reference it renders changed: render it again.
      const records = await writer.readSource(stored.version, name, RECORD_SCHEMA[name]);
      change(
        family,
        { ...stored, refs: resolve.digest, publishedAt: now, ...figuresAt },
        (figures) => projectOffers(family, records, resolve, figures),
        records,
      );
    } else if (stored?.version && stored.hash && (await figuresOnly())) {
      const records = await writer.readSource(stored.version, name, RECORD_SCHEMA[name]);
      change(
        family,
        { ...stored, ...figuresAt },
        (figures) => projectOffers(family, records, resolve, figures),
        records,
      );
    }
  }
  return changes;
}

/**
 * History must name offers of its family: those of the file when it carries the family, else the
 * served ones (history of an offer that is not published is stored, and not served).
 */
async function unknownOffers(
  dataset: Dataset,
  pointer: SnapshotPointer | undefined,
  writer: SnapshotWriter,
): Promise<string[]> {
  const errors: string[] = [];
  for (const family of HISTORY_FAMILIES) {
    const name = HISTORY_DATASET_FAMILY[family];
    const series = dataset[name];
    if (!series || series.length === 0) continue;
    const offers = DATASET_FAMILY_OF[family];
    const served = pointer?.families[offers]?.version;
    const records = dataset[offers] ?? (served ? await writer.readSource(served, offers, RECORD_SCHEMA[offers]) : []);
    const ids = new Set(records.map((o) => o.id));
    series.forEach((s, i) => {
      if (!ids.has(s.offer_id)) errors.push(`${name}[${i}].offer_id: no ${family} offer has id ${s.offer_id}`);
    });
  }
  return errors;
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

/**
 * The deltas of a new offer version's index (docs/adr/0018-index-bases.md): against the index base
 * of the served version it replaces, and against that version itself (docs/adr/0017-index-deltas.md),
 * each read as stored and kept only when, stored and read back, it applies to exactly the new index.
 * None when that version has no index in this layout or it cannot be read whole (readers then load
 * the new index whole, as without a delta); no base delta when its index has no base (written before).
 */
/** The content hash the pointer names for `version`'s index base, when a kept version is built on it (its segments are stored). */
function storedIndexHash(pointer: SnapshotPointer | undefined, version: string): { storedIndexHash?: string } {
  const entries = [...Object.values(pointer?.families ?? {}), ...(pointer?.retired ?? [])];
  const named = entries.find((entry) => entry?.base === version && entry.indexHash)?.indexHash;
  return named ? { storedIndexHash: named } : {};
}

async function indexPlan(
  writer: SnapshotWriter,
  replaced: FamilyState | undefined,
  index: IndexData,
): Promise<IndexPlan> {
  if (index.kind !== 'offers' || !replaced?.version || !replaced.segments) return {};
  const ref = { ...replaced, segments: replaced.segments };
  try {
    const stored = await writer.readIndex(replaced.version, ref);
    const step = checkedDelta(stored.index, replaced.version, index);
    const base = replaced.base;
    if (base === undefined || !stored.base) return step ? { step } : {};
    const onBase = base === replaced.version ? step : checkedDelta(stored.base, base, index);
    return {
      ...(onBase
        ? {
            onBase: {
              base,
              segments: replaced.segments,
              ...(replaced.indexHash ? { indexHash: replaced.indexHash } : {}),
              delta: onBase,
            },
          }
        : {}),
      ...(step ? { step } : {}),
    };
  } catch (error) {
    if (error instanceof CorruptDataError || error instanceof MissingItemError) return {};
    throw error;
  }
}

/** The delta of `index` against `base` (the index of `baseVersion`), when, stored and read back, it applies as `index`. */
function checkedDelta(base: IndexData, baseVersion: string, index: OfferIndexData): IndexDeltaData | undefined {
  if (base.kind !== 'offers') return undefined;
  const delta = indexDelta(base, baseVersion, index);
  return delta && isStoredDelta(base, delta, index) ? delta : undefined;
}

/** Does `delta`, stored and read back, apply to `base` as `index`? */
const isStoredDelta = (base: OfferIndexData, delta: IndexDeltaData, index: IndexData) =>
  sameIndex(applyDelta(base, decodeIndexDelta(delta.base, encodeIndexDelta(delta.base, delta))), index);

/** Does `test` hold for some item (asked in order, until one does)? */
async function anyOf<T>(items: readonly T[], test: (item: T) => Promise<boolean>): Promise<boolean> {
  for (const item of items) if (await test(item)) return true;
  return false;
}

export async function importDataset(input: DataFileInput, options: ImportOptions): Promise<ImportResult> {
  const dataset = parseDataset(input);
  const { client, tableName } = options;
  // Every batch write is fenced by the lease once it is held (holdLease, below).
  let fence = async () => {};
  const writer = new SnapshotWriter(client, tableName, {
    concurrency: options.concurrency,
    onProgress: options.onProgress,
    beforeWrite: () => fence(),
  });
  const seen = await writer.readPointer();
  const errors = [...crossRecordErrors(dataset), ...(await unknownOffers(dataset, seen, writer))];
  if (errors.length > 0) throw new DataFileError(errors);

  const clock = options.now;
  const history = new HistoryWriter(client, tableName, {
    concurrency: options.concurrency,
    beforeWrite: () => fence(),
  });
  const leaseMs = Math.max(options.leaseMs ?? LEASE_MS, 60_000);
  const retireAfterMs = options.retireAfterMs ?? retireAfter(options.snapshotCacheMs ?? MAX_SNAPSHOT_CACHE_MS);
  const counts = Object.fromEntries(
    Object.entries(dataset).flatMap(([family, records]) => (Array.isArray(records) ? [[family, records.length]] : [])),
  );
  const appends = historyOf(dataset);
  const noHistory: AppendResult = { observations: 0, itemsRead: 0, itemsWritten: 0 };

  // First without the lease: an import of what is served writes nothing at all.
  const startedAt = clock();
  // Would the file's history of a family change what a pointer serves? Asked once per family and pointer.
  const probes = new Map<string, Promise<boolean>>();
  const historyChanges = (family: HistoryFamily, pointer: SnapshotPointer | undefined) => {
    const own = appends.filter((a) => a.family === family);
    const published = pointer?.historySeq ?? 0;
    const key = `${family}:${published}`;
    if (own.length === 0) return Promise.resolve(false);
    if (!probes.has(key)) probes.set(key, historyWouldChange(history, own, startedAt.getTime(), published));
    return probes.get(key)!;
  };
  const writesHistory = async (family: HistoryFamily, pointer: SnapshotPointer | undefined) =>
    familiesToRecord(dataset, pointer, startedAt.getTime(), options.recordHistory).includes(family) ||
    (await historyChanges(family, pointer));
  const planned = await planChanges(dataset, seen, writer, startedAt.toISOString(), writesHistory);
  // The families the file carries (and those whose offers it renders again): their refresh time moves.
  const inFile = VERSIONED_FAMILIES.filter((f) => dataset[DATASET_FAMILY_OF[f]] !== undefined);
  const carried = (changes: FamilyChange[]) => [
    ...new Set([...inFile, ...changes.map((c) => c.family)].map((f) => DATASET_FAMILY_OF[f])),
  ];
  if (
    planned.length === 0 &&
    familiesToRecord(dataset, seen, startedAt.getTime(), options.recordHistory).length === 0 &&
    !(await anyOf(HISTORY_FAMILIES, (family) => historyChanges(family, seen)))
  ) {
    await writer.markRefreshed(carried([]), startedAt.toISOString());
    return {
      unchanged: true,
      versions: versionsOf(seen?.families),
      published: [],
      itemsWritten: 0,
      itemsDeleted: 0,
      history: noHistory,
      recorded: noHistory,
      counts,
      figures: { itemsRead: 0, itemsWritten: 0 },
    };
  }

  const owner = randomUUID();
  let leaseUntil = startedAt.getTime() + leaseMs;
  let renewing: Promise<void> | undefined;
  // Held before every step and every batch write: renewed once half of it has passed (a quick import
  // never renews it: each renewal rewrites the pointer item), so a batch is only sent with at least
  // half the lease ahead. An import that stalled past it and was taken over fails at its renewal,
  // before it writes or deletes more. The lease lasts at least as long as the import may run and a
  // renewal only extends it, so a taken-over ingest function is no longer running.
  const holdLease = (): Promise<void> => {
    if (renewing) return renewing;
    const now = clock().getTime();
    if (leaseUntil - now > leaseMs / 2) return Promise.resolve();
    renewing = writer
      .renewLease(owner, now + leaseMs)
      .then(() => {
        leaseUntil = now + leaseMs;
      })
      .finally(() => {
        renewing = undefined;
      });
    return renewing;
  };
  const before = await writer.acquireLease(
    { owner, until: leaseUntil, writing: planned.map((c) => c.state.version) },
    startedAt.getTime() - TAKEOVER_GRACE_MS,
  );
  fence = holdLease;
  try {
    // Under the lease: plan again only if another import published since the pointer was read
    // (a family version names its hash and references, so equal versions mean an equal plan).
    const servedNow = versionsOf(before?.families);
    const servedSeen = versionsOf(seen?.families);
    const unchangedSince = VERSIONED_FAMILIES.every((f) => servedNow[f] === servedSeen[f]);
    const changes = unchangedSince
      ? planned
      : await planChanges(dataset, before, writer, startedAt.toISOString(), writesHistory);
    const next = new Set(changes.map((c) => c.state.version));
    const leased = new Set(planned.map((c) => c.state.version));
    const unleased = [...next].filter((v) => !leased.has(v));
    if (unleased.length > 0) await writer.recordWriting(owner, unleased);
    const served = new Set(Object.values(before?.families ?? {}).flatMap((s) => (s?.version ? [s.version] : [])));
    // The blocks that stay stored: those of every served and retained version, and of the new ones.
    const now = clock();
    const due = (r: RetiredVersion) => !next.has(r.version) && Date.parse(r.at) + retireAfterMs <= now.getTime();
    const retained = (before?.retired ?? []).filter((r) => !due(r) && !next.has(r.version));
    const storedBlocks = new Set<string>();
    const manifests = new Map<string, Manifest>();
    for (const version of new Set([...served, ...retained.map((r) => r.version)])) {
      const manifest = await writer.readManifest(version);
      manifests.set(version, manifest);
      for (const block of manifest.blocks) storedBlocks.add(block);
    }

    let itemsWritten = 0;
    let itemsDeleted = 0;
    // Versions that interrupted imports wrote and never published: no reader can name them. An
    // interrupted import may have been writing a version that is also retained (its content served
    // again): readers may still name that one, and it is deleted only once it is due. Their blocks
    // that this import names again it writes again (it writes every block no kept version names).
    const retainedVersions = new Set(retained.map((r) => r.version));
    for (const version of new Set(before?.lease?.writing ?? [])) {
      if (!served.has(version) && !next.has(version) && !retainedVersions.has(version))
        itemsDeleted += await writer.deleteVersion(version, storedBlocks);
    }
    // History an interrupted import wrote under a number never published: reverted from its journal
    // before this import writes its own (which reuses that number), then the journal dropped.
    const published = before?.historySeq ?? 0;
    const sequence = { published, seq: published + 1 };
    let journal = await history.readJournalHead();
    if (journal && journal.seq > published) {
      itemsDeleted += await revertHistory(history, await history.readJournal(journal));
      await history.deleteJournal(journal);
      journal = undefined;
    }
    // Recorded under the lease, against the pointer as it is then: another import may have recorded this hour.
    const recordedFamilies = familiesToRecord(dataset, before, startedAt.getTime(), options.recordHistory);
    const recordings = recordedFamilies.map((family) =>
      recordingOf(family, dataset[DATASET_FAMILY_OF[family]]!, appends, startedAt.getTime()),
    );
    const journaled = [...appends, ...recordings].filter((a) => a.series.length > 0);
    let appended = noHistory;
    let recorded = noHistory;
    // What the figure state of each family merges: the file's observations, then those recorded.
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

    // The figures of earn and borrow at the refresh time, from the served version's figure state
    // and what this import wrote (apy-figures.ts); then every version's projection.
    const figureStore = new FigureStore(client, tableName, { concurrency: options.concurrency });
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
        t: startedAt.getTime(),
        // None to seed from stored history when the family has no served version yet: what history
        // it has, this import writes (history names offers the file or a served version has).
        previous:
          servedVersion?.version === undefined
            ? { hours: {}, days: {} }
            : servedVersion.figuresAt === undefined
              ? undefined
              : (manifests.get(servedVersion.version)?.figures ?? { hours: {}, days: {} }),
        published,
        observations: observed.get(change.family)!,
        offers: (change.records as Record<string, unknown>[])
          .filter((r) => r.published !== false)
          .map((r) => ({ id: r.id as number, apy: r[apy] as string })),
      });
      figureStates.set(change.state.version, update);
      projections.set(change.state.version, change.project(update.figures));
    }
    const kept = new Set(storedBlocks);
    for (const projection of projections.values()) for (const block of projection.blocks) kept.add(block.hash);
    for (const state of figureStates.values()) for (const hash of state.hashes) kept.add(hash);

    for (const change of changes) {
      await holdLease();
      const figures = figureStates.get(change.state.version);
      const name = DATASET_FAMILY_OF[change.family];
      const projection = projections.get(change.state.version)!;
      // The served version's source chunks, named again for the records that did not change.
      const servedState = before?.families[name];
      const layout = servedState?.version ? manifests.get(servedState.version)?.source : undefined;
      const sameRecords = change.state.hash !== undefined && change.state.hash === servedState?.hash;
      const written = await writer.writeVersion(
        change.state.version,
        projection,
        { family: name, records: change.records, ...(layout ? { served: { layout, sameRecords } } : {}) },
        storedBlocks,
        figures,
        {
          ...(await indexPlan(writer, servedState, projection.index)),
          ...storedIndexHash(before, change.state.version),
        },
      );
      for (const name of written.shared) kept.add(name);
      change.state.segments = written.segments;
      change.state.base = written.base;
      if (written.indexHash) change.state.indexHash = written.indexHash;
      else delete change.state.indexHash;
      // A state copied from the served one names that one's deltas: this version's, or none.
      if (written.delta) change.state.delta = written.delta;
      else delete change.state.delta;
      if (written.step) change.state.step = written.step;
      else delete change.state.step;
      itemsWritten += written.itemsWritten;
      figureStore.counts.itemsWritten += figures?.chunks.filter((c) => !storedBlocks.has(c.hash)).length ?? 0;
    }

    // Versions replaced longer ago than their retention are deleted, sparing the blocks others name;
    // the lease held first, so an import that stalled past it and was taken over deletes nothing.
    await holdLease();
    for (const r of before?.retired ?? []) if (due(r)) itemsDeleted += await writer.deleteVersion(r.version, kept);

    const publishedAt = clock();
    const retired: RetiredVersion[] = [...retained];
    const families: SnapshotPointer['families'] = { ...before?.families };
    for (const change of changes) {
      const replaced = families[DATASET_FAMILY_OF[change.family]];
      if (replaced?.version && replaced.version !== change.state.version) {
        // A retired version is read as a cold instance reads it: its base, and its delta against another.
        const { segments, base, indexHash, delta, publishedAt: at } = replaced;
        const readable = segments
          ? {
              segments,
              publishedAt: at,
              ...(base ? { base } : {}),
              ...(indexHash ? { indexHash } : {}),
              ...(base && base !== replaced.version ? { delta } : {}),
            }
          : {};
        retired.push({ family: change.family, version: replaced.version, at: publishedAt.toISOString(), ...readable });
      }
      families[DATASET_FAMILY_OF[change.family]] = change.state;
    }
    for (const { family } of journaled)
      families[HISTORY_DATASET_FAMILY[family]] = { publishedAt: startedAt.toISOString() };
    const historySeq = journaled.length > 0 ? sequence.seq : published;
    const recordedHours = { ...before?.recorded };
    for (const family of recordedFamilies) recordedHours[family] = hourOf(startedAt.getTime());
    await writer.publish(owner, {
      families,
      retired,
      historySeq,
      recorded: recordedHours,
      importedAt: publishedAt.toISOString(),
    });
    // The import's refresh time (`refreshed_at`): the time of the observations it recorded.
    await writer.markRefreshed(carried(changes), startedAt.toISOString());
    itemsWritten += 1;
    return {
      unchanged: false,
      versions: versionsOf(families),
      published: changes.map((c) => c.family),
      itemsWritten,
      itemsDeleted,
      history: appended,
      recorded,
      counts,
      figures: figureStore.counts,
    };
  } catch (error) {
    await writer.releaseLease(owner).catch(() => undefined);
    throw error;
  }
}

/** The served state of every family (for the freshness metric and the command line). */
export async function readPointer(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<SnapshotPointer | undefined> {
  return new SnapshotWriter(client, tableName).readPointer();
}
