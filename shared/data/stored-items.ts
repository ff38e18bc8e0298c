/**
 * The codec of every stored item kind of the served data (docs/data-model.md, "Items"): each kind
 * is encoded and decoded here and nowhere else, and a stored item that does not decode fails here
 * with a CorruptDataError (a 500 `internal_error`, never a 200 with a broken body).
 *
 * Index segments, document blocks, manifests and source records are compressed binary attributes:
 * DynamoDB charges by stored bytes, and the documents compress about five to one. Blocks are raw
 * deflate (read on every request: about 10 µs a block to inflate, no header); the others, read once
 * per version, gzip with its checksum.
 */
import { deflateRawSync, gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';
import * as z from 'zod/mini';
import { DECIMAL_PATTERN } from '../platform/decimal';
import { CorruptDataError } from '../platform/errors';
import type { IndexData } from './family-index';
import { documentBlockKey, historyJournalKey, indexSegmentKey, type Key, manifestKey, sourceKey } from './keys';
import { TTL_ATTRIBUTE } from './table';

export type Item = Record<string, unknown> & Key;

/** The attribute that holds an item's compressed content. */
const BODY = 'z';

const gzip = (text: string) => gzipSync(text, { level: 9 });

/** An item's content as text: gzip by default, raw deflate for blocks (see above). */
function body(
  item: Record<string, unknown> | undefined,
  what: string,
  inflate: (bytes: Uint8Array) => Buffer = gunzipSync,
): string {
  const value = item?.[BODY];
  if (!(value instanceof Uint8Array)) throw new CorruptDataError(`${what} has no content`);
  try {
    return inflate(value).toString('utf8');
  } catch {
    throw new CorruptDataError(`${what} is not readable`);
  }
}

function parsed(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CorruptDataError(`${what} is not JSON`);
  }
}

// ---- the pointer ------------------------------------------------------------------------------

/** The served state of one dataset family. History families have no version. */
const FamilyStateCodec = z.object({
  version: z.optional(z.string().check(z.minLength(1))),
  /** Hash of the family's records (offers: before their platform references are resolved). */
  hash: z.optional(z.string()),
  /** Digest of the platform references an offers version rendered. */
  refs: z.optional(z.string()),
  /** The index segments of the version (absent: a version written before the index, unreadable). */
  segments: z.optional(z.number().check(z.int(), z.minimum(1))),
  /** Records in the file that published it: written by imports before ADR 0009, no longer (every pointer write is charged by its size). */
  count: z.optional(z.number()),
  /** When the served content of the family last changed. */
  publishedAt: z.string(),
});

/** A version replaced at `at`: readable (pinned lists, changes) until it is deleted. */
const RetiredVersionCodec = z.object({
  family: z.string(),
  version: z.string(),
  at: z.string(),
  segments: z.optional(z.number()),
  /** When it was published (its `Last-Modified`). */
  publishedAt: z.optional(z.string()),
});

const LeaseCodec = z.object({
  owner: z.string(),
  /** Epoch ms after which another import may take the lease over. */
  until: z.number(),
  /** The versions the holder writes, and those earlier holders left: the next holder deletes what is not published. */
  writing: z.array(z.string()),
});

const PointerCodec = z.object({
  families: z._default(z.record(z.string(), z.optional(FamilyStateCodec)), {}),
  retired: z._default(z.array(RetiredVersionCodec), []),
  /**
   * The sequence number of the last import that published history: observations written under it
   * or an earlier one are served, later ones are not yet (see "history" below). 0 before the first.
   */
  historySeq: z._default(z.number().check(z.int(), z.minimum(0)), 0),
  /**
   * Per history family, the start (epoch ms) of the UTC hour an import last recorded
   * (docs/adr/0012-recorded-history.md): a later import in that hour records nothing.
   */
  recorded: z._default(z.record(z.string(), z.number().check(z.int())), {}),
  importedAt: z.optional(z.string()),
  lease: z.optional(LeaseCodec),
});

export type FamilyState = z.infer<typeof FamilyStateCodec>;
export type RetiredVersion = z.infer<typeof RetiredVersionCodec>;
export type ImportLease = z.infer<typeof LeaseCodec>;
export type SnapshotPointer = z.infer<typeof PointerCodec>;

