/**
 * The one declaration of history windows (docs/api.md, "History"): each period's window and
 * interval, beside the stored series of each interval (shared/model/history-series.ts: bucket,
 * alignment, the items that pack them). Everything else is derived from these two tables: how far
 * back each interval can reach, how long each stored series is kept, which series the import
 * writes and the read path queries, the query parameters, the description and the bench. A new
 * series or bucket size is a row there.
 */

import {
  bucketStart,
  INTERVALS,
  type Interval,
  RAW_SERIES,
  SERIES,
  type SeriesResolution,
} from '../model/history-series';
import { DAY_MS } from '../platform/timestamps';

export { bucketStart, INTERVALS, type Interval, RAW_SERIES, SERIES, type SeriesResolution };

/** `windowMs: null` = from the first point. From the shortest window up (the default interval of a custom window). */
export const PERIOD_SPEC = {
  '24h': { interval: '1h', windowMs: DAY_MS },
  '1w': { interval: '1h', windowMs: 7 * DAY_MS },
  '1m': { interval: '4h', windowMs: 30 * DAY_MS },
  '3m': { interval: '1d', windowMs: 90 * DAY_MS },
  '1y': { interval: '1d', windowMs: 365 * DAY_MS },
  all: { interval: '1w', windowMs: null },
} as const satisfies Record<string, { interval: Interval; windowMs: number | null }>;

export type Period = keyof typeof PERIOD_SPEC;
export const PERIODS = Object.keys(PERIOD_SPEC) as [Period, ...Period[]];

/**
 * The earliest time a bucket of any size can start: observations are from 1970 on (data files),
 * and the week of 1970-01-01 starts on Monday 1969-12-29, three days before the epoch.
 */
export const EARLIEST_BUCKET_START = Math.min(...INTERVALS.map((i) => bucketStart(i, 0)));

/**
 * How far before the request time the periods of this interval reach: the longest period window
 * that uses it (`null`: no limit). Each series is kept that long (below); a custom window may reach
 * further and then answers what is still kept (docs/api.md, "Retention").
 * @internal (exported for its tests)
 */
export const REACH_MS: Readonly<Record<Interval, number | null>> = Object.fromEntries(
  INTERVALS.map((interval) => {
    const windows = Object.values(PERIOD_SPEC)
      .filter((p) => p.interval === interval)
      .map((p) => p.windowMs);
    return [interval, windows.includes(null) ? null : Math.max(0, ...(windows as number[]))];
  }),
) as Record<Interval, number | null>;

/** A day of margin on every retention: an item expires a day after the last window can reach it. */
const RETENTION_MARGIN_MS = DAY_MS;

/**
 * How long each stored series keeps an item, from its time (a raw observation) or its bucket's
 * start: as long as a period's window can read it, with a day of margin; `null` = for ever. The
 * reach of its interval, plus a bucket for the one that straddles `from` (none for raw observations), plus
 * the margin. The shorter series also complete the bucket that contains a past `to`, exactly
 * while they still hold it (a `to` within 7 days of the request time, which the periods never
 * pass), else as far as they still do.
 */
export const RETENTION_MS: Readonly<Record<SeriesResolution, number | null>> = Object.fromEntries(
  INTERVALS.map((interval, i) => {
    const reach = REACH_MS[interval];
    const straddle = i === 0 ? 0 : SERIES[interval].bucketMs;
    return [SERIES[interval].stored, reach === null ? null : reach + straddle + RETENTION_MARGIN_MS];
  }),
) as Record<SeriesResolution, number | null>;

/** The most offers one history request of several reads (`ids`). */
export const MAX_HISTORY_IDS = 50;
