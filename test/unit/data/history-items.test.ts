/**
 * The codecs of history items and of the history journal (shared/data/items/history.ts, history-journal.ts):
 * which value a reader is served, items stored before imports were all or nothing, corrupt items,
 * and journals that round-trip (whatever their size: history-items.heavy.test.ts).
 */
import { gunzipSync } from 'node:zlib';
import { decodeHistory, encodeHistory, servedValue } from '../../../shared/data/items/history';
import { decodeJournal, encodeJournal } from '../../../shared/data/items/history-journal';
import { CorruptDataError } from '../../../shared/platform/errors';

const key = { PK: 'HIST#EARN#7', SK: 'RAW#001795165200000' };
const committed = { apy: '4.1', tvl: '100', at: 1_795_165_200_000 };
const pending = { apy: '4.2', tvl: null, at: 1_795_165_200_000, seq: 3 };

describe('history items', () => {
  it('serve the pending value once the pointer publishes its number, the committed one before', () => {
    const stored = decodeHistory(encodeHistory({ key, committed, pending, expiresAt: 1_795_900_000 }));
    expect(stored).toEqual({ key, committed, pending, expiresAt: 1_795_900_000 });
    expect(servedValue(stored, 2)).toEqual(committed);
    expect(servedValue(stored, 3)).toEqual(pending);
    expect(servedValue(stored, 4)).toEqual(pending);
  });

  it('an item an import added is served from its publish on, and not at all before', () => {
    const stored = decodeHistory(encodeHistory({ key, pending }));
    expect(servedValue(stored, 2)).toBeUndefined();
    expect(servedValue(stored, 3)).toEqual(pending);
  });

  it('items stored before imports were all or nothing are served as they are (borrow: no tvl)', () => {
    const stored = decodeHistory({ ...key, apy: '5', at: 17, expiresAt: 99 });
    expect(stored).toEqual({ key, committed: { apy: '5', at: 17 }, expiresAt: 99 });
    expect(servedValue(stored, 0)).toEqual({ apy: '5', at: 17 });
  });

  it.each<[string, Record<string, unknown>]>([
    ['no value at all', { ...key }],
    ['an apy that is not a decimal', { ...key, apy: 5, at: 1 }],
    ['a tvl that is not a decimal', { ...key, apy: '5', tvl: 'lots', at: 1 }],
    ['no time', { ...key, apy: '5' }],
    ['a pending value without its number', { ...key, p: { apy: '5', at: 1 } }],
    ['a pending value that is not a map', { ...key, p: 'x' }],
    ['a malformed expiry', { ...key, apy: '5', at: 1, expiresAt: 'soon' }],
  ])('a stored item with %s fails to decode (a 500, never a guess)', (_, item) => {
    expect(() => decodeHistory(item)).toThrow(CorruptDataError);
  });
});

describe('the history journal', () => {
  it('a missing part or unreadable content fails to decode', () => {
    const items = encodeJournal({ seq: 1, series: [{ family: 'earn', id: 1, times: [1] }] });
    expect(() => decodeJournal([items[0], undefined])).toThrow(CorruptDataError);
    expect(() => decodeJournal([{ ...items[0], z: new Uint8Array([1, 2, 3]) }])).toThrow(CorruptDataError);
    expect(JSON.parse(gunzipSync(items[0].z as Uint8Array).toString())).toEqual([['earn', [1], [1]]]);
  });
});
