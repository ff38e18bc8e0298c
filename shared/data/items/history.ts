/**
 * A history item (`HIST#<FAMILY>#<id>` / `1H.24#…`, `4H.42#…`, `1D.32#…`, `1W.52#…`): one stored
 * series within one aligned span (shared/model/history-series.ts), committed and pending
 * (docs/data-model.md, "History"; docs/adr/0029-packed-history.md): the observations' series (`1H`)
 * holds every observation of its day, the others each bucket's last observation. Read by
 * history-store.ts (the serving functions), figure-store.ts (a seed) and history-writer.ts (the import).
 *
 * Its content is the raw deflate of `{"c": [row…], "p": [seq, [row…]]}` (or `"s": seq` once settled),
 * a row `[i, dt, "apy"]` (borrow) or `[i, dt, "apy", "tvl" | null]` (earn): `i` the bucket's place in
 * the span, `dt` the observation's time after the bucket's start. Checked when read: a row outside its span or
 * bucket, out of order (in `1H`: by time, an hour's rows in theirs; else one a bucket), or a value
 * that is not a decimal fails in one place (CorruptDataError, a 500).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { RAW_SERIES, SERIES_OF, type SeriesResolution } from '../../model/history-series';
import { DECIMAL_PATTERN } from '../../platform/decimal';
import { CorruptDataError } from '../../platform/errors';
import { HISTORY_PREFIX, type Key, parseHistorySortKey } from '../keys';
import { TTL_ATTRIBUTE } from '../table';
import { BODY, type Item, inflated, parsed } from './content';

/** An observation's value (a bucket's: its last observation's); `tvl` on earn series only. */
export interface HistoryValue {
  apy: string;
  tvl?: string | null;
  /** When it was observed (epoch ms). */
  at: number;
}

/**
 * Values by their entry's time (epoch ms): in the observations' series (`1H`) each observation by
 * its own time (an hour holds any number), in the others each bucket's last by the bucket's start.
 */
export type Buckets = Map<number, HistoryValue>;

/**
 * A history item (docs/data-model.md, "History: all or nothing"): the buckets the published imports
 * show (`committed`), and those a later import wrote in the same put (`pending`, with its number),
 * served over them once the pointer's `historySeq` reaches that number.
 */
export interface StoredHistory {
  key: Key;
  resolution: SeriesResolution;
  /** The start of the item's first bucket. */
  start: number;
  committed: Buckets;
  pending?: { seq: number; buckets: Buckets };
  /** Without pending buckets: the last import whose values the committed ones may hold (it settled them, or the reverted one came after it). */
  settled?: number;
  /** Epoch seconds after which DynamoDB may delete it (no window reaches any of its buckets any more). */
  expiresAt?: number;
}

/** What an import reads of a stored history item. */
export const HISTORY_ATTRIBUTES: readonly string[] = ['PK', 'SK', BODY, TTL_ATTRIBUTE];

type Row = [number, number, string] | [number, number, string, string | null];

const decimal = (v: unknown): v is string => typeof v === 'string' && DECIMAL_PATTERN.test(v);
const whole = (v: unknown, below: number): v is number =>
  Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) < below;

/**
 * The rows of one list of an item, checked: in the span, each time within its bucket, in order
 * (the observations' series: by time, any number a bucket; the others: one a bucket).
 */
function bucketsOf(rows: unknown, stored: StoredHistory, what: string): Buckets {
  const { bucketMs, perItem } = SERIES_OF[stored.resolution];
  const observations = stored.resolution === RAW_SERIES;
  if (!Array.isArray(rows)) throw new CorruptDataError(`${what} holds no buckets`);
  const buckets: Buckets = new Map();
  let previous = Number.NEGATIVE_INFINITY;
  for (const row of rows as unknown[]) {
    if (!Array.isArray(row) || (row.length !== 3 && row.length !== 4))
      throw new CorruptDataError(`${what} holds a malformed bucket`);
    const [i, dt, apy, tvl] = row as unknown[];
    if (!whole(i, perItem) || !whole(dt, bucketMs)) throw new CorruptDataError(`${what} holds a bucket out of place`);
    const start = stored.start + (i as number) * bucketMs;
    const at = start + (dt as number);
    const entry = observations ? at : start;
    if (entry <= previous) throw new CorruptDataError(`${what} holds a bucket out of place`);
    if (!decimal(apy) || !(row.length === 3 || tvl === null || decimal(tvl)))
      throw new CorruptDataError(`${what} is not an observation`);
    previous = entry;
    buckets.set(entry, row.length === 3 ? { apy, at } : { apy, tvl: tvl as string | null, at });
  }
  return buckets;
}

