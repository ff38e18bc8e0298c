import { appendHistory, type HistoryAppend } from '../../../shared/import/history-plan';
import type { HistoryItem } from '../../../shared/repositories/history-store';
import type { HistoryWriter, WriteResult } from '../../../shared/repositories/history-writer';

const NOW = Date.parse('2026-11-20T12:00:00.000Z');

/** Series of one observation each, offer ids 1..n. */
const appendOf = (n: number): HistoryAppend => ({
  family: 'borrow',
  series: Array.from({ length: n }, (_, i) => ({ offer_id: i + 1, points: [{ timestamp: '2026-11-20T10:00:00.000Z', apy: '7.5' }] })),
});

/** A store that records the offers of each round it is asked about and writes the items of the `changed` offers. */
function recordingStore(changed: (offerId: number) => boolean) {
  const rounds: number[][] = [];
  const store = {
    async writeChanged(items: HistoryItem[]): Promise<WriteResult> {
      const offers = [...new Set(items.map((item) => Number(String(item.PK).split('#').pop())))];
      rounds.push(offers);
      return { itemsRead: items.length, itemsWritten: items.filter((item) => changed(Number(String(item.PK).split('#').pop()))).length };
    },
  };
  return { store: store as unknown as HistoryWriter, rounds };
}

describe('appendHistory', () => {
  it('appends in rounds of 1,000 series and reads every series once', async () => {
    const { store, rounds } = recordingStore(() => true);
    const result = await appendHistory(store, [appendOf(2_500)], NOW);
    expect(rounds.map((offers) => offers.length)).toEqual([1_000, 1_000, 500]);
    expect(result.observations).toBe(2_500);
    expect(result.itemsWritten).toBe(result.itemsRead);
  });

  it('as a probe, stops at the first round that would write: a file that changes every series costs 8 series of reads', async () => {
    const { store, rounds } = recordingStore(() => true);
    const result = await appendHistory(store, [appendOf(2_500)], NOW, { untilChange: true });
    expect(rounds).toEqual([[1, 2, 3, 4, 5, 6, 7, 8]]);
    expect(result.itemsWritten).toBeGreaterThan(0);
  });

  it('as a probe, reads rounds that double until one would write', async () => {
    const { store, rounds } = recordingStore((offer) => offer === 30);
    const result = await appendHistory(store, [appendOf(2_500)], NOW, { untilChange: true });
    expect(rounds.map((offers) => offers.length)).toEqual([8, 16, 32]);
    expect(rounds.flat()).toContain(30);
    expect(result.itemsWritten).toBeGreaterThan(0);
  });

  it('as a probe of a file that changes nothing, reads every series exactly once and finds nothing to write', async () => {
    const { store, rounds } = recordingStore(() => false);
    const result = await appendHistory(store, [appendOf(100), { ...appendOf(50), family: 'earn' }], NOW, { untilChange: true });
    expect(rounds.map((offers) => offers.length)).toEqual([8, 16, 32, 44, 50]);
    expect(result).toMatchObject({ observations: 150, itemsWritten: 0 });
  });
});
