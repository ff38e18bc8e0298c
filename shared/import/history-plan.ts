/**
 * History records of a data file → the entries that append them: each observation in the
 * observations' series (shared/domain/buckets.ts `SERIES`, `1H`: every observation, at most
 * MAX_DAY_OBSERVATIONS an offer in a UTC day), and for each coarser series the last observation of
 * the file in each bucket, each with its expiry and the item that packs it. Buckets no window can
 * reach any more are left out. The store then writes only the items whose buckets change what is served, under the import's sequence number
 * (docs/data-model.md, "History"): nothing of them is served before the import publishes, and
 * what a failed import wrote is reverted by the next one from its journal.
 */

import type {
  HistoryCandidate,
  HistoryJournal,
  HistorySequence,
  HistoryWriter,
  JournalSeries,
  StoredItems,
} from '../data/history-writer';
import {
  HISTORY_DATASET_FAMILY,
  type HistoryFamily,
  historyKey,
  historyPartition,
  type Key,
  parseHistorySortKey,
} from '../data/keys';
import { bucketStart, INTERVALS, RAW_SERIES, SERIES } from '../domain/buckets';
import { expiryOf, observations, type RawPoint, rollup } from '../domain/history-points';
import { itemStart, SERIES_OF, type SeriesResolution } from '../model/history-series';
import { OFFER_FAMILY } from '../model/offer-families';
import { DataFileError } from './dataset';

interface SeriesRecord {
  offer_id: number;
  points: readonly { timestamp: string; apy: string; tvl?: string | null }[];
}

export interface HistoryAppend {
  family: HistoryFamily;
  series: readonly SeriesRecord[];
}

export interface AppendResult {
  observations: number;
  itemsRead: number;
  itemsWritten: number;
}

/** Series appended per round (one batch read, then the writes): bounds an append's memory. */
const SERIES_PER_ROUND = 1_000;

/** The first round of a probe (historyWouldChange): a feed at market cadence changes every series. */
const FIRST_PROBE_ROUND = 8;

/**
 * When the item that holds the bucket at `start` expires: with the last bucket of its span (the
 * latest observation its hours can hold), whichever buckets it holds, so reverting a bucket never moves it.
 */
function itemExpiry(resolution: SeriesResolution, start: number): number | undefined {
  const end = spanEnd(resolution, start);
  return expiryOf(resolution, resolution === RAW_SERIES ? end - 1 : end - SERIES_OF[resolution].bucketMs);
}

/** The end (exclusive) of the span of the item that holds the entry at `ms`. */
const spanEnd = (resolution: SeriesResolution, ms: number): number =>
  itemStart(resolution, ms) + SERIES_OF[resolution].bucketMs * SERIES_OF[resolution].perItem;

/**
 * The entries of one series' observations (`raw`, in time order) in every stored series: each
 * observation in the observations' own, each bucket's last in the others.
 */
function historyItems(family: HistoryFamily, offerId: number, raw: RawPoint[], now: number): HistoryCandidate[] {
  const items: HistoryCandidate[] = [];
  for (const interval of INTERVALS) {
    const resolution = SERIES[interval].stored;
    const entries =
      resolution === RAW_SERIES ? raw.map(([at, apy, tvl]) => [at, apy, tvl, at] as const) : rollup(raw, interval);
    for (const [start, apy, tvl, at] of entries) {
      // The observations' series expires from each observation's time, the others from their bucket's start.
      const expired = expiryOf(resolution, resolution === RAW_SERIES ? at : start);
      if (expired !== undefined && expired * 1000 <= now) continue; // no window reaches it any more
      const expiresAt = itemExpiry(resolution, start);
      items.push({
        key: historyKey(family, offerId, resolution, start),
        resolution,
        start,
        apy,
        ...(recordsTvl(family) ? { tvl } : {}),
        at,
        ...(expiresAt === undefined ? {} : { expiresAt }),
      });
    }
  }
  return items;
}

/**
 * The most observations one offer's series holds in one UTC day (one a minute on average), the
 * stored ones and a file's together: it bounds the observations' item (a UTC day, committed and
 * pending) far below DynamoDB's 400 KB (docs/adr/0029-packed-history.md). Recording adds at most
 * one an hour, in an hour without one, so an item holds at most this plus 24.
 * @internal (exported for its tests)
 */
export const MAX_DAY_OBSERVATIONS = 1_440;

const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const tooMany = (name: string, place: number, id: number, day: string, count: number, stored: boolean) =>
  `${name}[${place}].points: offer ${id} ${stored ? 'would hold' : 'has'} ${count} observations on ${day} (UTC)${
    stored ? ' with those stored' : ''
  }: at most ${MAX_DAY_OBSERVATIONS} an offer in a UTC day`;

/** The history records of a file (`name`: its array) with more than MAX_DAY_OBSERVATIONS observations of a UTC day, by place. */
export function denseDayErrors(name: string, series: readonly SeriesRecord[]): string[] {
  return series.flatMap((record, place) => {
    const days = new Map<string, number>();
    for (const [ms] of observations(record.points)) days.set(dayOf(ms), (days.get(dayOf(ms)) ?? 0) + 1);
    return [...days]
      .filter(([, count]) => count > MAX_DAY_OBSERVATIONS)
      .map(([day, count]) => tooMany(name, place, record.offer_id, day, count, false));
  });
}

