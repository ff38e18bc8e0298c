/**
 * The worst batch history the 50,000-bucket rule allows (CONTRACT §12): every bucket of the window
 * stored, for every id, each item at its largest (a 64-character APY and TVL, both the committed
 * value and a later import's pending one, as a correction leaves it). Written straight into the
 * offers' series, item by item as the history writer encodes them.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { putItems } from '../../shared/data/batch-writer';
import { encodeHistory } from '../../shared/data/items/history';
import { type HistoryFamily, historyKey } from '../../shared/data/keys';
import { bucketStart, type Interval, SERIES } from '../../shared/domain/buckets';

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

/** Every bucket of the window for every id, written; the number of items. */
export async function writeDenseHistory(
  client: DynamoDBDocumentClient,
  tableName: string,
  batch: DenseBatch,
  /** The import whose pending value each item carries beside the committed one; none: the committed value alone. */
  seq: number | undefined,
): Promise<number> {
  const { bucketMs, stored } = SERIES[batch.interval];
  const items: Record<string, unknown>[] = [];
  for (const id of batch.ids)
    for (let start = bucketStart(batch.interval, batch.from); start <= batch.to; start += bucketMs) {
      const value = (n: number) => ({
        apy: longDecimal(n),
        ...(batch.family === 'earn' ? { tvl: longDecimal(n + 1) } : {}),
        at: start,
      });
      items.push(
        encodeHistory({
          key: historyKey(batch.family, id, stored, start),
          committed: value(start / bucketMs),
          ...(seq === undefined ? {} : { pending: { ...value(start / bucketMs + 7), seq } }),
        }),
      );
    }
  await putItems(items, { client, tableName });
  return items.length;
}