/** The pointer item as stored (or the projection of it a reader asked for). */
export function decodePointer(item: Record<string, unknown>): SnapshotPointer {
  const result = PointerCodec.safeParse(item);
  if (!result.success) throw new CorruptDataError('the snapshot pointer is malformed');
  return result.data;
}

/** When an import last carried each family (family → ISO time); {} before the first. */
const RefreshedCodec = z.record(z.string(), z.string());

export function decodeRefreshed(item: Record<string, unknown> | undefined): Record<string, string> {
  const { PK: _pk, SK: _sk, ...families } = item ?? {};
  const result = RefreshedCodec.safeParse(families);
  if (!result.success) throw new CorruptDataError('the refresh times are malformed');
  return result.data;
}

// ---- index segments ---------------------------------------------------------------------------

/** A segment's compressed bytes: a quarter of the item size limit, several read in parallel. */
const SEGMENT_BYTES = 256 * 1024;

export function encodeIndex(version: string, index: IndexData): Item[] {
  const bytes = gzip(JSON.stringify(index));
  const items: Item[] = [];
  for (let start = 0; start === 0 || start < bytes.length; start += SEGMENT_BYTES) {
    items.push({ ...indexSegmentKey(version, items.length), [BODY]: bytes.subarray(start, start + SEGMENT_BYTES) });
  }
  return items;
}

const isString = (v: unknown) => typeof v === 'string';
const isNullableString = (v: unknown) => v === null || typeof v === 'string';
const isIndex = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

const COLUMNS = {
  catalog: { slugs: isString, block: isIndex, slot: isIndex, hash: isString },
  offers: {
    ids: (v: unknown) => Number.isSafeInteger(v),
    block: isIndex,
    slot: isIndex,
    hash: isString,
    platformType: isNullableString,
    platform: isNullableString,
    asset: isNullableString,
    chain: isNullableString,
    apyKey: isNullableString,
    tvlKey: isNullableString,
    flag: (v: unknown) => v === 0 || v === 1,
  },
} as const;

/** Every column one entry long per record, of its type; every order a permutation of the entries. */
function checkIndex(data: Record<string, unknown>, what: string): IndexData {
  const fail = (why: string): never => {
    throw new CorruptDataError(`${what}: ${why}`);
  };
  const kind = data.kind;
  if (kind !== 'catalog' && kind !== 'offers') return fail('unknown kind');
  const columns = COLUMNS[kind] as Record<string, (v: unknown) => boolean>;
  const size = (data.block as unknown[] | undefined)?.length ?? fail('no block column');
  for (const [name, valid] of Object.entries(columns)) {
    const column = data[name];
    if (!Array.isArray(column) || column.length !== size) fail(`column ${name} is not ${size} long`);
    for (const value of column as unknown[]) if (!valid(value)) fail(`column ${name} holds ${JSON.stringify(value)}`);
  }
  const blocks = data.blocks;
  if (!Array.isArray(blocks) || !blocks.every(isString)) fail('no block list');
  for (const b of data.block as number[]) if (b >= (blocks as unknown[]).length) fail('an entry names no block');
  const permutation = (order: unknown, name: string) => {
    if (!Array.isArray(order) || order.length !== size) fail(`order ${name} is not ${size} long`);
    const seen = new Uint8Array(size);
    for (const e of order as unknown[]) {
      if (!isIndex(e) || (e as number) >= size || seen[e as number]) fail(`order ${name} is not a permutation`);
      seen[e as number] = 1;
    }
  };
  if (kind === 'catalog') {
    permutation(data.order, 'order');
    if (typeof data.redirects !== 'object' || data.redirects === null || !Object.values(data.redirects).every(isString))
      fail('no redirects');
  } else {
    if (typeof data.orders !== 'object' || data.orders === null) fail('no orders');
    for (const [name, order] of Object.entries(data.orders as object)) permutation(order, name);
  }
  return data as unknown as IndexData;
}

/** The index of a version, and the length of its JSON (what the instance's budget counts). */
export function decodeIndex(
  version: string,
  segments: (Record<string, unknown> | undefined)[],
): { data: IndexData; textLength: number } {
  const what = `the index of version ${version}`;
  const parts = segments.map((item, i) => {
    const value = item?.[BODY];
    if (!(value instanceof Uint8Array)) throw new CorruptDataError(`${what}: segment ${i} is missing`);
    return value;
  });
  let text: string;
  try {
    text = gunzipSync(Buffer.concat(parts)).toString('utf8');
  } catch {
    throw new CorruptDataError(`${what} is not readable`);
  }
  const data = parsed(text, what);
  if (typeof data !== 'object' || data === null) throw new CorruptDataError(`${what} is not an object`);
  return { data: checkIndex(data as Record<string, unknown>, what), textLength: text.length };
}

