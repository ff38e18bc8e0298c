/**
 * Writes of the APY series, by imports only (docs/data-model.md, "History"). An import writes under
 * its sequence number: each item it changes keeps the value served so far (`committed`) beside the
 * import's (`pending`), so nothing it writes is served before the pointer publishes its number,
 * and a failed import changes no answer. Before writing, it records what it writes in a journal,
 * from which the next import reverts it if it was never published.
 *
 * It reads the items it would write (consistent BatchGetItem) and writes only those that change
 * what is served, so re-sending stored observations writes nothing and the cost does not depend
 * on what is stored. The serving functions read with history-store.ts.
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { historyJournalKey, type Key } from '../keys';
import { getItems } from './batch-reader';
import { deleteItems, putItems } from './batch-writer';
import {
  decodeHistory,
  decodeJournal,
  encodeHistory,
  encodeJournal,
  HISTORY_ATTRIBUTES,
  type HistoryJournal,
  type HistoryValue,
  journalParts,
  type StoredHistory,
  servedValue,
} from './stored-items';

export type { HistoryJournal, JournalSeries } from './stored-items';

/** An observation or bucket an import would write. */
export interface HistoryCandidate extends HistoryValue {
  key: Key;
  expiresAt?: number;
}

export interface WriteResult {
  itemsRead: number;
  itemsWritten: number;
}

/** Under which numbers an import writes: the one the pointer publishes, and its own (the next). */
export interface HistorySequence {
  published: number;
  seq: number;
}

const sameValue = (a: HistoryValue, b: HistoryValue) => a.apy === b.apy && (a.tvl ?? null) === (b.tvl ?? null);
const keyOf = ({ PK, SK }: Key) => `${PK}\u0000${SK}`;

export class HistoryWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly concurrency = 8,
    /** false: read and count what would be written, write nothing. */
    private readonly writes = true,
  ) {}

  private get batch() {
    return { client: this.client, tableName: this.tableName, concurrency: this.concurrency };
  }

  /** The same writer that only reads: what an append would write, without writing it. */
  dryRun(): HistoryWriter {
    return new HistoryWriter(this.client, this.tableName, this.concurrency, false);
  }

  private async read(keys: Key[]): Promise<Map<string, StoredHistory>> {
    const items = await getItems(
      keys.map(({ PK, SK }) => ({ PK, SK })),
      { ...this.batch, projection: [...HISTORY_ATTRIBUTES], consistent: true },
    );
    const stored = new Map<string, StoredHistory>();
    for (const item of items) {
      const decoded = decodeHistory(item);
      stored.set(keyOf(decoded.key), decoded);
    }
    return stored;
  }

  /**
   * Write, under `seq`, the candidates that change what is served: an absent item, a later
   * observation for a bucket, or a different value at the same instant (a correction). An earlier
   * observation than a bucket's served one leaves the bucket as it is. Keys must be distinct.
   */
  async writeChanged(candidates: HistoryCandidate[], { published, seq }: HistorySequence): Promise<WriteResult> {
    if (candidates.length === 0) return { itemsRead: 0, itemsWritten: 0 };
    const stored = await this.read(candidates.map((c) => c.key));
    const writes: StoredHistory[] = [];
    for (const { key, expiresAt, ...value } of candidates) {
      const served = stored.has(keyOf(key)) ? servedValue(stored.get(keyOf(key))!, published) : undefined;
      if (served && (value.at < served.at || (value.at === served.at && sameValue(value, served)))) continue;
      writes.push({ key, ...(served ? { committed: served } : {}), pending: { ...value, seq }, expiresAt });
    }
    if (this.writes) await putItems(writes.map(encodeHistory), this.batch);
    return { itemsRead: candidates.length, itemsWritten: writes.length };
  }

  /**
   * Undo what an import that was never published wrote under `seq` at these keys: an item it
   * changed gets back the value it served, one it added is deleted. Returns the items changed.
   */
  async revert(keys: Key[], seq: number): Promise<number> {
    const stored = [...(await this.read(keys)).values()].filter((s) => s.pending?.seq === seq);
    const restore = stored.filter((s) => s.committed).map(({ pending: _, ...s }) => encodeHistory(s));
    const remove = stored.filter((s) => !s.committed).map((s) => ({ ...s.key }));
    await putItems(restore, this.batch);
    await deleteItems(remove, this.batch);
    return stored.length;
  }

  /** The journal of the last import that wrote history and how many items hold it, or undefined. */
  async readJournal(): Promise<(HistoryJournal & { parts: number }) | undefined> {
    const get = async (part: number) =>
      (
        await this.client.send(
          new GetCommand({ TableName: this.tableName, Key: historyJournalKey(part), ConsistentRead: true }),
        )
      ).Item;
    const head = await get(0);
    const parts = journalParts(head);
    if (!parts) return undefined;
    const rest = await Promise.all(Array.from({ length: parts.parts - 1 }, (_, i) => get(i + 1)));
    return { ...decodeJournal([head, ...rest]), parts: parts.parts };
  }

  /**
   * Record what an import is about to write: the parts after the first, then the head, so that a
   * head always names a whole journal. Replaces the previous journal. Returns the items written.
   */
  async writeJournal(journal: HistoryJournal): Promise<number> {
    const [head, ...rest] = encodeJournal(journal);
    await putItems(rest, this.batch);
    await putItems([head], this.batch);
    return rest.length + 1;
  }

  /** Drop the journal once what it names is reverted (the head first: a journal without it is none). */
  async deleteJournal(parts: number): Promise<void> {
    await deleteItems([{ ...historyJournalKey(0) }], this.batch);
    await deleteItems(
      Array.from({ length: parts - 1 }, (_, i) => ({ ...historyJournalKey(i + 1) })),
      this.batch,
    );
  }
}
