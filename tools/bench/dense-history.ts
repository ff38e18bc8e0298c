/**
 * The worst batch history the 50,000-bucket rule allows (CONTRACT §12): every bucket of the window
 * stored, for every id, each bucket at its largest (a 64-character APY and TVL, both the committed
 * value and a later import's pending one, as a correction of every bucket leaves it). Written
 * straight into the offers' series, packed as the history writer packs them.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { putItems } from '../../shared/data/batch-writer';
import { encodeHistory, type StoredHistory } from '../../shared/data/items/history';
import { type HistoryFamily, historyKey } from '../../shared/data/keys';
import { bucketStart, type Interval, SERIES } from '../../shared/domain/buckets';
import { itemStart } from '../../shared/model/history-series';

/** A decimal string of 64 characters (the largest a data file holds, CONTRACT §8), varying with `n`. */
function longDecimal(n: number): string {
  return `9${String(Math.abs(Math.floor(n)) % 10 ** 11).padStart(11, '0')}${'7'.repeat(31)}.${'3'.repeat(19)}1`;
}

export interface DenseBatch {
  family: HistoryFamily;
  ids: readonly number[];
  interval: Interval;
  /** The window's first and last bucket start (epoch ms): every bucket between them is stored. */
  from: number;
  to: number;
}

/** Every bucket of the window for every id, written; the number of items (each packs a span of buckets). */
export async function writeDenseHistory(
  client: DynamoDBDocumentClient,
  tableName: string,
  batch: DenseBatch,
  /** The import whose pending value each bucket carries beside the committed one; none: the committed value alone. */
  seq: number | undefined,
): Promise<number> {
  const { bucketMs, stored } = SERIES[batch.interval];
  const items = new Map<string, StoredHistory>();
  for (const id of batch.ids)
    for (let start = bucketStart(batch.interval, batch.from); start <= batch.to; start += bucketMs) {
      const value = (n: number) => ({
        apy: longDecimal(n),
        ...(batch.family === 'earn' ? { tvl: longDecimal(n + 1) } : {}),
        at: start,
      });
      const key = historyKey(batch.family, id, stored, start);
      const item = items.get(key.SK + key.PK) ?? {
        key,
        resolution: stored,
        start: itemStart(stored, start),
        committed: new Map(),
        ...(seq === undefined ? {} : { pending: { seq, buckets: new Map() } }),
      };
      items.set(key.SK + key.PK, item);
      item.committed.set(start, value(start / bucketMs));
      item.pending?.buckets.set(start, value(start / bucketMs + 7));
    }
  await putItems([...items.values()].map(encodeHistory), { client, tableName });
  return items.size;
}
