/**
 * History windows and buckets (docs/api.md, "History buckets"): UTC-aligned buckets of 1h, 4h, 1d and 1w (weeks
 * start on Monday), and the window and interval of each period. Used by the import to write the
 * rollup series and by the read path to select and trim them.
 */
export const PERIODS = ['24h', '1w', '1m', '3m', '1y', 'all'] as const;
export type Period = (typeof PERIODS)[number];
export type Interval = '1h' | '4h' | '1d' | '1w';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const PERIOD_SPEC: Record<Period, { interval: Interval; windowMs: number | null }> = {
  '24h': { interval: '1h', windowMs: DAY },
  '1w': { interval: '1h', windowMs: 7 * DAY },
  '1m': { interval: '4h', windowMs: 30 * DAY },
  '3m': { interval: '1d', windowMs: 90 * DAY },
  '1y': { interval: '1d', windowMs: 365 * DAY },
  all: { interval: '1w', windowMs: null },
};

/** Start (epoch ms) of the bucket of the given size that contains `ms`. */
export function bucketStart(interval: Interval, ms: number): number {
  switch (interval) {
    case '1h':
      return Math.floor(ms / HOUR) * HOUR;
    case '4h':
      return Math.floor(ms / (4 * HOUR)) * 4 * HOUR;
    case '1d':
      return Math.floor(ms / DAY) * DAY;
    case '1w': {
      // Day 0 (1970-01-01) was a Thursday: Monday of its week is day -3.
      const day = Math.floor(ms / DAY);
      return (day - ((((day + 3) % 7) + 7) % 7)) * DAY;
    }
  }
}

/**
 * The earliest time a bucket of any size can start: observations are from 1970 on (data files),
 * and the week of 1970-01-01 starts on Monday 1969-12-29, three days before the epoch.
 */
export const EARLIEST_BUCKET_START = bucketStart('1w', 0);
