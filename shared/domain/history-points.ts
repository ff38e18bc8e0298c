/**
 * The points of an APY series (docs/api.md, "History"): raw observations, the last observation of
 * each bucket, and how long each stored series is kept. Used by the import to append and by the
 * read path to answer a window.
 */

import type { BucketPoint, RawPoint } from '../data/history-store';
import type { SeriesResolution } from '../data/keys';
import { bucketStart, type Interval } from './buckets';

export type { BucketPoint, RawPoint };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The bucket series stored beside the raw observations, and the interval of each. */
export const ROLLUPS: readonly { resolution: Exclude<SeriesResolution, 'RAW'>; interval: Exclude<Interval, '1h'> }[] = [
  { resolution: '4H', interval: '4h' },
  { resolution: '1D', interval: '1d' },
  { resolution: '1W', interval: '1w' },
];

/**
 * How long an item of each series can still change an answer, from its time (a raw observation)
 * or its bucket's start, with a day of margin; `null` = kept for ever. Raw observations answer the
 * 1h windows (7 days) and the still-open bucket of a window (at most a week old); 4h buckets the
 * 30-day window; daily buckets the 365-day window; weekly buckets `all`.
 */
export const RETENTION_MS: Readonly<Record<SeriesResolution, number | null>> = {
  RAW: 8 * DAY,
  '4H': 4 * HOUR + 31 * DAY,
  '1D': DAY + 366 * DAY,
  '1W': null,
};

/** Epoch seconds after which DynamoDB may delete the item (its TTL), or undefined for ever. */
export function expiryOf(resolution: SeriesResolution, ms: number): number | undefined {
  const retention = RETENTION_MS[resolution];
  return retention === null ? undefined : Math.ceil((ms + retention) / 1000);
}

/** Observations sorted by time; of two at the same instant, the later in the file wins. */
export function observations(points: readonly { timestamp: string; apy: string; tvl?: string | null }[]): RawPoint[] {
  const byTime = new Map<number, RawPoint>();
  for (const p of points) {
    const ms = Date.parse(p.timestamp);
    byTime.set(ms, [ms, p.apy, p.tvl ?? null]);
  }
  return [...byTime.values()].sort((a, b) => a[0] - b[0]);
}

/** Last observation of each bucket, in time order (observations in time order). */
export function rollup(raw: readonly RawPoint[], interval: Interval): BucketPoint[] {
  const buckets = new Map<number, BucketPoint>();
  for (const [ms, apy, tvl] of raw) buckets.set(bucketStart(interval, ms), [bucketStart(interval, ms), apy, tvl, ms]);
  return [...buckets.values()];
}
