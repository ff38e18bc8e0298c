/**
 * Offer history (docs/api.md, "History"): a window (a period, or `from`/`to`, with its interval)
 * of one offer or of several. Each window reads the one stored series of its interval in one
 * Query (the shortest interval buckets the observations, every one of each hour stored). Only the bucket that contains `to`
 * can hold observations after `to`; its value is then the last observation at or before `to`,
 * read from the shorter series in parallel (their buckets up to `to`'s, then the hours' observations
 * of `to`'s last bucket of the next interval): at once when `to` is in the past, else only when
 * the read finds such a bucket (data dated in the future). A window answers what its series still
 * keep (shared/domain/buckets.ts, RETENTION_MS): no window is refused for reaching further.
 */

import type { HistoryStore, PublishedHistory } from '../data/history-store';
import type { HistoryFamily } from '../data/keys';
import type { Stores } from '../data/stores';
import { NotFoundError, ValidationError } from '../platform/errors';
import {
  bucketStart,
  EARLIEST_BUCKET_START,
  INTERVALS,
  type Interval,
  PERIOD_SPEC,
  PERIODS,
  type Period,
  SERIES,
  type SeriesResolution,
} from './buckets';
import type { BucketPoint } from './history-points';
import { publishedOfferIds } from './offers';

/** The period of a request that gives neither `period` nor `from`. */
export const DEFAULT_PERIOD: Period = '1m';
/** The most buckets a window may span. */
export const MAX_BUCKETS = 5_000;
/**
 * The most buckets one request of several offers answers in all: its ids times its window's
 * buckets (CONTRACT §12). What one budget unit can read is bounded by it (docs/api.md, "Costs").
 */
export const MAX_BATCH_BUCKETS = 50_000;

/** A history request's window parameters, as parsed (`from`, `to`: valid timestamps, CONTRACT §8). */
export interface WindowRequest {
  period?: Period;
  from?: string;
  to?: string;
  interval?: Interval;
}

/**
 * A window: `from` undefined = from the first point (`all`).
 * @internal (exported for its tests)
 */