// ---- document blocks --------------------------------------------------------------------------

/** Documents are JSON texts without a raw line break (JSON.stringify escapes them): one a line. */
const DOC_SEPARATOR = '\n';

export const encodeBlock = (hash: string, docs: readonly string[]): Item => ({
  ...documentBlockKey(hash),
  [BODY]: deflateRawSync(docs.join(DOC_SEPARATOR), { level: 9 }),
});

/** A decoded block: its documents, each checked to be a JSON object the first time it is served. */
export class DocumentBlockView {
  private readonly checked: Uint8Array;

  constructor(
    private readonly hash: string,
    private readonly docs: string[],
  ) {
    this.checked = new Uint8Array(docs.length);
  }

  doc(slot: number): string {
    const doc = this.docs[slot];
    if (doc === undefined) throw new CorruptDataError(`block ${this.hash} has no document ${slot}`);
    if (!this.checked[slot]) {
      const value = parsed(doc, `a document of block ${this.hash}`);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new CorruptDataError(`a document of block ${this.hash} is not an object`);
      this.checked[slot] = 1;
    }
    return doc;
  }

  /** Every document of the block (checked). */
  all(): string[] {
    return this.docs.map((_, slot) => this.doc(slot));
  }
}

export function decodeBlock(hash: string, item: Record<string, unknown> | undefined): DocumentBlockView {
  return new DocumentBlockView(
    hash,
    body(item, `block ${hash}`, (bytes) => inflateRawSync(bytes)).split(DOC_SEPARATOR),
  );
}

// ---- manifests and source records -------------------------------------------------------------

/**
 * UTF-8 bytes of JSON a manifest or source chunk holds before compression: under DynamoDB's
 * 400 KB item limit even if its text did not compress at all (a record is at most 16 KB).
 */
const CHUNK_TEXT_BYTES = 300 * 1024;

/** JSON texts → chunks of a JSON array each, under CHUNK_TEXT_BYTES. */
function chunked(texts: Iterable<string>): string[] {
  const chunks: string[] = [];
  let chunk: string[] = [];
  let size = 0;
  for (const text of texts) {
    const bytes = Buffer.byteLength(text) + 1;
    if (size + bytes > CHUNK_TEXT_BYTES && chunk.length > 0) {
      chunks.push(`[${chunk.join(',')}]`);
      chunk = [];
      size = 0;
    }
    chunk.push(text);
    size += bytes;
  }
  if (chunk.length > 0 || chunks.length === 0) chunks.push(`[${chunk.join(',')}]`);
  return chunks;
}

/**
 * What a version holds: the keys of the items it owns (index segments, source chunks, the
 * manifest's own chunks aside) and the blocks it names (shared with other versions), so the
 * version can be deleted without a scan and a block only when no kept version names it.
 */
export interface Manifest {
  keys: [string, string][];
  blocks: string[];
}

export function encodeManifest(version: string, manifest: Manifest): Item[] {
  const entries = [...manifest.keys.map((k) => JSON.stringify(k)), ...manifest.blocks.map((b) => JSON.stringify(b))];
  return chunked(entries).map((text, i) => ({ ...manifestKey(version, i), [BODY]: gzip(text) }));
}

export function decodeManifest(version: string, items: Record<string, unknown>[]): Manifest {
  const manifest: Manifest = { keys: [], blocks: [] };
  for (const item of items) {
    // Versions of the positioned layout (before ADR 0009) list their keys as text and name no blocks.
    const text = typeof item.keys === 'string' ? item.keys : body(item, `the manifest of ${version}`);
    const entries = parsed(text, `the manifest of ${version}`);
    if (!Array.isArray(entries)) throw new CorruptDataError(`the manifest of ${version} is not a list`);
    for (const entry of entries) {
      if (typeof entry === 'string') manifest.blocks.push(entry);
      else if (Array.isArray(entry) && entry.length === 2 && entry.every(isString))
        manifest.keys.push(entry as [string, string]);
      else throw new CorruptDataError(`the manifest of ${version} holds ${JSON.stringify(entry)}`);
    }
  }
  return manifest;
}

