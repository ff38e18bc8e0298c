/**
 * The APY series of offers, outside every version: one item per raw observation and one per
 * 4h, 1d and 1w bucket (its last observation), in one partition per offer. Writing reads the
 * items it would write and writes only those that change, so re-sending stored observations
 * writes nothing, whatever is stored (docs/data-model.md, "History"). A window is one Query of
 * one series.
 */
import { type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { historyPartition, historySortKey, msOfHistorySortKey, OBSERVED_AT_ATTRIBUTE, type HistoryFamily, type Key, type SeriesResolution } from '../keys';
import { DECIMAL_PATTERN } from '../decimal';
import { CorruptDataError } from '../errors';
import { TTL_ATTRIBUTE } from '../table';
import { getItems } from './batch-reader';
import { putItems } from './batch-writer';
import { queryAll } from './query-all';

/** A raw observation: [timeMs, apy, tvl | null]. */
export type RawPoint = [number, string, string | null];
/** A bucket: [bucketStartMs, apy, tvl | null, lastObservationMs]. */
export type BucketPoint = [number, string, string | null, number];

/** A stored observation or bucket; `at` is the observation's time (a bucket's last one). */
export type HistoryItem = Key & { apy: string; tvl?: string | null; [OBSERVED_AT_ATTRIBUTE]: number; [TTL_ATTRIBUTE]?: number; [attribute: string]: unknown };

export interface WriteResult {
  itemsRead: number;
  itemsWritten: number;
}

const sameValue = (a: HistoryItem, b: Record<string, unknown>) => a.apy === b.apy && (a.tvl ?? null) === ((b.tvl as string | null | undefined) ?? null);
const keyOf = (k: Record<string, unknown>) => `${k.PK as string}\u0000${k.SK as string}`;

export class HistoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly concurrency = 8,
    /** false: read and count what would be written, write nothing. */
    private readonly writes = true,
  ) {}

  /** The same store that only reads: what an append would write, without writing it. */
  dryRun(): HistoryStore {
    return new HistoryStore(this.client, this.tableName, this.concurrency, false);
  }

  /**
   * Write the candidates that change what is stored: an absent item, a later observation for a
   * bucket, or a different value at the same instant (a correction). An earlier observation than
   * a bucket's stored one leaves the bucket as it is. Keys must be distinct.
   */
  async writeChanged(candidates: HistoryItem[]): Promise<WriteResult> {
    if (candidates.length === 0) return { itemsRead: 0, itemsWritten: 0 };
    const stored = await getItems(candidates.map(({ PK, SK }) => ({ PK, SK })), {
      client: this.client,
      tableName: this.tableName,
      concurrency: this.concurrency,
      projection: ['PK', 'SK', 'apy', 'tvl', OBSERVED_AT_ATTRIBUTE],
      consistent: true,
    });
    const byKey = new Map(stored.map((s) => [keyOf(s), s]));
    const writes = candidates.filter((c) => {
      const existing = byKey.get(keyOf(c));
      if (!existing) return true;
      const storedAt = existing[OBSERVED_AT_ATTRIBUTE] as number;
      return c[OBSERVED_AT_ATTRIBUTE] > storedAt || (c[OBSERVED_AT_ATTRIBUTE] === storedAt && !sameValue(c, existing));
    });
    if (this.writes) await putItems(writes, { client: this.client, tableName: this.tableName, concurrency: this.concurrency });
    return { itemsRead: candidates.length, itemsWritten: writes.length };
  }

  /** The raw observations of a series within [fromMs, toMs], in time order. */
  async observations(family: HistoryFamily, id: number, fromMs: number, toMs: number): Promise<RawPoint[]> {
    const items = await this.query(family, id, 'RAW', fromMs, toMs);
    return items.map((i) => [msOfHistorySortKey(i.SK), i.apy, i.tvl ?? null]);
  }

  /** The buckets of a series whose start is within [fromMs, toMs], in time order. */
  async buckets(family: HistoryFamily, id: number, resolution: Exclude<SeriesResolution, 'RAW'>, fromMs: number, toMs: number): Promise<BucketPoint[]> {
    const items = await this.query(family, id, resolution, fromMs, toMs);
    return items.map((i) => [msOfHistorySortKey(i.SK), i.apy, i.tvl ?? null, i[OBSERVED_AT_ATTRIBUTE]]);
  }

  private async query(family: HistoryFamily, id: number, resolution: SeriesResolution, fromMs: number, toMs: number): Promise<HistoryItem[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': historyPartition(family, id),
        ':from': historySortKey(resolution, Math.max(0, fromMs)),
        ':to': historySortKey(resolution, toMs),
      },
    });
    for (const item of items) {
      const { apy, tvl } = item;
      const at = item[OBSERVED_AT_ATTRIBUTE];
      const decimal = (value: unknown) => typeof value === 'string' && DECIMAL_PATTERN.test(value);
      if (!decimal(apy) || !(tvl === undefined || tvl === null || decimal(tvl)) || typeof at !== 'number' || !Number.isSafeInteger(at)) {
        throw new CorruptDataError(`history item ${String(item.PK)} ${String(item.SK)} is not an observation`);
      }
    }
    return items as HistoryItem[];
  }
}
