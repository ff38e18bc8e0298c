/**
 * Offer history (docs/api.md, "History"). Each window reads one stored series in one Query:
 * 1h windows bucket the raw observations, the others read their bucket series (the last
 * observation of each bucket, with its time). Only the bucket that contains `to` can hold
 * observations after `to` (data dated in the future); when it does, its value comes from the raw
 * observations (a second query, only then).
 */

import type { HistoryStore, PublishedHistory } from '../data/history-store';
import type { HistoryFamily, SeriesResolution } from '../data/keys';
import type { Stores } from '../data/stores';
import { NotFoundError } from '../platform/errors';
import { bucketStart, EARLIEST_BUCKET_START, type Interval, PERIOD_SPEC, type Period } from './buckets';
import type { BucketPoint, RawPoint } from './history-points';
import { offerExists } from './offers';

const ROLLUP_OF: Record<Exclude<Interval, '1h'>, Exclude<SeriesResolution, 'RAW'>> = {
  '4h': '4H',
  '1d': '1D',
  '1w': '1W',
};

/** Last observation of each 1h bucket, from raw observations in time order. */
function hourly(raw: RawPoint[]): BucketPoint[] {
  const buckets = new Map<number, BucketPoint>();
  for (const [ms, apy, tvl] of raw) buckets.set(bucketStart('1h', ms), [bucketStart('1h', ms), apy, tvl, ms]);
  return [...buckets.values()];
}

interface Window {
  from: number | undefined;
  to: number;
}

async function readPoints(
  history: HistoryStore,
  family: HistoryFamily,
  id: number,
  interval: Interval,
  { from, to }: Window,
  published: PublishedHistory,
): Promise<BucketPoint[]> {
  if (interval === '1h') return hourly(await history.observations(family, id, from!, to, published));
  const stored = await history.buckets(
    family,
    id,
    ROLLUP_OF[interval],
    from === undefined ? EARLIEST_BUCKET_START : bucketStart(interval, from),
    to,
    published,
  );
  const points = stored.filter(([, , , last]) => from === undefined || last >= from);
  const edge = points[points.length - 1];
  if (edge && edge[3] > to) {
    const raw = await history.observations(family, id, Math.max(from ?? edge[0], edge[0]), to, published);
    const last = raw[raw.length - 1];
    points.pop();
    if (last) points.push([edge[0], last[1], last[2], last[0]]);
  }
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

const iso = (ms: number) => new Date(ms).toISOString();

export async function getHistory(
  stores: Stores,
  family: HistoryFamily,
  id: number,
  period: Period,
  now: Date,
): Promise<string> {
  const { interval, windowMs } = PERIOD_SPEC[period];
  const to = now.getTime();
  const window = { from: windowMs === null ? undefined : to - windowMs, to };
  const [exists, points] = await Promise.all([
    offerExists(stores, family, id),
    // Served as the pointer this request reads publishes it (an import's history with its publish).
    readPoints(stores.history, family, id, interval, window, publishedHistory(stores)),
  ]);
  if (!exists) throw new NotFoundError(`No such ${family} offer.`);

  const from = window.from ?? (points.length > 0 ? points[0][0] : to);
  const data = points.map(([start, apy, tvl]) =>
    family === 'earn' ? { timestamp: iso(start), apy, tvl } : { timestamp: iso(start), apy },
  );
  return JSON.stringify({ period, interval, from: iso(from), to: iso(to), point_count: data.length, data });
}