export function encodeSource(version: string, family: string, records: readonly unknown[]): Item[] {
  return chunked(records.map((r) => JSON.stringify(r))).map((text, i) => ({
    ...sourceKey(version, family, i),
    [BODY]: gzip(text),
  }));
}

export function decodeSource(version: string, family: string, items: Record<string, unknown>[]): unknown[] {
  const what = `the ${family} records of ${version}`;
  return items.flatMap((item) => {
    // Versions written before sources were compressed hold them as text.
    const text = typeof item.records === 'string' ? item.records : body(item, what);
    const records = parsed(text, what);
    if (!Array.isArray(records)) throw new CorruptDataError(`${what} are not a list`);
    return records;
  });
}

// ---- history ----------------------------------------------------------------------------------

/** An observation's value (a bucket's: its last observation's); `tvl` on earn series only. */
export interface HistoryValue {
  apy: string;
  tvl?: string | null;
  /** When it was observed (epoch ms). */
  at: number;
}

/**
 * A history item (docs/data-model.md, "History: all or nothing"): the value the published imports
 * show (`committed`), and the value a later import wrote (`pending`, with that import's sequence
 * number), served once the pointer's `historySeq` reaches that number. An import writes both in
 * one put (what was served and what it brings), so a failed import never replaces what is served,
 * and the next import reverts it from its journal.
 */
export interface StoredHistory {
  key: Key;
  committed?: HistoryValue;
  pending?: HistoryValue & { seq: number };
  /** Epoch seconds after which DynamoDB may delete it (no window reaches it any more). */
  expiresAt?: number;
}

/** The attributes of a history item: the committed value's (as stored before the pending one existed), and the pending one. */
const H = { apy: 'apy', tvl: 'tvl', at: 'at', pending: 'p' } as const;
/** What an import reads of a stored history item. */
export const HISTORY_ATTRIBUTES: readonly string[] = ['PK', 'SK', H.apy, H.tvl, H.at, H.pending, TTL_ATTRIBUTE];

const decimal = (v: unknown): v is string => typeof v === 'string' && DECIMAL_PATTERN.test(v);
const instant = (v: unknown): v is number => Number.isSafeInteger(v);

function historyValue(source: Record<string, unknown>, what: string): HistoryValue {
  const { apy, tvl, at } = source;
  if (!decimal(apy) || !(tvl === undefined || tvl === null || decimal(tvl)) || !instant(at))
    throw new CorruptDataError(`${what} is not an observation`);
  return tvl === undefined ? { apy, at } : { apy, tvl, at };
}

export function decodeHistory(item: Record<string, unknown>): StoredHistory {
  const what = `history item ${String(item.PK)} ${String(item.SK)}`;
  if (typeof item.PK !== 'string' || typeof item.SK !== 'string') throw new CorruptDataError(`${what} has no key`);
  const stored: StoredHistory = { key: { PK: item.PK, SK: item.SK } };
  // Items written before imports were all or nothing hold a committed value only.
  if (item[H.apy] !== undefined || item[H.tvl] !== undefined || item[H.at] !== undefined)
    stored.committed = historyValue(item, what);
  const pending = item[H.pending];
  if (pending !== undefined) {
    if (typeof pending !== 'object' || pending === null) throw new CorruptDataError(`${what} is not an observation`);
    const { seq } = pending as Record<string, unknown>;
    if (!Number.isSafeInteger(seq) || (seq as number) < 1) throw new CorruptDataError(`${what} has no sequence number`);
    stored.pending = { ...historyValue(pending as Record<string, unknown>, what), seq: seq as number };
  }
  if (!stored.committed && !stored.pending) throw new CorruptDataError(`${what} is not an observation`);
  const expiresAt = item[TTL_ATTRIBUTE];
  if (expiresAt !== undefined) {
    if (!instant(expiresAt)) throw new CorruptDataError(`${what} has a malformed expiry`);
    stored.expiresAt = expiresAt;
  }
  return stored;
}

const valueItem = ({ apy, tvl, at }: HistoryValue) => ({
  [H.apy]: apy,
  ...(tvl === undefined ? {} : { [H.tvl]: tvl }),
  [H.at]: at,
});

