/**
 * A history item (`HIST#<FAMILY>#<id>` / `RAW#…`, `4H#…`, `1D#…`, `1W#…`): an observation or the
 * last observation of a bucket, committed and pending (docs/data-model.md, "History"). Read by
 * history-store.ts (the serving functions) and history-writer.ts (the import).
 */
import { DECIMAL_PATTERN } from '../../platform/decimal';
import { CorruptDataError } from '../../platform/errors';
import type { Key } from '../keys';
import { TTL_ATTRIBUTE } from '../table';
import type { Item } from './content';

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