export interface HistoryWindow {
  period: Period | 'custom';
  interval: Interval;
  from: number | undefined;
  to: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The interval of a custom window of this length: that of the shortest period at least as long. */
function defaultInterval(lengthMs: number): Interval {
  const period = PERIODS.find((p) => {
    const { windowMs } = PERIOD_SPEC[p];
    return windowMs === null || windowMs >= lengthMs;
  }) as Period;
  return PERIOD_SPEC[period].interval;
}

/** How many buckets of `interval` the window [from, to] touches. */
const bucketCount = (interval: Interval, from: number, to: number): number =>
  (bucketStart(interval, to) - bucketStart(interval, from)) / SERIES[interval].bucketMs + 1;

/**
 * The window of a request at `now` (docs/api.md, "Custom windows"), or a `validation_error` whose
 * messages name the parameters: `period` and `from`/`to` exclude each other; `to` needs `from`;
 * `from` before `to`; at most MAX_BUCKETS buckets. A window may reach further back than its
 * interval's series is kept: it then answers what is still stored (docs/api.md, "Retention").
 * @internal (exported for its tests)
 */
export function historyWindow(request: WindowRequest, now: number): HistoryWindow {
  const { period, interval } = request;
  const from = request.from === undefined ? undefined : Date.parse(request.from);
  const to = request.to === undefined ? undefined : Date.parse(request.to);
  if (period !== undefined && (from !== undefined || to !== undefined))
    throw new ValidationError([
      `period and ${from !== undefined ? 'from' : 'to'} must not be given together: give period, or from (and to)`,
    ]);
  if (from === undefined && to !== undefined) throw new ValidationError(['to must come with from']);
  if (from === undefined) {
    const named = period ?? DEFAULT_PERIOD;
    const { windowMs, interval: own } = PERIOD_SPEC[named];
    const chosen = interval ?? own;
    const window = { period: named, interval: chosen, from: windowMs === null ? undefined : now - windowMs, to: now };
    // `all` starts at its first point: retention keeps any interval's series under MAX_BUCKETS buckets.
    if (window.from !== undefined) checkCount(chosen, window.from, now);
    return window;
  }
  const end = to ?? now;
  if (from >= end) throw new ValidationError([`from must be earlier than to (${iso(from)} is not before ${iso(end)})`]);
  const chosen = interval ?? defaultInterval(end - from);
  checkCount(chosen, from, end);
  return { period: 'custom', interval: chosen, from, to: end };
}

const countMessage = (interval: Interval, count: number) =>
  `interval ${interval} gives ${count} buckets in this window: at most ${MAX_BUCKETS} (choose a longer interval or a shorter window)`;

function checkCount(interval: Interval, from: number, to: number): void {
  const count = bucketCount(interval, from, to);
  if (count > MAX_BUCKETS) throw new ValidationError([countMessage(interval, count)]);
}

/**
 * A request of several offers within MAX_BATCH_BUCKETS: the number of `ids` times the window's
 * buckets at its interval, those of `all` counted from the earliest bucket (the most it can
 * answer: its first point is known only once read); else a `validation_error` naming `ids` and
 * `interval`, with the count.
 */
function checkBatch(ids: number, window: HistoryWindow): void {
  const buckets = bucketCount(window.interval, window.from ?? EARLIEST_BUCKET_START, window.to);
  const total = ids * buckets;
  if (total > MAX_BATCH_BUCKETS)
    throw new ValidationError([
      `ids and interval give ${total} buckets in all (${ids} ids × ${buckets} buckets of ${window.interval}): at most ${MAX_BATCH_BUCKETS} (fewer ids, a longer interval or a shorter window)`,
    ]);
}

/** Last observation of each bucket, from observations (or buckets of a shorter interval) in time order. */
function lastOfEach(interval: Interval, points: BucketPoint[]): BucketPoint[] {
  const buckets = new Map<number, BucketPoint>();
  for (const [ms, apy, tvl, last] of points)
    buckets.set(bucketStart(interval, ms), [bucketStart(interval, ms), apy, tvl, last]);
  return [...buckets.values()];
}

/**
 * The last observation in [lo, to] within the bucket of `interval` that contains `to` (lo at or
 * after its start), from the shorter series: each one's buckets between the previous one's and
 * the bucket of `to` (that one too: its last observation counts when it is at or before `to`),
 * then the hours' observations. One parallel read. When every series still holds the bucket of `to`,
 * this is exact; when the shorter ones have expired, it is the latest observation at or before
 * `to` that the series still kept record (docs/api.md, "Retention"), or none.
 */
async function lastObservation(
  read: (series: SeriesResolution, from: number, to: number) => Promise<BucketPoint[]>,
  interval: Interval,
  lo: number,
  to: number,
): Promise<BucketPoint | undefined> {
  const shorter = INTERVALS.slice(0, INTERVALS.indexOf(interval)).reverse();
  const pieces: Promise<BucketPoint[]>[] = [];
  let start = lo;
  for (const step of shorter.slice(0, -1)) {
    pieces.push(read(SERIES[step].stored, bucketStart(step, start), to));
    start = Math.max(start, bucketStart(step, to));
  }
  pieces.push(read(SERIES[shorter[shorter.length - 1]].stored, start, to));
  const found = (await Promise.all(pieces)).flat().filter(([, , , last]) => last >= lo && last <= to);
  return found.reduce<BucketPoint | undefined>(
    (latest, p) => (latest === undefined || p[3] > latest[3] ? p : latest),
    undefined,
  );
}

async function readPoints(
  history: HistoryStore,
  family: HistoryFamily,
  id: number,
  { interval, from, to }: HistoryWindow,
  published: PublishedHistory,
  now: number,
): Promise<BucketPoint[]> {
  const read = (series: SeriesResolution, fromMs: number, toMs: number) =>
    history.series(family, id, series, fromMs, toMs, published);
  const { stored } = SERIES[interval];
  if (interval === INTERVALS[0]) return lastOfEach(interval, await read(stored, from ?? EARLIEST_BUCKET_START, to));
  const edgeStart = bucketStart(interval, to);
  const lo = Math.max(from ?? edgeStart, edgeStart);
  // A window that ends in the past: the bucket of `to` likely holds later observations.
  const early = to < now ? lastObservation(read, interval, lo, to) : undefined;
  const stored_ = await read(stored, from === undefined ? EARLIEST_BUCKET_START : bucketStart(interval, from), to);
  const points = stored_.filter(([, , , last]) => from === undefined || last >= from);
  const edge = points[points.length - 1];
  if (edge && edge[3] > to) {
    points.pop();
    const last = await (early ?? lastObservation(read, interval, lo, to));
    if (last) points.push([edge[0], last[1], last[2], last[3]]);
  } else if (early) await early;
  return points;
}

/** The pointer's history number for one request: cached, then as stored once an item proves the cache stale. */
function publishedHistory(stores: Stores): PublishedHistory {
  let seq = stores.snapshot.versions().then((v) => v.historySeq);
  return {
    seq: () => seq,
    reread: () => {
      seq = stores.snapshot.reload().then((v) => v.historySeq);
      return seq;
    },
  };
}

/**
 * The reads of one answer under one history number: they run at once, so one that finds the
 * cached pointer stale (and reads it again) may end after another has used the cached number;
 * the answer is then read again under the number now known (twice at most: a publish each).
 */
async function underOneNumber<T>(published: PublishedHistory, read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const seq = await published.seq();
    const result = await read();
    if (attempt === 2 || (await published.seq()) === seq) return result;
  }
}

