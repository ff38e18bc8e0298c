/**
 * Reads of the APY series of offers, outside every version: one item per raw observation and
 * one per 4h, 1d and 1w bucket (its last observation), in one partition per offer
 * (docs/data-model.md, "History: append-only series"). A window is one Query of one series.
 * Imports write them with history-writer.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DECIMAL_PATTERN } from '../decimal';
import { CorruptDataError } from '../errors';
import {
  type HistoryFamily,
  historyPartition,
  historySortKey,
  type Key,
  msOfHistorySortKey,
  OBSERVED_AT_ATTRIBUTE,
  type SeriesResolution,
} from '../keys';
import { TTL_ATTRIBUTE } from '../table';
import { queryAll } from './query-all';

/** A raw observation: [timeMs, apy, tvl | null]. */
export type RawPoint = [number, string, string | null];
/** A bucket: [bucketStartMs, apy, tvl | null, lastObservationMs]. */
export type BucketPoint = [number, string, string | null, number];

/** A stored observation or bucket; `at` is the observation's time (a bucket's last one). */
export type HistoryItem = Key & {
  apy: string;
  tvl?: string | null;
  [OBSERVED_AT_ATTRIBUTE]: number;
  [TTL_ATTRIBUTE]?: number;
  [attribute: string]: unknown;
};

export class HistoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The raw observations of a series within [fromMs, toMs], in time order. */
  async observations(family: HistoryFamily, id: number, fromMs: number, toMs: number): Promise<RawPoint[]> {
    const items = await this.query(family, id, 'RAW', fromMs, toMs);
    return items.map((i) => [msOfHistorySortKey(i.SK), i.apy, i.tvl ?? null]);
  }

  /** The buckets of a series whose start is within [fromMs, toMs], in time order. */
  async buckets(
    family: HistoryFamily,
    id: number,
    resolution: Exclude<SeriesResolution, 'RAW'>,
    fromMs: number,
    toMs: number,
  ): Promise<BucketPoint[]> {
    const items = await this.query(family, id, resolution, fromMs, toMs);
    return items.map((i) => [msOfHistorySortKey(i.SK), i.apy, i.tvl ?? null, i[OBSERVED_AT_ATTRIBUTE]]);
  }

  private async query(
    family: HistoryFamily,
    id: number,
    resolution: SeriesResolution,
    fromMs: number,
    toMs: number,
  ): Promise<HistoryItem[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': historyPartition(family, id),
        ':from': historySortKey(resolution, fromMs),
        ':to': historySortKey(resolution, toMs),
      },
    });
    for (const item of items) {
      const { apy, tvl } = item;
      const at = item[OBSERVED_AT_ATTRIBUTE];
      const decimal = (value: unknown) => typeof value === 'string' && DECIMAL_PATTERN.test(value);
      if (
        !decimal(apy) ||
        !(tvl === undefined || tvl === null || decimal(tvl)) ||
        typeof at !== 'number' ||
        !Number.isSafeInteger(at)
      ) {
        throw new CorruptDataError(`history item ${String(item.PK)} ${String(item.SK)} is not an observation`);
      }
    }
    return items as HistoryItem[];
  }
}
