/**
 * Appends to the APY series (docs/data-model.md, "History: append-only series"): reads the items
 * it would write (consistent BatchGetItem) and writes only those that change what is stored, so
 * re-sending stored observations writes nothing and the cost does not depend on what is stored.
 * Used by imports only; the serving functions read with history-store.ts.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OBSERVED_AT_ATTRIBUTE } from '../keys';
import { getItems } from './batch-reader';
import { putItems } from './batch-writer';
import type { HistoryItem } from './history-store';

export interface WriteResult {
  itemsRead: number;
  itemsWritten: number;
}

const sameValue = (a: HistoryItem, b: Record<string, unknown>) =>
  a.apy === b.apy && (a.tvl ?? null) === ((b.tvl as string | null | undefined) ?? null);
const keyOf = (k: Record<string, unknown>) => `${k.PK as string}\u0000${k.SK as string}`;

export class HistoryWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly concurrency = 8,
    /** false: read and count what would be written, write nothing. */
    private readonly writes = true,
  ) {}

  /** The same writer that only reads: what an append would write, without writing it. */
  dryRun(): HistoryWriter {
    return new HistoryWriter(this.client, this.tableName, this.concurrency, false);
  }

  /**
   * Write the candidates that change what is stored: an absent item, a later observation for a
   * bucket, or a different value at the same instant (a correction). An earlier observation than
   * a bucket's stored one leaves the bucket as it is. Keys must be distinct.
   */
  async writeChanged(candidates: HistoryItem[]): Promise<WriteResult> {
    if (candidates.length === 0) return { itemsRead: 0, itemsWritten: 0 };
    const stored = await getItems(
      candidates.map(({ PK, SK }) => ({ PK, SK })),
      {
        client: this.client,
        tableName: this.tableName,
        concurrency: this.concurrency,
        projection: ['PK', 'SK', 'apy', 'tvl', OBSERVED_AT_ATTRIBUTE],
        consistent: true,
      },
    );
    const byKey = new Map(stored.map((s) => [keyOf(s), s]));
    const writes = candidates.filter((c) => {
      const existing = byKey.get(keyOf(c));
      if (!existing) return true;
      const storedAt = existing[OBSERVED_AT_ATTRIBUTE] as number;
      return c[OBSERVED_AT_ATTRIBUTE] > storedAt || (c[OBSERVED_AT_ATTRIBUTE] === storedAt && !sameValue(c, existing));
    });
    if (this.writes)
      await putItems(writes, { client: this.client, tableName: this.tableName, concurrency: this.concurrency });
    return { itemsRead: candidates.length, itemsWritten: writes.length };
  }
}
