/**
 * The stored history series (docs/data-model.md, "History"): each interval's UTC-aligned bucket,
 * the sort-key prefix of the series that holds its buckets, and how many buckets one stored item
 * packs (docs/adr/0029-packed-history.md). Declared below the data layer, which stores them, and
 * the domain, which answers windows from them (shared/domain/buckets.ts adds the periods).
 *
 * Every series holds one value per bucket: its last observation, with its time. The shortest
 * (`1h`) holds the observations themselves, every one of each UTC hour (an equal time corrects
 * one; at most 1,440 an offer in a UTC day: shared/import/history-plan.ts), the hour's value its
 * last. Buckets nest: each interval's
 * buckets are whole buckets of the next shorter one. An item covers `perItem` buckets from an
 * aligned start, so each series' items tile time and a bucket has one item.
 */

import { DAY_MS, HOUR_MS } from '../platform/timestamps';

interface SeriesSpec {
  /** The bucket's length. */
  bucketMs: number;
  /** Where buckets (and items) are aligned, from the epoch (weeks: Monday 1969-12-29, day -3). */
  originMs: number;
  /** The sort-key prefix of the stored series that answers this interval. */
  stored: string;
  /** Buckets a stored item packs (its span: `perItem` buckets from an aligned start). */
  perItem: number;
}

/** Intervals from the shortest up. The shortest holds the observations (every one of each hour). */
export const SERIES = {
  '1h': { bucketMs: HOUR_MS, originMs: 0, stored: '1H', perItem: 24 },
  '4h': { bucketMs: 4 * HOUR_MS, originMs: 0, stored: '4H', perItem: 42 },
  '1d': { bucketMs: DAY_MS, originMs: 0, stored: '1D', perItem: 32 },
  '1w': { bucketMs: 7 * DAY_MS, originMs: -3 * DAY_MS, stored: '1W', perItem: 52 },
} as const satisfies Record<string, SeriesSpec>;

export type Interval = keyof typeof SERIES;
export const INTERVALS = Object.keys(SERIES) as [Interval, ...Interval[]];
/** The stored series, one per interval. */
export type SeriesResolution = (typeof SERIES)[Interval]['stored'];
/** The stored observations themselves (every one of each hour): the shortest interval's series. */
export const RAW_SERIES = SERIES[INTERVALS[0]].stored;

/** The declaration of a stored series by its prefix. */
export const SERIES_OF: Readonly<Record<SeriesResolution, SeriesSpec>> = Object.fromEntries(
  INTERVALS.map((interval) => [SERIES[interval].stored, SERIES[interval]]),
) as Record<SeriesResolution, SeriesSpec>;

/** Start (epoch ms) of the bucket of the given size that contains `ms`. */
export function bucketStart(interval: Interval, ms: number): number {
  const { bucketMs, originMs } = SERIES[interval];
  return Math.floor((ms - originMs) / bucketMs) * bucketMs + originMs;
}

/** Start (epoch ms) of the stored item of a series whose span contains `ms`. */
export function itemStart(resolution: SeriesResolution, ms: number): number {
  const { bucketMs, originMs, perItem } = SERIES_OF[resolution];
  const span = bucketMs * perItem;
  return Math.floor((ms - originMs) / span) * span + originMs;
}
