/**
 * Reads of the APY series of offers, outside every version: each stored series (shared/model/history-series.ts)
 * packs its buckets, each its last observation, into one item per aligned span, in one partition
 * per offer (docs/data-model.md, "History"). A window is one Query of one series' items; each
 * item is served as the pointer the request reads publishes it (items/history.ts, `servedBuckets`).
 * Imports write them with history-writer.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { RAW_SERIES, type SeriesResolution } from '../model/history-series';
import { committedThrough, decodeHistory, type StoredHistory, servedBuckets } from './items/history';
import { type HistoryFamily, historyPartition, historySortKey } from './keys';
import { queryAll } from './query-all';

/** A raw observation: [timeMs, apy, tvl | null]. */
export type RawPoint = [number, string, string | null];
/** A bucket: [bucketStartMs, apy, tvl | null, lastObservationMs]. */
export type BucketPoint = [number, string, string | null, number];

/**
 * Which imports' history a read serves: the sequence number of the pointer the request reads
 * (`seq`, cached like the versions), and a way to read the pointer again (`reread`). An item whose
 * committed buckets may hold a later import's values (items/history.ts `committedThrough`: written
 * by an import two numbers past the cached one, or settled by a later one) proves a publish the
 * cache has not seen: the read then takes the pointer as stored, so one answer never mixes two imports.
 */
export interface PublishedHistory {
  seq(): Promise<number>;
  reread(): Promise<number>;
}

/**
 * The points of stored items as a pointer publishing `seq` serves them, in time order: each
 * bucket's [start, apy, tvl, at]; the observations' series (every observation of each hour) as observations, [at, apy, tvl, at].
 */
export function servedPoints(items: readonly StoredHistory[], seq: number): BucketPoint[] {
  const points: BucketPoint[] = [];
  for (const item of items)
    for (const [start, { apy, tvl, at }] of [...servedBuckets(item, seq)].sort(([a], [b]) => a - b))
      points.push([item.resolution === RAW_SERIES ? at : start, apy, tvl ?? null, at]);
  return points;
}

export class HistoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * The points of one stored series whose time (an observation's, a bucket's start) is within
   * [fromMs, toMs], in time order, as `published` serves them (the query does not wait for the
   * pointer). An observation's last time is its own.
   */
  async series(
    family: HistoryFamily,
    id: number,
    resolution: SeriesResolution,
    fromMs: number,
    toMs: number,
    published: PublishedHistory,
  ): Promise<BucketPoint[]> {
    const [items, cachedSeq] = await Promise.all([
      queryAll(this.client, {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': historyPartition(family, id),
          ':from': historySortKey(resolution, fromMs),
          ':to': historySortKey(resolution, toMs),
        },
      }),
      published.seq(),
    ]);
    const stored = items.map(decodeHistory);
    const seq = stored.some((s) => committedThrough(s) > cachedSeq) ? await published.reread() : cachedSeq;
    return servedPoints(stored, seq).filter(([time]) => time >= fromMs && time <= toMs);
  }
}
