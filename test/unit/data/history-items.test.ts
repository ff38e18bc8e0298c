/**
 * The codecs of history items and of the history journal (shared/data/items/history.ts, history-journal.ts):
 * an item packs a span of one series' buckets, committed and pending; which buckets a reader is
 * served; corrupt and tampered items; the largest item; and journals that round-trip (whatever
 * their size: history-items.heavy.test.ts).
 */
import { randomInt } from 'node:crypto';
import { deflateRawSync, gunzipSync } from 'node:zlib';
import {
  committedThrough,
  decodeHistory,
  encodeHistory,
  type StoredHistory,
  servedBuckets,
} from '../../../shared/data/items/history';
import { decodeJournal, encodeJournal } from '../../../shared/data/items/history-journal';
import { historyKey } from '../../../shared/data/keys';
import { MAX_DAY_OBSERVATIONS } from '../../../shared/import/history-plan';
import { INTERVALS, itemStart, SERIES } from '../../../shared/model/history-series';
import { CorruptDataError } from '../../../shared/platform/errors';

const HOUR = 3_600_000;
const DAY_START = Date.parse('2026-11-20T00:00:00.000Z');
const key = historyKey('earn', 7, '1H', DAY_START);
const item = (parts: Partial<StoredHistory>): StoredHistory => ({
  key,
  resolution: '1H',
  start: DAY_START,
  committed: new Map(),
  ...parts,
});
const at = (hour: number, minute = 0) => DAY_START + hour * HOUR + minute * 60_000;
// The observations' series keeps every observation of an hour, each by its own time.
const committed = new Map([
  [at(3, 10), { apy: '4.1', tvl: '100', at: at(3, 10) }],
  [at(4), { apy: '4.3', tvl: null, at: at(4) }],
  [at(4, 30), { apy: '4.4', tvl: null, at: at(4, 30) }],
]);
// A correction at an equal time, and a later observation of the same hour.
const pending = {
  seq: 3,
  buckets: new Map([
    [at(4), { apy: '4.2', tvl: null, at: at(4) }],
    [at(4, 59), { apy: '4.5', tvl: '7', at: at(4, 59) }],
  ]),
};

/** An item whose content is `content` as stored (raw deflate of its JSON). */
const withContent = (content: unknown) => ({ ...key, z: deflateRawSync(JSON.stringify(content)) });

