/**
 * The points of an APY series (docs/api.md, "History"): observations, the last observation of
 * each bucket, and when an item expires (the series and their retention: buckets.ts). Used by the import to append and by the
 * read path to answer a window.
 */

import type { BucketPoint, RawPoint } from '../data/history-store';
import { bucketStart, type Interval, RETENTION_MS, type SeriesResolution } from './buckets';

export type { BucketPoint, RawPoint };

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