/** The days whose observations, stored and added (`items`' observations), would pass MAX_DAY_OBSERVATIONS, by the file's place (`places`: by partition). */
function storedDayErrors(
  family: HistoryFamily,
  items: readonly HistoryCandidate[],
  stored: StoredItems,
  published: number,
  places: ReadonlyMap<string, number>,
): string[] {
  const days = new Map<string, { key: HistoryCandidate['key']; times: Set<number> }>();
  for (const item of items) {
    if (item.resolution !== RAW_SERIES) continue;
    const id = `${item.key.PK}\u0000${item.key.SK}`;
    const day = days.get(id) ?? { key: item.key, times: new Set(stored.servedTimes(item.key, published)) };
    days.set(id, day);
    day.times.add(item.start);
  }
  return [...days.values()]
    .filter(({ times }) => times.size > MAX_DAY_OBSERVATIONS)
    .map(({ key, times }) =>
      tooMany(
        HISTORY_DATASET_FAMILY[family],
        places.get(key.PK)!,
        Number(key.PK.split('#').pop()),
        dayOf([...times][0]!),
        times.size,
        true,
      ),
    );
}

/** Append the history records of a file, as of `now`, under `seq` (not served before it is published). */
export const appendHistory = (
  store: HistoryWriter,
  appends: readonly HistoryAppend[],
  now: number,
  sequence: HistorySequence,
): Promise<AppendResult> => appendInRounds(store, appends, now, sequence, false);

/**
 * Would appending the history records of a file change what a pointer publishing `published`
 * serves? Reads only (the store's dry run), and only up to the first round that would write, its
 * rounds growing in each family from FIRST_PROBE_ROUND series: a file of new observations costs a
 * few series of reads, a file that changes nothing one read of each series.
 */
export async function historyWouldChange(
  store: HistoryWriter,
  appends: readonly HistoryAppend[],
  now: number,
  published: number,
): Promise<boolean> {
  return (await appendInRounds(store.dryRun(), appends, now, { published, seq: published + 1 }, true)).itemsWritten > 0;
}

/** The rounds of an append (SERIES_PER_ROUND series each), or of a probe that stops at the first change. */
async function appendInRounds(
  store: HistoryWriter,
  appends: readonly HistoryAppend[],
  now: number,
  sequence: HistorySequence,
  probe: boolean,
): Promise<AppendResult> {
  const result: AppendResult = { observations: 0, itemsRead: 0, itemsWritten: 0 };
  for (const { family, series } of appends) {
    let round = probe ? FIRST_PROBE_ROUND : SERIES_PER_ROUND;
    for (let i = 0; i < series.length; i += round, round = Math.min(SERIES_PER_ROUND, round * 2)) {
      const items: HistoryCandidate[] = [];
      const places = new Map<string, number>();
      series.slice(i, i + round).forEach((record, j) => {
        const raw = observations(record.points);
        result.observations += raw.length;
        places.set(historyPartition(family, record.offer_id), i + j);
        for (const item of historyItems(family, record.offer_id, raw, now)) items.push(item);
      });
      const stored = await store.readStored(items.map((item) => item.key));
      const errors = storedDayErrors(family, items, stored, sequence.published, places);
      if (errors.length > 0) throw new DataFileError(errors);
      const written = await store.writeChanged(items, sequence, stored);
      result.itemsRead += written.itemsRead;
      result.itemsWritten += written.itemsWritten;
      if (probe && result.itemsWritten > 0) return result;
    }
  }
  return result;
}

/**
 * The journal of an import under `seq`: each series it may write and the times of its
 * observations (a file's and a recording's of one offer in one entry).
 */
export function journalOf(appends: readonly HistoryAppend[], seq: number): HistoryJournal {
  const series = new Map<string, JournalSeries & { times: number[] }>();
  for (const { family, series: records } of appends)
    for (const s of records) {
      const entry = series.get(`${family}:${s.offer_id}`) ?? { family, id: s.offer_id, times: [] };
      series.set(`${family}:${s.offer_id}`, entry);
      for (const p of s.points) entry.times.push(Date.parse(p.timestamp));
    }
  return { seq, series: [...series.values()].map((s) => ({ ...s, times: [...new Set(s.times)] })) };
}

// ---- recorded from imports (CONTRACT §12, docs/adr/0012-recorded-history.md) ---------------------

/** Whether a family's series hold a TVL beside the APY (its declaration's `history`). */
const recordsTvl = (family: HistoryFamily): boolean =>
  (OFFER_FAMILY[family].history as readonly string[]).includes('tvl');

/** What a family records of a published offer: the field of each role its history series holds (the family's declaration). */
const recordedFields = (family: HistoryFamily): { apy: string; tvl?: string } => {
  const { fields } = OFFER_FAMILY[family];
  const of = (role: 'apy' | 'tvl') => (fields as Partial<Record<'apy' | 'tvl', string>>)[role];
  return { apy: of('apy')!, ...(recordsTvl(family) ? { tvl: of('tvl') } : {}) };
};