export function encodeHistory({ key, committed, pending, expiresAt }: StoredHistory): Item {
  return {
    PK: key.PK,
    SK: key.SK,
    ...(committed ? valueItem(committed) : {}),
    ...(pending ? { [H.pending]: { ...valueItem(pending), seq: pending.seq } } : {}),
    ...(expiresAt === undefined ? {} : { [TTL_ATTRIBUTE]: expiresAt }),
  };
}

/** The value a reader of a pointer publishing `historySeq` is served (none: not yet published). */
export function servedValue(stored: StoredHistory, historySeq: number): HistoryValue | undefined {
  return stored.pending && stored.pending.seq <= historySeq ? stored.pending : stored.committed;
}

// ---- the history journal ----------------------------------------------------------------------

/** One series an import writes: the offer, and the times of its observations (its buckets follow from them). */
export interface JournalSeries {
  family: string;
  id: number;
  times: readonly number[];
}

/** What an import with history writes, before it writes it: the next import reverts it if it was never published. */
export interface HistoryJournal {
  seq: number;
  series: JournalSeries[];
}

/** Compressed bytes per journal part (under the 400 KB item limit). */
const JOURNAL_PART_BYTES = 300 * 1024;

/** Numbers in ascending order → their differences (a feed's ids and times compress to almost nothing). */
const deltas = (values: readonly number[]) => values.map((v, i) => (i === 0 ? v : v - values[i - 1]));
const undelta = (values: number[]) => {
  for (let i = 1; i < values.length; i++) values[i] += values[i - 1];
  return values;
};

/**
 * The journal as items, part 0 (its head, written last) first. Series with the same times are
 * grouped (a feed's hour is one group), ids and times as differences: an hour of BENCH's 25,000 series
 * (ids with gaps) is one item of 4.8 KB.
 */
export function encodeJournal({ seq, series }: HistoryJournal): Item[] {
  const groups = new Map<string, { family: string; times: readonly number[]; ids: number[] }>();
  for (const s of series) {
    const times = [...s.times].sort((a, b) => a - b);
    const group = `${s.family}\u0000${times.join(',')}`;
    if (!groups.has(group)) groups.set(group, { family: s.family, times, ids: [] });
    groups.get(group)!.ids.push(s.id);
  }
  const body = [...groups.values()].map(({ family, times, ids }) => [
    family,
    deltas(times),
    deltas(ids.sort((a, b) => a - b)),
  ]);
  const bytes = gzip(JSON.stringify(body));
  const parts = Math.max(1, Math.ceil(bytes.length / JOURNAL_PART_BYTES));
  return Array.from({ length: parts }, (_, part) => ({
    ...historyJournalKey(seq, part),
    ...(part === 0 ? { seq, parts } : {}),
    [BODY]: bytes.subarray(part * JOURNAL_PART_BYTES, (part + 1) * JOURNAL_PART_BYTES),
  }));
}

/** A journal's head: the import's sequence number and how many items the journal has. */
export interface JournalHead {
  seq: number;
  parts: number;
}

/** The head of a journal (to read its parts), or undefined when there is none. */
export function journalHead(head: Record<string, unknown> | undefined): JournalHead | undefined {
  if (!head) return undefined;
  const { seq, parts } = head;
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(parts) || (parts as number) < 1)
    throw new CorruptDataError('the history journal has a malformed head');
  return { seq: seq as number, parts: parts as number };
}

export function decodeJournal(items: (Record<string, unknown> | undefined)[]): HistoryJournal {
  const head = journalHead(items[0])!;
  const bytes = items.map((item, i) => {
    const value = item?.[BODY];
    if (!(value instanceof Uint8Array)) throw new CorruptDataError(`the history journal: part ${i} is missing`);
    return value;
  });
  let text: string;
  try {
    text = gunzipSync(Buffer.concat(bytes)).toString('utf8');
  } catch {
    throw new CorruptDataError('the history journal is not readable');
  }
  const groups = parsed(text, 'the history journal');
  const numbers = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isSafeInteger(n));
  const series: JournalSeries[] = [];
  if (!Array.isArray(groups)) throw new CorruptDataError('the history journal is not a list');
  for (const group of groups) {
    if (!Array.isArray(group) || typeof group[0] !== 'string' || !numbers(group[1]) || !numbers(group[2]))
      throw new CorruptDataError('the history journal holds a malformed group');
    const times = undelta(group[1]);
    for (const id of undelta(group[2])) series.push({ family: group[0], id, times });
  }
  return { seq: head.seq, series };
}
