/**
 * History sort keys (shared/data/keys.ts): a time's key part orders like the time, before 1970 too (the
 * weekly bucket of 1970-01-01 starts on Monday 1969-12-29), reads back as the same time, and keeps
 * the key of every time from 1970 on as it was, so stored history stays valid.
 */
import { historySortKey, msOfHistorySortKey } from '../../../shared/data/keys';
import { fc, runs } from '../../helpers/property';

// From the earliest bucket start (three days before the epoch) to the last millisecond of 9999.
const time = fc.integer({ min: -3 * 86_400_000, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });

it('orders keys as their times, and reads each back', () => {
  fc.assert(
    fc.property(time, time, (a, b) => {
      const [ka, kb] = [historySortKey('1W', a), historySortKey('1W', b)];
      expect(Math.sign(ka < kb ? -1 : ka > kb ? 1 : 0)).toBe(Math.sign(a - b));
      expect(msOfHistorySortKey(ka)).toBe(a);
    }),
    { numRuns: runs(2000) },
  );
  expect(historySortKey('1W', -1) < historySortKey('1W', 0)).toBe(true);
  expect(msOfHistorySortKey(historySortKey('1W', -259_200_000))).toBe(-259_200_000);
});

it('keeps the key of every time from 1970 on byte for byte', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), (ms) => {
      expect(historySortKey('RAW', ms)).toBe(`RAW#${String(ms).padStart(15, '0')}`);
    }),
  );
  expect(historySortKey('4H', Date.parse('2026-11-20T08:00:00Z'))).toBe('4H#001795161600000');
});