/** The start of the UTC hour of `ms`: the unit recording keeps to one observation per offer. */
export const hourOf = (ms: number): number => bucketStart('1h', ms);

/**
 * The observations an import records for `family` at `at`: one for each offer it publishes
 * (`offers`, the file's records), except those the file's own history (`appends`) observes in
 * at's hour: the file's observation is that hour's. Stored observations are checked when written
 * (recordObservations).
 */
export function recordingOf(
  family: HistoryFamily,
  offers: readonly Record<string, unknown>[],
  appends: readonly HistoryAppend[],
  at: number,
): HistoryAppend {
  const hour = hourOf(at);
  const observed = new Set(
    appends
      .filter((a) => a.family === family)
      .flatMap((a) => a.series)
      .filter((s) => s.points.some((p) => hourOf(Date.parse(p.timestamp)) === hour))
      .map((s) => s.offer_id),
  );
  const fields = recordedFields(family);
  const timestamp = new Date(at).toISOString();
  return {
    family,
    series: offers
      .filter((o) => o.published !== false && !observed.has(o.id as number))
      .map((o) => ({
        offer_id: o.id as number,
        points: [
          {
            timestamp,
            apy: o[fields.apy] as string,
            ...(fields.tvl ? { tvl: (o[fields.tvl] as string | null | undefined) ?? null } : {}),
          },
        ],
      })),
  };
}

/**
 * Write the recorded observations (one point a series, all at one time), under `seq`, for the
 * offers whose series has no served observation in that hour. The items an observation writes are
 * read anyway (writeChanged); among them, the observations' series holds the hour's observations.
 */
export async function recordObservations(
  store: HistoryWriter,
  recorded: readonly HistoryAppend[],
  now: number,
  sequence: HistorySequence,
  /** Told of each observation recorded (the figure state merges them: apy-figures.ts). */
  onRecorded?: (family: HistoryFamily, id: number, point: RawPoint) => void,
): Promise<AppendResult> {
  const result: AppendResult = { observations: 0, itemsRead: 0, itemsWritten: 0 };
  for (const { family, series } of recorded) {
    for (let i = 0; i < series.length; i += SERIES_PER_ROUND) {
      const round = series.slice(i, i + SERIES_PER_ROUND).map((record) => {
        const raw = observations(record.points);
        return { id: record.offer_id, raw, items: historyItems(family, record.offer_id, raw, now) };
      });
      const stored = await store.readStored(round.flatMap((r) => r.items.map((item) => item.key)));
      const items: HistoryCandidate[] = [];
      for (const { id, raw, items: candidates } of round) {
        const hour = hourOf(raw[0]![0]);
        const times = stored.servedTimes(historyKey(family, id, RAW_SERIES, hour), sequence.published);
        if (times.some((ms) => hourOf(ms) === hour)) continue;
        result.observations += 1;
        onRecorded?.(family, id, raw[0]!);
        for (const item of candidates) items.push(item);
      }
      const written = await store.writeChanged(items, sequence, stored);
      result.itemsRead += stored.size;
      result.itemsWritten += written.itemsWritten;
    }
  }
  return result;
}

/** Every item a series of a journal may have written: those that hold its observations' buckets. */
function keysOf({ family, id, times }: JournalSeries): Key[] {
  const keys = new Map<string, Key>();
  for (const ms of times)
    for (const interval of INTERVALS) {
      const key = historyKey(family as HistoryFamily, id, SERIES[interval].stored, ms);
      keys.set(key.SK, key);
    }
  return [...keys.values()];
}

/** Keys reverted or settled per round (one batch read, then the writes): bounds the memory, whatever the series hold. */
const ROUND_KEYS = 4_000;

/** Revert what the import of `journal` wrote (it was never published). Returns the items changed back or deleted. */
export async function revertHistory(store: HistoryWriter, journal: HistoryJournal): Promise<number> {
  let reverted = 0;
  let round: Key[] = [];
  const flush = async () => {
    reverted += await store.revert(round, journal.seq);
    round = [];
  };
  for (const series of journal.series) {
    for (const key of keysOf(series)) round.push(key);
    if (round.length >= ROUND_KEYS) await flush();
  }
  if (round.length > 0) await flush();
  return reverted;
}

/**
 * Settle what the import `seq` corrected, once published (docs/adr/0029-packed-history.md): the
 * items of spans ended by `now` (no hourly import rewrites them) in which its pending buckets
 * replace committed ones. The others cost a read no more than settled ones would, or are folded
 * by the next import that writes them. Returns the items settled.
 */
export async function settleHistory(store: HistoryWriter, seq: number, now: number): Promise<number> {
  const ended = [...store.corrected.values()].filter((key) => {
    const { resolution, start } = parseHistorySortKey(key.SK)!;
    return spanEnd(resolution, start) <= now;
  });
  let settled = 0;
  for (let i = 0; i < ended.length; i += ROUND_KEYS) settled += await store.settle(ended.slice(i, i + ROUND_KEYS), seq);
  return settled;
}
