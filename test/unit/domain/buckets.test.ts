import {
  bucketStart,
  INTERVALS,
  PERIOD_SPEC,
  PERIODS,
  REACH_MS,
  RETENTION_MS,
  SERIES,
} from '../../../shared/domain/buckets';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('bucketStart', () => {
  it.each([
    ['1h', '2026-11-20T10:59:59.999Z', '2026-11-20T10:00:00.000Z'],
    ['4h', '2026-11-20T03:59:59.999Z', '2026-11-20T00:00:00.000Z'],
    ['4h', '2026-11-20T23:00:00.000Z', '2026-11-20T20:00:00.000Z'],
    ['1d', '2026-11-20T23:59:59.999Z', '2026-11-20T00:00:00.000Z'],
    ['1w', '2026-11-22T23:00:00.000Z', '2026-11-16T00:00:00.000Z'], // Sunday → Monday before
    ['1w', '2026-11-23T00:00:00.000Z', '2026-11-23T00:00:00.000Z'], // Monday itself
    ['1w', '1970-01-01T00:00:00.000Z', '1969-12-29T00:00:00.000Z'],
    ['1w', '1969-12-31T12:00:00.000Z', '1969-12-29T00:00:00.000Z'],
  ] as const)('%s bucket of %s starts at %s', (interval, time, start) => {
    expect(iso(bucketStart(interval, at(time)))).toBe(start);
  });
});

describe('the series declaration', () => {
  it('nests each interval in the next longer one, so a bucket is whole buckets of the shorter series', () => {
    for (let i = 1; i < INTERVALS.length; i++) {
      const [short, long] = [SERIES[INTERVALS[i - 1]], SERIES[INTERVALS[i]]];
      expect(long.bucketMs % short.bucketMs).toBe(0);
      expect(Math.abs((long.originMs - short.originMs) % short.bucketMs)).toBe(0);
    }
  });

  it('reaches back as far as the longest period of each interval (docs/api.md)', () => {
    expect(REACH_MS).toEqual({ '1h': 7 * DAY, '4h': 30 * DAY, '1d': 365 * DAY, '1w': null });
  });

  it('keeps each stored series as docs/data-model.md says: 8 days, 31 days + 4 h, 367 days, for ever', () => {
    expect(RETENTION_MS).toEqual({ '1H': 8 * DAY, '4H': 31 * DAY + 4 * HOUR, '1D': 367 * DAY, '1W': null });
  });

  it("stores a series for every interval (the observations as the hours' last), and every period uses a declared interval", () => {
    expect(INTERVALS.map((i) => SERIES[i].stored)).toEqual(['1H', '4H', '1D', '1W']);
    for (const p of PERIODS) expect(INTERVALS).toContain(PERIOD_SPEC[p].interval);
  });
});
