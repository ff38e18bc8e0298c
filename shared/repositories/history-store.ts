/**
 * Reads of the APY series of offers, outside every version: one item per raw observation and
 * one per 4h, 1d and 1w bucket (its last observation), in one partition per offer
 * (docs/data-model.md, "History"). A window is one Query of one series; each item is served as
 * the pointer the request reads publishes it (stored-items.ts, `servedValue`). Imports write them
 * with history-writer.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type HistoryFamily,
  historyPartition,
  historySortKey,
  msOfHistorySortKey,
  type SeriesResolution,
} from '../keys';
import { queryAll } from './query-all';
import { decodeHistory, servedValue } from './stored-items';

/** A raw observation: [timeMs, apy, tvl | null]. */
export type RawPoint = [number, string, string | null];
/** A bucket: [bucketStartMs, apy, tvl | null, lastObservationMs]. */
export type BucketPoint = [number, string, string | null, number];

export class HistoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * The raw observations of a series within [fromMs, toMs], in time order, as a pointer publishing
   * `historySeq` serves them (a promise: the query does not wait for the pointer).
   */
  async observations(
    family: HistoryFamily,
    id: number,
    fromMs: number,
    toMs: number,
    historySeq: number | Promise<number>,
  ): Promise<RawPoint[]> {
    const points = await this.query(family, id, 'RAW', fromMs, toMs, historySeq);
    return points.map(([ms, apy, tvl]) => [ms, apy, tvl]);
  }

  /** The buckets of a series whose start is within [fromMs, toMs], in time order (as `observations`). */
  buckets(
    family: HistoryFamily,
    id: number,
    resolution: Exclude<SeriesResolution, 'RAW'>,
    fromMs: number,
    toMs: number,
    historySeq: number | Promise<number>,
  ): Promise<BucketPoint[]> {
    return this.query(family, id, resolution, fromMs, toMs, historySeq);
  }

  private async query(
    family: HistoryFamily,
    id: number,
    resolution: SeriesResolution,
    fromMs: number,
    toMs: number,
    historySeq: number | Promise<number>,
  ): Promise<BucketPoint[]> {
    const [items, published] = await Promise.all([
      queryAll(this.client, {
        TableName: this.tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': historyPartition(family, id),
          ':from': historySortKey(resolution, fromMs),
          ':to': historySortKey(resolution, toMs),
        },
      }),
      historySeq,
    ]);
    const points: BucketPoint[] = [];
    for (const item of items) {
      const stored = decodeHistory(item);
      const value = servedValue(stored, published);
      if (value) points.push([msOfHistorySortKey(stored.key.SK), value.apy, value.tvl ?? null, value.at]);
    }
    return points;
  }
}
