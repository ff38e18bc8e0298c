/**
 * The worst batch history the 50,000-bucket rule allows (CONTRACT §12): every bucket of the window
 * stored, for every id, each bucket at its largest (a 64-character APY and TVL of random digits,
 * which do not compress; with a later import's pending value beside the committed one, as a
 * correction of every bucket leaves it until that import settles). Written straight into the
 * offers' series, packed as the history writer packs them, then settled as that import settles them.
 */
import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { putItems } from '../../shared/data/batch-writer';
import { HistoryWriter } from '../../shared/data/history-writer';
import { encodeHistory, type StoredHistory } from '../../shared/data/items/history';
import { type HistoryFamily, historyKey } from '../../shared/data/keys';
import { bucketStart, type Interval, SERIES } from '../../shared/domain/buckets';
import { itemStart, SERIES_OF } from '../../shared/model/history-series';

/**
 * A decimal string of 64 characters (the largest a data file holds, CONTRACT §8) whose 63 digits
 * are drawn from SHA-256 of `seed` (independent, well-mixed, the same in every run).
 * @internal (exported for its tests)
 */
export function longDecimal(seed: string): string {
  let digits = '';
  for (let block = 0; digits.length < 63; block++)
    for (const byte of createHash('sha256').update(`${seed}#${block}`).digest())
      if (byte < 250) digits += String(byte % 10); // below 250: each digit equally likely
  return `${1 + (Number(digits[0]) % 9)}${digits.slice(1, 42)}.${digits.slice(42, 63)}`;
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
  /** When that import, published, settles them (history-plan.ts `settleHistory`: the items of spans ended by then); none: never. */
  settledAt?: number,
): Promise<number> {
  const { bucketMs, stored } = SERIES[batch.interval];
  const items = new Map<string, StoredHistory>();
  for (const id of batch.ids)
    for (let start = bucketStart(batch.interval, batch.from); start <= batch.to; start += bucketMs) {
      // Every value its own draw: no two repeat, within an item or across offers.
      const value = (role: string) => ({
        apy: longDecimal(`${id}:${start}:${role}:apy`),
        ...(batch.family === 'earn' ? { tvl: longDecimal(`${id}:${start}:${role}:tvl`) } : {}),
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
      item.committed.set(start, value('committed'));
      item.pending?.buckets.set(start, value('pending'));
    }
  await putItems([...items.values()].map(encodeHistory), { client, tableName });
  const ended = [...items.values()].filter((item) => item.start + bucketMs * SERIES_OF[stored].perItem <= settledAt!);
  if (seq !== undefined && settledAt !== undefined)
    await new HistoryWriter(client, tableName).settle(
      ended.map((item) => item.key),
      seq,
    );
  return items.size;
}
