/**
 * Writes of the APY series, by imports only (docs/data-model.md, "History"; docs/adr/0029-packed-history.md).
 * An import writes under its sequence number: each item it changes keeps the buckets served so far
 * (`committed`) beside the import's (`pending`), so nothing is served before the pointer publishes
 * its number; a journal written first lets the next import revert one never published. It reads
 * the items it would write (consistent BatchGetItem) and writes only those that change what is
 * served, under a lease (one writer at a time), so putting an item back whole is safe; once
 * published, it settles its corrections (`settle`). The serving functions read with history-store.ts.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { itemStart, type SeriesResolution } from '../model/history-series';
import { isConditionFailure } from '../platform/dynamodb';
import { groupBy } from '../platform/group-by';
import { getItems } from './batch-reader';
import { deleteItems, putItems } from './batch-writer';
import { eachBatch } from './batches';
import { BODY } from './items/content';
import {
  type Buckets,
  decodeHistory,
  encodeHistory,
  HISTORY_ATTRIBUTES,
  type HistoryValue,
  type StoredHistory,
  servedBuckets,
} from './items/history';
import {
  decodeJournal,
  encodeJournal,
  type HistoryJournal,
  type JournalHead,
  journalHead,
} from './items/history-journal';
import { historyJournalKey, type Key } from './keys';

export type { HistoryJournal, JournalHead, JournalSeries } from './items/history-journal';

/** A bucket an import would write: its value, the item that holds it (`key`), its series and entry. */
export interface HistoryCandidate extends HistoryValue {
  key: Key;
  resolution: SeriesResolution;
  /** Its entry in the item (items/history.ts `Buckets`): the observation's time in `1H`, else its bucket's start. */
  start: number;
  /** When its item may expire (epoch seconds: no window reaches any bucket of its span any more); none: kept for ever. */
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
const candidateValue = ({ apy, tvl, at }: HistoryCandidate): HistoryValue =>
  tvl === undefined ? { apy, at } : { apy, tvl, at };

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

  /** How many items were found. */
  get size(): number {
    return this.items.size;
  }

  /** The times of the entries a pointer publishing `published` serves in the item at `key` (observations in `1H`, else buckets' starts). */
  servedTimes(key: Key, published: number): number[] {
    const stored = this.get(key);
    return stored ? [...servedBuckets(stored, published).keys()] : [];
  }
}

/**
 * The item that writes `candidates` (buckets of the item `before` holds, or of a new one) under `seq`:
 * the buckets served so far as committed (published pending ones folded in), this import's as pending.
 * None when no candidate changes what is served: a later observation for a bucket (in `1H`: a new
 * time), or a different value at the same instant (a correction), changes it; an earlier one does not.
 * `own`: compare with what this import already wrote there.
 */
function merged(
  before: StoredHistory | undefined,
  candidates: readonly HistoryCandidate[],
  { published, seq }: HistorySequence,
  own: boolean,
): StoredHistory | undefined {
  const served: Buckets = before ? servedBuckets(before, published) : new Map();
  const pending: Buckets = new Map(own && before?.pending?.seq === seq ? before.pending.buckets : []);
  let changed = false;
  for (const candidate of candidates) {
    const current = pending.get(candidate.start) ?? served.get(candidate.start);
    if (current && (candidate.at < current.at || (candidate.at === current.at && sameValue(candidate, current))))
      continue;
    pending.set(candidate.start, candidateValue(candidate));
    changed = true;
  }
  if (!changed) return undefined;
  const { key, resolution, start, expiresAt } = candidates[0]!;
  return {
    key,
    resolution,
    start: itemStart(resolution, start),
    committed: served,
    pending: { seq, buckets: pending },
    expiresAt,
  };
}

export class HistoryWriter {
  /** The items written whose pending buckets replace committed ones (corrections: settled once published). */
  readonly corrected = new Map<string, Key>();

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

  /** The items at these keys as stored (one consistent read), raw. */
  private readRaw(keys: Key[]): Promise<Record<string, unknown>[]> {
    const distinct = new Map(keys.map(({ PK, SK }) => [keyOf({ PK, SK }), { PK, SK }]));
    return getItems([...distinct.values()], { ...this.batch, projection: [...HISTORY_ATTRIBUTES], consistent: true });
  }

