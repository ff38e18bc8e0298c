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
import { getItems } from './batch-reader';
import { deleteItems, putItems } from './batch-writer';
import {
  decodeHistory,
  encodeHistory,
  HISTORY_ATTRIBUTES,
  type HistoryValue,
  type StoredHistory,
  servedValue,
} from './items/history';
import {
  decodeJournal,
  encodeJournal,
  type HistoryJournal,
  type JournalHead,
  journalHead,
} from './items/history-journal';
import { type HistoryFamily, historyJournalKey, historyPartition, historySortKey, type Key } from './keys';
import { queryAll } from './query-all';

export type { HistoryJournal, JournalHead, JournalSeries } from './items/history-journal';

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

export interface HistoryWriterOptions {
  concurrency?: number;
  /** Awaited before each batch write (an import holds its lease there, so a taken-over import stops writing). */
  beforeWrite?: () => Promise<void>;
  /** false: read and count what would be written, write nothing. */
  dryRun?: boolean;
}

/** The items at some keys as one consistent read found them: decided on, then written from (writeChanged). */
export class StoredItems {
  constructor(private readonly items: ReadonlyMap<string, StoredHistory>) {}

  get(key: Key): StoredHistory | undefined {
    return this.items.get(keyOf(key));
  }

  /** The value a pointer publishing `published` serves at `key` (none: absent, or not yet published). */
  served(key: Key, published: number): HistoryValue | undefined {
    const stored = this.get(key);
    return stored && servedValue(stored, published);
  }
}

export class HistoryWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: HistoryWriterOptions = {},
  ) {}

  private get batch() {
    return { client: this.client, tableName: this.tableName, concurrency: this.options.concurrency ?? 8 };
  }

  /** What every write is sent with: the batch, fenced by `beforeWrite`. */
  private get writes() {
    return { ...this.batch, beforeBatch: this.options.beforeWrite };
  }

  /** The same writer that only reads: what an append would write, without writing it. */
  dryRun(): HistoryWriter {
    return new HistoryWriter(this.client, this.tableName, { ...this.options, dryRun: true });
  }

  /** The items at these keys (distinct), as stored: one consistent read. */
  async readStored(keys: Key[]): Promise<StoredItems> {
    const items = await getItems(
      keys.map(({ PK, SK }) => ({ PK, SK })),
      { ...this.batch, projection: [...HISTORY_ATTRIBUTES], consistent: true },
    );
    const stored = new Map<string, StoredHistory>();
    for (const item of items) {
      const decoded = decodeHistory(item);
      stored.set(keyOf(decoded.key), decoded);
    }
    return new StoredItems(stored);
  }

  /** Does a pointer publishing `published` serve an item of this series' stored `resolution` (the observations) within [from, to)? */
  async observedIn(
    family: HistoryFamily,
    id: number,
    resolution: string,
    from: number,
    to: number,
    published: number,
  ): Promise<boolean> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': historyPartition(family, id),
        ':from': historySortKey(resolution, from),
        ':to': historySortKey(resolution, to - 1),
      },
      ConsistentRead: true,
    });
    return items.some((item) => servedValue(decodeHistory(item), published) !== undefined);
  }

  /**
   * Write, under `seq`, the candidates that change what is served: an absent item, a later
   * observation for a bucket, or a different value at the same instant (a correction). An earlier
   * observation than a bucket's served one leaves the bucket as it is. Keys must be distinct.
   */
  async writeChanged(
    candidates: HistoryCandidate[],
    { published, seq }: HistorySequence,
    read?: StoredItems,
  ): Promise<WriteResult> {
    if (candidates.length === 0) return { itemsRead: 0, itemsWritten: 0 };
    const stored = read ?? (await this.readStored(candidates.map((c) => c.key)));
    const writes: StoredHistory[] = [];
    for (const { key, expiresAt, ...value } of candidates) {
      const served = stored.served(key, published);
      // Against what this import already wrote there (a file's observation, then a recorded one), else
      // what is served. Not in a dry run: it comes before the import reverts a failed one, whose
      // values may still hold the same number.
      const pending = stored.get(key)?.pending;
      const current = !this.options.dryRun && pending?.seq === seq ? pending : served;
      if (current && (value.at < current.at || (value.at === current.at && sameValue(value, current)))) continue;
      writes.push({ key, ...(served ? { committed: served } : {}), pending: { ...value, seq }, expiresAt });
    }
    if (!this.options.dryRun) await putItems(writes.map(encodeHistory), this.writes);
    return { itemsRead: candidates.length, itemsWritten: writes.length };
  }

  /**
   * Undo what an import that was never published wrote under `seq` at these keys: an item it
   * changed gets back the value it served, one it added is deleted. Returns the items changed.
   */
  async revert(keys: Key[], seq: number): Promise<number> {
    const read = await this.readStored(keys);
    const stored = keys.flatMap((key) => read.get(key) ?? []).filter((s) => s.pending?.seq === seq);
    const restore = stored.filter((s) => s.committed).map(({ pending: _, ...s }) => encodeHistory(s));
    const remove = stored.filter((s) => !s.committed).map((s) => ({ ...s.key }));
    await putItems(restore, this.writes);
    await deleteItems(remove, this.writes);
    return stored.length;
  }

  /** The head of the journal of the last import that wrote history, or undefined. */
  async readJournalHead(): Promise<JournalHead | undefined> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: historyJournalKey(0, 0), ConsistentRead: true }),
    );
    return journalHead(out.Item);
  }

  /** The journal a head names (read only to revert it: a published journal's parts are never read). */
  async readJournal(head: JournalHead): Promise<HistoryJournal> {
    const parts = await Promise.all(
      Array.from({ length: head.parts }, async (_, part) => {
        const out = await this.client.send(
          new GetCommand({ TableName: this.tableName, Key: historyJournalKey(head.seq, part), ConsistentRead: true }),
        );
        return out.Item;
      }),
    );
    return decodeJournal(parts);
  }

  /**
   * Record what an import is about to write: the parts after the first, then the head, so that a
   * head always names a whole journal; then the parts of the journal it replaced (`previous`, a
   * published one). Returns the items written.
   */
  async writeJournal(journal: HistoryJournal, previous?: JournalHead): Promise<number> {
    const [head, ...rest] = encodeJournal(journal);
    await putItems(rest, this.writes);
    await putItems([head], this.writes);
    if (previous && previous.seq !== journal.seq) await this.deleteParts(previous);
    return rest.length + 1;
  }

  /** Drop a journal once what it names is reverted (the head first: a journal without it is none). */
  async deleteJournal(head: JournalHead): Promise<void> {
    await deleteItems([{ ...historyJournalKey(head.seq, 0) }], this.writes);
    await this.deleteParts(head);
  }

  private deleteParts({ seq, parts }: JournalHead): Promise<void> {
    return deleteItems(
      Array.from({ length: parts - 1 }, (_, i) => ({ ...historyJournalKey(seq, i + 1) })),
      this.writes,
    );
  }
}
