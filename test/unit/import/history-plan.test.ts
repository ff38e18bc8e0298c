import type { HistoryCandidate, HistoryWriter, WriteResult } from '../../../shared/data/history-writer';
import { appendHistory, type HistoryAppend, historyWouldChange } from '../../../shared/import/history-plan';

const NOW = Date.parse('2026-11-20T12:00:00.000Z');

/** Series of one observation each, offer ids 1..n. */
const appendOf = (n: number, family: HistoryAppend['family'] = 'borrow'): HistoryAppend => ({
  family,
  series: Array.from({ length: n }, (_, i) => ({
    offer_id: i + 1,
    points: [{ timestamp: '2026-11-20T10:00:00.000Z', apy: '7.5' }],
  })),
});
const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const offerOf = (item: HistoryCandidate) => Number(String(item.key.PK).split('#').pop());

/**
 * A store that records the offers of each round it is asked about and would write the items of the
 * offers `changed` says; `dryRun()` is the same store, marked.
 */
function recordingStore(changed: (family: string, offerId: number) => boolean) {
  const rounds: number[][] = [];
  const dryRuns: unknown[] = [];
  const store = {
    // Nothing stored: no day is past its bound (packed-history.test.ts reads real items).
    async readStored() {
      return { servedTimes: () => [], size: 0 };
    },
    async writeChanged(items: HistoryCandidate[]): Promise<WriteResult> {
      rounds.push([...new Set(items.map(offerOf))]);
      const family = String(items[0]?.key.PK).split('#')[1]?.toLowerCase();
      return { itemsRead: items.length, itemsWritten: items.filter((item) => changed(family, offerOf(item))).length };
    },
    dryRun() {
      dryRuns.push(this);
      return this;
    },
  };
  return { store: store as unknown as HistoryWriter, rounds, dryRuns };
}

describe('appendHistory', () => {
  it('appends in rounds of 1,000 series, each series once', async () => {
    const { store, rounds, dryRuns } = recordingStore(() => true);
    const result = await appendHistory(store, [appendOf(2_500)], NOW, { published: 0, seq: 1 });
    expect(rounds.map((offers) => offers.length)).toEqual([1_000, 1_000, 500]);
    expect(rounds.flat()).toEqual(ids(2_500));
    expect(result.observations).toBe(2_500);
    expect(dryRuns).toHaveLength(0);
  });
});

describe('historyWouldChange', () => {
  it('asks the dry run, and stops at the first round that would write: new observations for every series cost 8 series of reads', async () => {
    const { store, rounds, dryRuns } = recordingStore(() => true);
    expect(await historyWouldChange(store, [appendOf(2_500)], NOW, 0)).toBe(true);
    expect(dryRuns).toHaveLength(1);
    expect(rounds).toEqual([ids(8)]);
  });

  it('reads rounds that double until one would write', async () => {
    const { store, rounds } = recordingStore((_, offer) => offer === 30);
    expect(await historyWouldChange(store, [appendOf(2_500)], NOW, 0)).toBe(true);
    expect(rounds.map((offers) => offers.length)).toEqual([8, 16, 32]);
    expect(rounds.flat()).toEqual(ids(56));
  });

  it('starts each family with a small round again', async () => {
    const { store, rounds } = recordingStore((family) => family === 'earn');
    expect(await historyWouldChange(store, [appendOf(100), appendOf(50, 'earn')], NOW, 0)).toBe(true);
    expect(rounds.map((offers) => offers.length)).toEqual([8, 16, 32, 44, 8]);
  });

  it('for a file that changes nothing, reads every series of every family exactly once and says no', async () => {
    const { store, rounds } = recordingStore(() => false);
    expect(await historyWouldChange(store, [appendOf(100), appendOf(50, 'earn')], NOW, 0)).toBe(false);
    expect(rounds.map((offers) => offers.length)).toEqual([8, 16, 32, 44, 8, 16, 26]);
    expect(rounds.flat()).toEqual([...ids(100), ...ids(50)]);
  });

  it('says no without a read for a file without history', async () => {
    const { store, rounds } = recordingStore(() => true);
    expect(await historyWouldChange(store, [], NOW, 0)).toBe(false);
    expect(rounds).toHaveLength(0);
  });
});