describe('history items', () => {
  it('round-trip, and serve the pending buckets over the committed ones once the pointer publishes their number', () => {
    const stored = decodeHistory(encodeHistory(item({ committed, pending, expiresAt: 1_795_900_000 })));
    expect(stored).toEqual(item({ committed, pending, expiresAt: 1_795_900_000 }));
    expect(servedBuckets(stored, 2)).toEqual(committed);
    const published = new Map([...committed, ...pending.buckets]);
    expect([...published.values()].map((v) => v.apy)).toEqual(['4.1', '4.2', '4.4', '4.5']);
    expect(servedBuckets(stored, 3)).toEqual(published);
    expect(servedBuckets(stored, 4)).toEqual(published);
  });

  it('an item an import added is served from its publish on, and not at all before', () => {
    const stored = decodeHistory(encodeHistory(item({ pending })));
    expect(servedBuckets(stored, 2).size).toBe(0);
    expect(servedBuckets(stored, 3)).toEqual(pending.buckets);
  });

  it('a settled item round-trips with the number that settled it; a reader needs a pointer at least that recent', () => {
    const settled = decodeHistory(encodeHistory(item({ committed, settled: 5 })));
    expect(settled).toEqual(item({ committed, settled: 5 }));
    expect(servedBuckets(settled, 5)).toEqual(committed);
    expect(committedThrough(settled)).toBe(5);
    // A pending part says it instead: its committed buckets were served under the number before its own.
    expect(committedThrough(decodeHistory(encodeHistory(item({ committed, pending, settled: 2 }))))).toBe(2);
    expect(decodeHistory(encodeHistory(item({ committed, pending, settled: 2 }))).settled).toBeUndefined();
    expect(committedThrough(item({ committed }))).toBe(0);
  });

  it('keeps a borrow bucket without tvl apart from an earn bucket whose tvl is null', () => {
    const borrow = { key: historyKey('borrow', 7, '1W', 0), resolution: '1W' as const, start: itemStart('1W', 0) };
    const buckets = new Map([[bucketOfWeek(0), { apy: '-1.5', at: bucketOfWeek(0) + 5 }]]);
    expect(decodeHistory(encodeHistory({ ...borrow, committed: buckets }))).toEqual({ ...borrow, committed: buckets });
  });

  it.each<[string, Record<string, unknown>]>([
    ['no content', { ...key }],
    ['content that is not deflate', { ...key, z: new Uint8Array([1, 2, 3, 4]) }],
    ['content that is not JSON', { ...key, z: deflateRawSync('{"c": [') }],
    ['no bucket at all', withContent({})],
    ['a bucket outside its span', withContent({ c: [[24, 0, '1']] })],
    ['an observation outside its bucket', withContent({ c: [[1, HOUR, '1']] })],
    [
      'buckets out of order',
      withContent({
        c: [
          [2, 0, '1'],
          [1, 0, '1'],
        ],
      }),
    ],
    [
      'the same bucket twice (a 4-hour item)',
      {
        ...withContent({
          c: [
            [1, 0, '1'],
            [1, 5, '2'],
          ],
        }),
        SK: historyKey('earn', 7, '4H', DAY_START).SK,
      },
    ],
    [
      "an hour's observations out of order",
      withContent({
        c: [
          [1, 5, '1'],
          [1, 0, '2'],
        ],
      }),
    ],
    [
      'the same observation twice',
      withContent({
        c: [
          [1, 5, '1'],
          [1, 5, '2'],
        ],
      }),
    ],
    [
      'pending observations out of order',
      withContent({
        p: [
          2,
          [
            [3, 0, '1'],
            [2, 59, '2'],
          ],
        ],
      }),
    ],
    ['an apy that is not a decimal', withContent({ c: [[1, 0, 5]] })],
    ['a tvl that is not a decimal', withContent({ c: [[1, 0, '5', 'lots']] })],
    ['a malformed bucket', withContent({ c: [[1, 0]] })],
    ['pending buckets without their number', withContent({ p: [[[1, 0, '1']]] })],
    ['a pending list that is not one', withContent({ p: 'x' })],
    ['a settling number that is not one', withContent({ c: [[1, 0, '1']], s: 0 })],
    ['a settling number that is text', withContent({ c: [[1, 0, '1']], s: '3' })],
    ['a malformed expiry', { ...withContent({ c: [[1, 0, '1']] }), expiresAt: 'soon' }],
    ['a key of no layout (a per-observation key)', { ...withContent({ c: [[1, 0, '1']] }), SK: 'RAW#001795132800000' }],
    ['a key outside the history partitions', { ...withContent({ c: [[1, 0, '1']] }), PK: 'DOC#x' }],
  ])('a stored item with %s fails to decode (a 500, never a guess)', (_, stored) => {
    expect(() => decodeHistory(stored)).toThrow(CorruptDataError);
  });

  it('an item whose stored bytes were changed fails to decode, or decodes to buckets that check', () => {
    const encoded = encodeHistory(item({ committed, pending }));
    const bytes = encoded.z as Uint8Array;
    for (let i = 0; i < bytes.length; i++) {
      const tampered = Uint8Array.from(bytes);
      tampered[i] ^= 0x5a;
      try {
        const decoded = decodeHistory({ ...encoded, z: tampered });
        // Whatever still decodes is a well-formed item of its span: each observation by its time, in its day.
        for (const buckets of [decoded.committed, decoded.pending?.buckets ?? new Map()])
          for (const [time, value] of buckets) {
            expect(value.at).toBe(time);
            expect(time - DAY_START).toBeGreaterThanOrEqual(0);
            expect(time - DAY_START).toBeLessThan(24 * HOUR);
          }
      } catch (error) {
        expect(error).toBeInstanceOf(CorruptDataError);
      }
    }
  });

  it('stays far under the 400 KB item limit at its largest: every bucket of the longest span, 64-digit decimals committed and pending', () => {
    const digits = () => Array.from({ length: 63 }, () => randomInt(10)).join('');
    const long = () => `${randomInt(1, 10)}${digits().slice(0, 40)}.${digits().slice(0, 22)}`;
    const largest = INTERVALS.map((interval) => {
      const { stored, bucketMs, perItem } = SERIES[interval];
      const start = itemStart(stored, DAY_START);
      const buckets = () =>
        new Map(
          Array.from({ length: perItem }, (_, i) => {
            const bucket = start + i * bucketMs;
            return [bucket, { apy: long(), tvl: long(), at: bucket + bucketMs - 1 }] as const;
          }),
        );
      const encoded = encodeHistory({
        key: historyKey('earn', 7, stored, start),
        resolution: stored,
        start,
        committed: buckets(),
        pending: { seq: 1, buckets: buckets() },
        expiresAt: 1_795_900_000,
      });
      expect(long()).toHaveLength(64);
      return (encoded.z as Uint8Array).length + 100; // its key and expiry: well under 100 bytes
    });
    expect(Math.max(...largest)).toBeLessThan(40 * 1024);
  });

  it("stays far under the 400 KB item limit with a day's most observations: MAX_DAY_OBSERVATIONS and 24 recorded, 64-digit decimals committed and pending", () => {
    const digits = () => Array.from({ length: 63 }, () => randomInt(10)).join('');
    const long = () => `${randomInt(1, 10)}${digits().slice(0, 40)}.${digits().slice(0, 22)}`;
    const count = MAX_DAY_OBSERVATIONS + 24;
    // Spread over the day, at distinct milliseconds (the least compressible times).
    const observations = () =>
      new Map(
        Array.from({ length: count }, (_, i) => {
          const time = DAY_START + Math.floor((i * 24 * HOUR) / count) + randomInt(1000);
          return [time, { apy: long(), tvl: long(), at: time }] as const;
        }),
      );
    const encoded = encodeHistory(item({ committed: observations(), pending: { seq: 1, buckets: observations() } }));
    const bytes = (encoded.z as Uint8Array).length + 100;
    expect(decodeHistory(encoded).committed.size).toBe(count);
    // About 199 KB: half of DynamoDB's limit at the very worst (every value random, every one corrected).
    expect(bytes).toBeLessThan(240 * 1024);
  });
});

function bucketOfWeek(week: number): number {
  return itemStart('1W', 0) + week * SERIES['1w'].bucketMs;
}

describe('the history journal', () => {
  it('a missing part or unreadable content fails to decode', () => {
    const items = encodeJournal({ seq: 1, series: [{ family: 'earn', id: 1, times: [1] }] });
    expect(() => decodeJournal([items[0], undefined])).toThrow(CorruptDataError);
    expect(() => decodeJournal([{ ...items[0], z: new Uint8Array([1, 2, 3]) }])).toThrow(CorruptDataError);
    expect(JSON.parse(gunzipSync(items[0].z as Uint8Array).toString())).toEqual([['earn', [1], [1]]]);
  });
});
