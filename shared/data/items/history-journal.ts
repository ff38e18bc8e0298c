/**
 * The history journal (`IMPORT` / `HISTORY`, `HISTORY#<seq>#000001`…): what the import with
 * history `seq` writes, from which the next import reverts it if it was never published. Read and
 * written by history-writer.ts.
 */
import { CorruptDataError } from '../../platform/errors';
import { historyJournalKey } from '../keys';
import { BODY, gzip, type Item, joinedBody, parsed } from './content';

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
 * grouped (a feed's hour is one group), ids and times as differences, so an hour of a large feed is one
 * small item (sizes measured: docs/data-model.md).
 */
export function encodeJournal({ seq, series }: HistoryJournal): Item[] {
  const groups = new Map<string, { family: string; times: readonly number[]; ids: number[] }>();
  for (const s of series) {
    const times = [...s.times].sort((a, b) => a - b);
    const group = `${s.family}\u0000${times.join(',')}`;
    if (!groups.has(group)) groups.set(group, { family: s.family, times, ids: [] });
    groups.get(group)!.ids.push(s.id);
  }
  const content = [...groups.values()].map(({ family, times, ids }) => [
    family,
    deltas(times),
    deltas(ids.sort((a, b) => a - b)),
  ]);
  const bytes = gzip(JSON.stringify(content));
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
  const text = joinedBody(items, 'the history journal', 'part');
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
