/**
 * History sort keys (shared/data/keys.ts): each names the item of a series that packs the bucket of a
 * time (its aligned span), orders like the time, before 1970 too (the weekly item and bucket of
 * 1970-01-01 start on Monday 1969-12-29), and reads back as its series and its first bucket's start.
 */
import { historySortKey, parseHistorySortKey } from '../../../shared/data/keys';
import { INTERVALS, itemStart, SERIES } from '../../../shared/model/history-series';
import { fc, runs } from '../../helpers/property';

// From the earliest bucket start (three days before the epoch) to the last millisecond of 9999.
const time = fc.integer({ min: -3 * 86_400_000, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });
const series = fc.constantFrom(...INTERVALS.map((i) => SERIES[i].stored));

it('names the item whose span holds the time, orders keys as their times, and reads each back', () => {
  fc.assert(
    fc.property(series, time, time, (resolution, a, b) => {
      const [ka, kb] = [historySortKey(resolution, a), historySortKey(resolution, b)];
      const [sa, sb] = [itemStart(resolution, a), itemStart(resolution, b)];
      expect(Math.sign(ka < kb ? -1 : ka > kb ? 1 : 0)).toBe(Math.sign(sa - sb));
      expect(parseHistorySortKey(ka)).toEqual({ resolution, start: sa });
      const { bucketMs, perItem } = SERIES[INTERVALS.find((i) => SERIES[i].stored === resolution)!];
      expect(a - sa).toBeGreaterThanOrEqual(0);
      expect(a - sa).toBeLessThan(bucketMs * perItem);
    }),
    { numRuns: runs(2000) },
  );
  expect(historySortKey('1W', -1) < historySortKey('1W', 7 * 86_400_000 * 52)).toBe(true);
  expect(parseHistorySortKey(historySortKey('1W', 0))).toEqual({ resolution: '1W', start: -259_200_000 });
});

it('spells the layout: the series, the buckets an item packs, the span start in 15 digits', () => {
  expect(historySortKey('1H', Date.parse('2026-11-20T08:30:00Z'))).toBe('1H.24#001795132800000');
  expect(historySortKey('1W', 0)).toBe('1W.52#-999999740800000');
  // Another packing or a key that is no span's start is no key of this layout.
  expect(parseHistorySortKey('1H.12#001795132800000')).toBeUndefined();
  expect(parseHistorySortKey('1H.24#001795136400000')).toBeUndefined();
  expect(parseHistorySortKey('RAW#001795136400000')).toBeUndefined();
});