export function decodeHistory(item: Record<string, unknown>): StoredHistory {
  const what = `history item ${String(item.PK)} ${String(item.SK)}`;
  const { PK, SK } = item;
  const named = typeof SK === 'string' ? parseHistorySortKey(SK) : undefined;
  if (typeof PK !== 'string' || !PK.startsWith(HISTORY_PREFIX) || !named)
    throw new CorruptDataError(`${what} has no key`);
  const stored: StoredHistory = { key: { PK, SK: SK as string }, ...named, committed: new Map() };
  const content = parsed(inflated(item, what, inflateRawSync).toString('utf8'), what) as Record<string, unknown>;
  if (typeof content !== 'object' || content === null) throw new CorruptDataError(`${what} holds no buckets`);
  stored.committed = bucketsOf(content.c ?? [], stored, what);
  const [seq, rows] = content.p === undefined ? [content.s] : Array.isArray(content.p) ? content.p : [];
  if (seq !== undefined || content.p !== undefined) {
    if (!Number.isSafeInteger(seq) || (seq as number) < 1) throw new CorruptDataError(`${what} has no sequence number`);
    if (content.p === undefined) stored.settled = seq as number;
    else stored.pending = { seq: seq as number, buckets: bucketsOf(rows, stored, what) };
  }
  if (stored.committed.size === 0 && !stored.pending?.buckets.size)
    throw new CorruptDataError(`${what} holds no buckets`);
  const expiresAt = item[TTL_ATTRIBUTE];
  if (expiresAt !== undefined) {
    if (!Number.isSafeInteger(expiresAt)) throw new CorruptDataError(`${what} has a malformed expiry`);
    stored.expiresAt = expiresAt as number;
  }
  return stored;
}

function rowsOf(buckets: Buckets, { resolution, start }: StoredHistory): Row[] {
  const { bucketMs } = SERIES_OF[resolution];
  return [...buckets]
    .sort(([a], [b]) => a - b)
    .map(([entry, { apy, tvl, at }]) => {
      const i = Math.floor((entry - start) / bucketMs);
      const place: [number, number] = [i, at - (start + i * bucketMs)];
      return tvl === undefined ? [...place, apy] : [...place, apy, tvl];
    });
}

export function encodeHistory(stored: StoredHistory): Item {
  const { key, committed, pending, settled, expiresAt } = stored;
  const content = {
    ...(committed.size > 0 ? { c: rowsOf(committed, stored) } : {}),
    ...(pending ? { p: [pending.seq, rowsOf(pending.buckets, stored)] } : settled ? { s: settled } : {}),
  };
  return {
    PK: key.PK,
    SK: key.SK,
    [BODY]: deflateRawSync(JSON.stringify(content), { level: 9 }),
    ...(expiresAt === undefined ? {} : { [TTL_ATTRIBUTE]: expiresAt }),
  };
}

/** The buckets a reader of a pointer publishing `historySeq` is served: the committed ones, with the pending ones over them once published. */
export function servedBuckets(stored: StoredHistory, historySeq: number): Buckets {
  if (!stored.pending || stored.pending.seq > historySeq) return stored.committed;
  return new Map([...stored.committed, ...stored.pending.buckets]);
}

/** The last import whose values the committed buckets may hold (the one before the pending buckets', or the one that settled them). */
export const committedThrough = ({ pending, settled }: StoredHistory): number =>
  pending ? pending.seq - 1 : (settled ?? 0);
