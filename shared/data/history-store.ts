/**
 * Reads of the APY series of offers, outside every version: one item per raw observation and
 * one per bucket of each stored series (its last observation; shared/domain/buckets.ts), in one partition per offer
 * (docs/data-model.md, "History"). A window is one Query of one series; each item is served as
 * the pointer the request reads publishes it (items/history.ts, `servedValue`). Imports write them
 * with history-writer.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { decodeHistory, servedValue } from './items/history';
import { type HistoryFamily, historyPartition, historySortKey, msOfHistorySortKey } from './keys';
import { queryAll } from './query-all';

/** A raw observation: [timeMs, apy, tvl | null]. */
export type RawPoint = [number, string, string | null];
/** A bucket: [bucketStartMs, apy, tvl | null, lastObservationMs]. */
export type BucketPoint = [number, string, string | null, number];

/**
 * Which imports' history a read serves: the sequence number of the pointer the request reads
 * (`seq`, cached like the versions), and a way to read the pointer again (`reread`). An item written
 * by an import two numbers past the cached one proves a later publish the cache has not seen (that
 * import wrote the values of the one before it as committed): the read then takes the pointer as
 * stored, so one answer never mixes two imports.
 */
export interface PublishedHistory {
  seq(): Promise<number>;
  reread(): Promise<number>;
}

export class HistoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * The items of one stored series (`resolution`: its sort-key prefix) whose time (an observation's,
   * a bucket's start) is within [fromMs, toMs], in time order, as `published` serves them (the
   * query does not wait for the pointer). A raw observation's last time is its own.
   */
  series(
    family: HistoryFamily,
    id: number,
    resolution: string,
    fromMs: number,
    toMs: number,
    published: PublishedHistory,
  ): Promise<BucketPoint[]> {
    return this.query(family, id, resolution, fromMs, toMs, published);
  }

  private async query(
    family: HistoryFamily,
    id: number,
    resolution: string,
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
    const seq = stored.some((s) => s.pending && s.pending.seq > cachedSeq + 1) ? await published.reread() : cachedSeq;
    const points: BucketPoint[] = [];
    for (const s of stored) {
      const value = servedValue(s, seq);
      if (value) points.push([msOfHistorySortKey(s.key.SK), value.apy, value.tvl ?? null, value.at]);
    }
    return points;
  }
}
