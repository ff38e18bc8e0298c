/**
 * History records of a data file → the items that append them: each observation, and for each of
 * its 4h, 1d and 1w buckets the last observation of the file in that bucket (at most four items
 * per observation), each with its expiry. Items no window can reach any more are left out. The
 * store then writes only the ones that change what is stored.
 */
import { expiryOf, observations, ROLLUPS, rollup } from '../domain/history-points';
import { type HistoryFamily, historyKey, OBSERVED_AT_ATTRIBUTE, type SeriesResolution } from '../keys';
import type { BucketPoint, HistoryItem, RawPoint } from '../repositories/history-store';
import type { HistoryWriter } from '../repositories/history-writer';
import { TTL_ATTRIBUTE } from '../table';

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

/** The items of one series' observations (`raw`, in time order). */
function historyItems(family: HistoryFamily, offerId: number, raw: RawPoint[], now: number): HistoryItem[] {
  const items: HistoryItem[] = [];
  const add = (resolution: SeriesResolution, ms: number, [, apy, tvl]: RawPoint | BucketPoint, at: number) => {
    const expiresAt = expiryOf(resolution, ms);
    if (expiresAt !== undefined && expiresAt * 1000 <= now) return; // no window reaches it any more
    items.push({
      ...historyKey(family, offerId, resolution, ms),
      apy,
      ...(family === 'earn' ? { tvl } : {}),
      [OBSERVED_AT_ATTRIBUTE]: at,
      ...(expiresAt === undefined ? {} : { [TTL_ATTRIBUTE]: expiresAt }),
    });
  };
  for (const point of raw) add('RAW', point[0], point, point[0]);
  for (const { resolution, interval } of ROLLUPS)
    for (const bucket of rollup(raw, interval)) add(resolution, bucket[0], bucket, bucket[3]);
  return items;
}

/** Append the history records of a file, as of `now`. */
export const appendHistory = (
  store: HistoryWriter,
  appends: readonly HistoryAppend[],
  now: number,
): Promise<AppendResult> => appendInRounds(store, appends, now, false);

/**
 * Would appending the history records of a file change what is stored? Reads only (the store's
 * dry run), and only up to the first round that would write, its rounds growing in each family
 * from FIRST_PROBE_ROUND series: a file of new observations costs a few series of reads, a file
 * that changes nothing one read of each series.
 */
export async function historyWouldChange(
  store: HistoryWriter,
  appends: readonly HistoryAppend[],
  now: number,
): Promise<boolean> {
  return (await appendInRounds(store.dryRun(), appends, now, true)).itemsWritten > 0;
}

/** The rounds of an append (SERIES_PER_ROUND series each), or of a probe that stops at the first change. */
async function appendInRounds(
  store: HistoryWriter,
  appends: readonly HistoryAppend[],
  now: number,
  probe: boolean,
): Promise<AppendResult> {
  const result: AppendResult = { observations: 0, itemsRead: 0, itemsWritten: 0 };
  for (const { family, series } of appends) {
    let round = probe ? FIRST_PROBE_ROUND : SERIES_PER_ROUND;
    for (let i = 0; i < series.length; i += round, round = Math.min(SERIES_PER_ROUND, round * 2)) {
      const items: HistoryItem[] = [];
      for (const record of series.slice(i, i + round)) {
        const raw = observations(record.points);
        result.observations += raw.length;
        for (const item of historyItems(family, record.offer_id, raw, now)) items.push(item);
      }
      const written = await store.writeChanged(items);
      result.itemsRead += written.itemsRead;
      result.itemsWritten += written.itemsWritten;
      if (probe && result.itemsWritten > 0) return result;
    }
  }
  return result;
}
