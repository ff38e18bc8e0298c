/**
 * Offer history (CONTRACT §5). The import stored raw observations in day chunks and the 4h, 1d
 * and 1w rollups (last observation of each bucket, with its time) in month and year chunks, so a
 * window reads a handful of items in one query: 1h windows bucket the raw day chunks, the others
 * trim their rollup. Only the bucket that contains `to` can hold observations after `to`; when it
 * does, its value comes from the raw observations (a second query, only then).
 */
import { bucketStart, chunkOf, PERIOD_SPEC, type Interval, type Period } from './buckets';
import { historyChunkSortKey, historyPartition, offerKey, type HistoryFamily, type SeriesResolution } from '../keys';
import type { BucketPoint, RawPoint } from '../import/project';
import { NotFoundError } from '../errors';
import type { StoredItem, ViewStore } from '../repositories/view-store';
import type { Stores } from '../stores';

const ROLLUP_OF: Record<Exclude<Interval, '1h'>, Exclude<SeriesResolution, 'RAW'>> = { '4h': '4H', '1d': '1D', '1w': '1W' };

/** Sort key bounds of the chunks of one series that cover [from, to]. */
function chunkRange(resolution: SeriesResolution, from: number | undefined, to: number): [string, string] {
  const chunk = chunkOf[resolution];
  const low = from === undefined ? '' : chunk(from);
  // `~` sorts after every chunk suffix (`#000`), so the last chunk is included whole.
  return [historyChunkSortKey(resolution, low), historyChunkSortKey(resolution, `${chunk(to)}~`)];
}

const pointsOf = <T>(items: StoredItem[]): T[] => items.flatMap((item) => JSON.parse(item.pts as string) as T[]);

async function rawBetween(views: ViewStore, pk: string, from: number, to: number): Promise<RawPoint[]> {
  const [low, high] = chunkRange('RAW', from, to);
  return pointsOf<RawPoint>(await views.partitionRange(pk, low, high)).filter(([ms]) => ms >= from && ms <= to);
}

/** Last observation of each 1h bucket, from raw observations within [from, to]. */
function hourly(raw: RawPoint[]): BucketPoint[] {
  const buckets = new Map<number, BucketPoint>();
  for (const [ms, apy, tvl] of raw) buckets.set(bucketStart('1h', ms), [bucketStart('1h', ms), apy, tvl, ms]);
  return [...buckets.values()];
}

interface Window {
  from: number | undefined;
  to: number;
}

async function readPoints(views: ViewStore, pk: string, interval: Interval, { from, to }: Window): Promise<BucketPoint[]> {
  if (interval === '1h') return hourly(await rawBetween(views, pk, from!, to));
  const resolution = ROLLUP_OF[interval];
  const [low, high] = chunkRange(resolution, from, to);
  const stored = pointsOf<BucketPoint>(await views.partitionRange(pk, low, high));
  const points = stored.filter(([start, , , last]) => start <= to && (from === undefined || last >= from));
  const edge = points[points.length - 1];
  if (edge && edge[3] > to) {
    const raw = await rawBetween(views, pk, Math.max(from ?? edge[0], edge[0]), to);
    const last = raw[raw.length - 1];
    points.pop();
    if (last) points.push([edge[0], last[1], last[2], last[0]]);
  }
  return points;
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function getHistory({ snapshot, views }: Stores, family: HistoryFamily, id: number, period: Period, now: Date): Promise<string> {
  const version = await snapshot.version();
  const { interval, windowMs } = PERIOD_SPEC[period];
  const to = now.getTime();
  const window = { from: windowMs === null ? undefined : to - windowMs, to };
  const pk = historyPartition(version, family, id);
  const [offer, points] = await Promise.all([views.getItem(offerKey(version, family, id)), readPoints(views, pk, interval, window)]);
  if (!offer) throw new NotFoundError(`No such ${family} offer.`);

  const from = window.from ?? (points.length > 0 ? points[0][0] : to);
  const data = points.map(([start, apy, tvl]) => (family === 'earn' ? { timestamp: iso(start), apy, tvl } : { timestamp: iso(start), apy }));
  return JSON.stringify({ period, interval, from: iso(from), to: iso(to), point_count: data.length, data });
}