/** One offer's window as answered (its `id` first when it is an entry of several). */
function answerOf(family: HistoryFamily, window: HistoryWindow, points: BucketPoint[]) {
  const from = window.from ?? (points.length > 0 ? points[0][0] : window.to);
  const data = points.map(([start, apy, tvl]) =>
    family === 'earn' ? { timestamp: iso(start), apy, tvl } : { timestamp: iso(start), apy },
  );
  return {
    period: window.period,
    interval: window.interval,
    from: iso(from),
    to: iso(window.to),
    point_count: data.length,
    data,
  };
}

export async function getHistory(
  stores: Stores,
  family: HistoryFamily,
  id: number,
  request: WindowRequest,
  now: Date,
): Promise<string> {
  const window = historyWindow(request, now.getTime());
  const history = publishedHistory(stores);
  const [published, points] = await Promise.all([
    publishedOfferIds(stores, family, [id]),
    // Served as the pointer this request reads publishes it (an import's history with its publish).
    underOneNumber(history, () => readPoints(stores.history, family, id, window, history, now.getTime())),
  ]);
  if (published.length === 0) throw new NotFoundError(`No such ${family} offer.`);
  return JSON.stringify(answerOf(family, window, points));
}

/**
 * The windows of several offers (docs/api.md, "History of several offers"): one entry per
 * published id in the order of `ids`, the others left out. The index says which are published
 * (no read); their windows are read at once, each as one offer's would be.
 */
export async function getHistories(
  stores: Stores,
  family: HistoryFamily,
  ids: readonly number[],
  request: WindowRequest,
  now: Date,
): Promise<string> {
  const window = historyWindow(request, now.getTime());
  checkBatch(ids.length, window);
  const published = publishedHistory(stores);
  const served = await publishedOfferIds(stores, family, ids);
  const points = await underOneNumber(published, () =>
    Promise.all(served.map((id) => readPoints(stores.history, family, id, window, published, now.getTime()))),
  );
  return JSON.stringify({ data: served.map((id, i) => ({ id, ...answerOf(family, window, points[i]) })) });
}