  /** The items at these keys, as stored: one consistent read. */
  async readStored(keys: Key[]): Promise<StoredItems> {
    const decoded = (await this.readRaw(keys)).map(decodeHistory);
    return new StoredItems(new Map(decoded.map((item) => [keyOf(item.key), item])));
  }

  /**
   * Write, under `seq`, the items whose candidates change what is served (merged, above); one
   * candidate a bucket. Not against this import's own pending values in a dry run: it comes before
   * the import reverts a failed one, whose values may still hold the same number.
   */
  async writeChanged(
    candidates: HistoryCandidate[],
    sequence: HistorySequence,
    read?: StoredItems,
  ): Promise<WriteResult> {
    if (candidates.length === 0) return { itemsRead: 0, itemsWritten: 0 };
    const byItem = groupBy(candidates, (c) => keyOf(c.key));
    const stored = read ?? (await this.readStored(candidates.map((c) => c.key)));
    const writes: StoredHistory[] = [];
    for (const group of byItem.values()) {
      const item = merged(stored.get(group[0]!.key), group, sequence, !this.options.dryRun);
      if (item) writes.push(item);
      if (item && !this.options.dryRun && [...item.pending!.buckets.keys()].some((t) => item.committed.has(t)))
        this.corrected.set(keyOf(item.key), item.key);
    }
    if (!this.options.dryRun) await putItems(writes.map(encodeHistory), this.writes);
    return { itemsRead: byItem.size, itemsWritten: writes.length };
  }

  /**
   * Undo what an import that was never published wrote under `seq` at these keys: an item it
   * changed gets back the buckets it served, one it added is deleted. Returns the items changed.
   */
  async revert(keys: Key[], seq: number): Promise<number> {
    const read = await this.readStored(keys);
    const distinct = new Map(keys.map((key) => [keyOf(key), key]));
    const stored = [...distinct.values()].flatMap((key) => read.get(key) ?? []).filter((s) => s.pending?.seq === seq);
    // Its committed buckets were served when the reverted import wrote them: they may hold the import before it.
    const restore = stored.flatMap(({ pending: _, ...s }) =>
      s.committed.size > 0 ? [{ ...s, settled: seq - 1 }] : [],
    );
    const remove = stored.filter((s) => s.committed.size === 0).map((s) => ({ ...s.key }));
    await putItems(restore.map(encodeHistory), this.writes);
    await deleteItems(remove, this.writes);
    return stored.length;
  }

  /**
   * Settle what the published import `seq` wrote at these keys: its pending buckets folded into
   * the committed ones (settled: `seq`), so a read pays for one value a bucket. After the publish,
   * outside the lease: each put is conditional on the item being as read, so an import that has
   * rewritten it since (folding them itself) wins. Returns the items settled.
   */
  async settle(keys: Key[], seq: number): Promise<number> {
    const read = (await this.readRaw(keys)).map((item) => ({ item, stored: decodeHistory(item) }));
    const due = read.filter(({ stored }) => stored.pending?.seq === seq);
    let settled = 0;
    await eachBatch(due, 1, this.batch.concurrency, async ([{ item, stored }]) => {
      const { pending: _, ...rest } = stored;
      const Item = encodeHistory({ ...rest, committed: servedBuckets(stored, seq), settled: seq });
      const asRead = { ExpressionAttributeNames: { '#z': BODY }, ExpressionAttributeValues: { ':z': item[BODY] } };
      const put = new PutCommand({ TableName: this.tableName, Item, ConditionExpression: '#z = :z', ...asRead });
      settled += await this.client.send(put).then(
        () => 1,
        (error: unknown) => (isConditionFailure(error) ? 0 : Promise.reject(error)),
      );
    });
    return settled;
  }

  private async journalPart(seq: number, part: number): Promise<Record<string, unknown> | undefined> {
    const get = { TableName: this.tableName, Key: historyJournalKey(seq, part), ConsistentRead: true };
    return (await this.client.send(new GetCommand(get))).Item;
  }

  /** The head of the journal of the last import that wrote history, or undefined. */
  async readJournalHead(): Promise<JournalHead | undefined> {
    return journalHead(await this.journalPart(0, 0));
  }

  /** The journal a head names (read only to revert it: a published journal's parts are never read). */
  async readJournal(head: JournalHead): Promise<HistoryJournal> {
    return decodeJournal(
      await Promise.all(Array.from({ length: head.parts }, (_, i) => this.journalPart(head.seq, i))),
    );
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
