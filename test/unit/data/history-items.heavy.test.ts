/**
 * History journals round-trip whatever their size (shared/data/items/history-journal.ts): an hour of a whole
 * feed in one small item, and a journal too large for one item in parts. Heavy: seconds each.
 */

import { decodeJournal, encodeJournal, type HistoryJournal } from '../../../shared/data/items/history-journal';
import { historyJournalKey } from '../../../shared/data/keys';

describe('the history journal', () => {
  const roundTrip = (journal: HistoryJournal) => {
    const items = encodeJournal(journal);
    expect(items[0]).toMatchObject({ ...historyJournalKey(journal.seq, 0), seq: journal.seq, parts: items.length });
    items.slice(1).forEach((item, i) => expect(item).toMatchObject(historyJournalKey(journal.seq, i + 1)));
    return { items, decoded: decodeJournal(items) };
  };
  const sorted = (journal: HistoryJournal) =>
    journal.series
      .map((s) => ({ ...s, times: [...s.times].sort((a, b) => a - b) }))
      .sort((a, b) => a.family.localeCompare(b.family) || a.id - b.id);

  it('an hour of a feed (every series the same times) fits one small item, and round-trips', () => {
    const hour = Array.from({ length: 12 }, (_, i) => 1_795_165_200_000 + i * 300_000);
    const journal: HistoryJournal = {
      seq: 5,
      series: [
        ...Array.from({ length: 20_000 }, (_, i) => ({ family: 'earn', id: i + 1, times: hour })),
        ...Array.from({ length: 5_000 }, (_, i) => ({ family: 'borrow', id: 3 * i + 7, times: hour })),
      ],
    };
    const { items, decoded } = roundTrip(journal);
    expect(items).toHaveLength(1);
    expect((items[0].z as Uint8Array).length).toBeLessThan(1024);
    expect(decoded.seq).toBe(5);
    expect(sorted(decoded)).toEqual(sorted(journal));
  });

  it('a journal too large for one item is cut into parts that round-trip', () => {
    let x = 12_345;
    const random = () => {
      x = (x * 48_271) % 2_147_483_647; // Park–Miller: exact in doubles
      return x;
    };
    const journal: HistoryJournal = {
      seq: 2,
      series: Array.from({ length: 12_000 }, (_, i) => ({
        family: 'earn',
        id: i * 7 + 1,
        times: Array.from({ length: 8 }, () => 1_700_000_000_000 + random() * 1000),
      })),
    };
    const { items, decoded } = roundTrip(journal);
    expect(items.length).toBeGreaterThan(1);
    for (const item of items) expect((item.z as Uint8Array).length).toBeLessThanOrEqual(300 * 1024);
    expect(sorted(decoded)).toEqual(sorted(journal));
  });
});
