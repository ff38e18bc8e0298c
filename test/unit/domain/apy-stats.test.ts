import fc from 'fast-check';
import { type ApyStats, apyStats, type Observation } from '../../../shared/domain/apy-stats';

/*
 * The oracle is written from CONTRACT §13's text, not from the implementation: rational numbers as
 * BigInt fractions, days grouped by their ISO date, the square root found by bisection on exact
 * squares, half-even rounding by comparing the remainder with one half.
 */
interface Fraction {
  n: bigint;
  d: bigint;
}
const fraction = (value: string): Fraction => {
  const [int, frac = ''] = value.replace('-', '').split('.');
  const n = BigInt(int + frac) * (value.startsWith('-') ? -1n : 1n);
  return { n, d: 10n ** BigInt(frac.length) };
};
const add = (a: Fraction, b: Fraction): Fraction => ({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
const times = (a: Fraction, b: Fraction): Fraction => ({ n: a.n * b.n, d: a.d * b.d });
const over = (a: Fraction, k: bigint): Fraction => ({ n: a.n, d: a.d * k });
const MILLION = 1_000_000n;

/** `value` (≥ 0 or not) rounded half-even to 6 places, as a decimal string with 6 places. */
function roundToSix(value: Fraction): string {
  const scaledN = value.n * MILLION;
  const sign = scaledN < 0n !== value.d < 0n ? -1n : 1n;
  const absN = scaledN < 0n ? -scaledN : scaledN;
  const absD = value.d < 0n ? -value.d : value.d;
  let q = absN / absD;
  const r = absN - q * absD;
  if (2n * r > absD || (2n * r === absD && q % 2n === 1n)) q += 1n;
  return sixPlaces(sign * q);
}
function sixPlaces(units: bigint): string {
  const negative = units < 0n;
  const s = (negative ? -units : units).toString().padStart(7, '0');
  return `${negative ? '-' : ''}${s.slice(0, -6)}.${s.slice(-6)}`;
}

/** sqrt(value) rounded half-even to 6 places, by bisection on k² ≤ value·10^12 and a tie test. */
function sqrtToSix(value: Fraction): string {
  const target = { n: value.n * MILLION * MILLION, d: value.d };
  const atMost = (k: bigint) => k * k * target.d <= target.n; // k² ≤ target
  let lo = 0n;
  let hi = 1n;
  while (atMost(hi)) hi *= 2n;
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (atMost(mid)) lo = mid;
    else hi = mid;
  }
  // lo = floor(sqrt(target)); compare target with (lo + ½)² = (4lo² + 4lo + 1) / 4.
  const halfSquare = (2n * lo + 1n) * (2n * lo + 1n) * target.d;
  const fourTarget = 4n * target.n;
  const up = fourTarget > halfSquare || (fourTarget === halfSquare && lo % 2n === 1n);
  return sixPlaces(up ? lo + 1n : lo);
}

function exactDifference(a: string, b: string): string {
  const scale = Math.max((a.split('.')[1] ?? '').length, (b.split('.')[1] ?? '').length);
  const diff = add(fraction(a), times(fraction(b), { n: -1n, d: 1n }));
  const units = (diff.n * 10n ** BigInt(scale)) / diff.d;
  const negative = units < 0n;
  const s = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const body = scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
  return `${negative ? '-' : ''}${body}`;
}

function oracle(observations: Observation[], current: string, t: number): ApyStats {
  const DAY = 86_400_000;
  const seen = observations.filter(([ms]) => ms <= t);
  const change = (n: number) => {
    const at = t - n * DAY;
    const before = seen.filter(([ms]) => ms <= at);
    const latest = before[before.length - 1];
    if (!latest || latest[0] < at - DAY) return null;
    return exactDifference(current, latest[1]);
  };
  const daily = (n: number) => {
    const byDate = new Map<string, string>();
    for (const [ms, apy] of seen) byDate.set(new Date(ms).toISOString().slice(0, 10), apy);
    return [...byDate].filter(([date]) => Date.parse(`${date}T00:00:00Z`) > t - n * DAY).map(([, apy]) => apy);
  };
  const mean = (values: string[]) => over(values.map(fraction).reduce(add, { n: 0n, d: 1n }), BigInt(values.length));
  const deviation = (values: string[]) => {
    const m = mean(values);
    const squares = values.map((v) => {
      const diff = add(fraction(v), times(m, { n: -1n, d: 1n }));
      return times(diff, diff);
    });
    return sqrtToSix(over(squares.reduce(add, { n: 0n, d: 1n }), BigInt(values.length)));
  };
  const week = daily(7);
  const month = daily(30);
  const enough = (values: string[], n: number) => values.length >= n / 2;
  return {
    as_of: new Date(t).toISOString(),
    change_1d: change(1),
    change_7d: change(7),
    change_30d: change(30),
    mean_7d: enough(week, 7) ? roundToSix(mean(week)) : null,
    mean_30d: enough(month, 30) ? roundToSix(mean(month)) : null,
    stddev_30d: enough(month, 30) ? deviation(month) : null,
    points_30d: month.length,
  };
}

const T = Date.parse('2026-11-26T10:17:00.000Z');
const DAY = 86_400_000;
const HOUR = 3_600_000;

/** A decimal string in canonical form (§8): no leading zeros, no `-0`, 0–8 places kept as given. */
const decimal = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 10n }), fc.integer({ min: 0, max: 8 }))
  .map(([negative, units, scale]) => {
    const s = units.toString().padStart(scale + 1, '0');
    const body = scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
    return negative && units !== 0n ? `-${body}` : body;
  });

/** Histories over 40 days before T (and some after it), with gaps, several a day, ties of value. */
const history = fc
  .uniqueArray(fc.integer({ min: -40 * 24, max: 6 }), { maxLength: 120 })
  .chain((hours) =>
    fc.tuple(
      ...hours
        .sort((a, b) => a - b)
        .map((h) =>
          fc
            .tuple(fc.integer({ min: 0, max: HOUR - 1 }), fc.oneof(decimal, fc.constant('4.5')))
            .map(([jitter, apy]) => [T + h * HOUR + jitter, apy] as Observation),
        ),
    ),
  );

describe('apyStats (CONTRACT §13)', () => {
  it('agrees with an oracle written from the contract, over random histories', () => {
    // t anywhere in the day before T, or exactly at its midnight (a window's open end on a day start).
    const shifts = fc.oneof(fc.integer({ min: 0, max: DAY }), fc.constant(T - Date.parse('2026-11-26T00:00:00.000Z')));
    fc.assert(
      fc.property(history, decimal, shifts, (observations, current, shift) => {
        const t = T - shift;
        expect(apyStats(observations, current, t)).toEqual(oracle(observations, current, t));
      }),
    );
  });

  it('agrees with the oracle on one point a day for 31 days, where every figure exists', () => {
    fc.assert(
      fc.property(fc.array(decimal, { minLength: 32, maxLength: 32 }), decimal, (values, current) => {
        const observations = values.map((apy, i) => [T - (31 - i) * DAY, apy] as Observation);
        const stats = apyStats(observations, current, T);
        expect(stats).toEqual(oracle(observations, current, T));
        expect(stats.points_30d).toBe(30);
        expect([stats.change_1d, stats.change_7d, stats.change_30d, stats.mean_30d]).not.toContain(null);
      }),
    );
  });

  it('computes the worked example of docs/api.md', () => {
    // One observation a day at 10:17 for 31 days ending at t, alternating 4.0 and 5.00 (the last is
    // 4.0, the one a day before 5.00); served APY 6.25. The 7 days (t − 7 d, t] hold 4 × 4.0 and
    // 3 × 5.00: 31 / 7 = 4.4285714… → 4.428571; the 30 days hold 15 of each: 4.5, deviation 0.5.
    const observations: Observation[] = Array.from({ length: 31 }, (_, i) => [
      T - (30 - i) * DAY,
      i % 2 === 0 ? '4.0' : '5.00',
    ]);
    expect(apyStats(observations, '6.25', T)).toEqual({
      as_of: '2026-11-26T10:17:00.000Z',
      change_1d: '1.25', // 6.25 − 5.00 (a day before t)
      change_7d: '1.25', // 6.25 − 5.00
      change_30d: '2.25', // 6.25 − 4.0
      mean_7d: '4.428571',
      mean_30d: '4.500000',
      stddev_30d: '0.500000',
      points_30d: 30,
    });
  });

  it('rounds half to even and keeps the larger scale of a change', () => {
    // Means of two points: 0.0000005 → 0.000000 (even), 0.0000015 → 0.000002 (even).
    const two = (a: string, b: string): Observation[] => [
      [T - HOUR * 30, a],
      [T - HOUR, b],
    ];
    const meanOf = (a: string, b: string) => {
      const days = Array.from({ length: 4 }, (_, i) => [T - (3 - i) * DAY, i % 2 ? a : b] as Observation);
      return apyStats(days, '0', T).mean_7d;
    };
    expect(meanOf('0.000001', '0')).toBe('0.000000');
    expect(meanOf('0.000003', '0')).toBe('0.000002');
    expect(apyStats(two('3.2', '4.50'), '4.50', T).change_1d).toBe('1.30');
    expect(apyStats(two('4.50', '4.5'), '4.5', T).change_1d).toBe('0.00');
    expect(apyStats(two('-1.5', '-1.5'), '-3', T).change_1d).toBe('-1.5');
  });

  it('rounds a deviation that lies exactly half-way to the even neighbour', () => {
    // 16 daily points alternating a and b: mean (a + b) / 2, population deviation |a − b| / 2.
    const alternating = (a: string, b: string) =>
      Array.from({ length: 16 }, (_, i) => [T - (15 - i) * DAY, i % 2 ? a : b] as Observation);
    expect(apyStats(alternating('0', '0.000001'), '0', T).stddev_30d).toBe('0.000000');
    expect(apyStats(alternating('0', '0.000003'), '0', T).stddev_30d).toBe('0.000002');
  });

  it('needs at least half the days of a window to have a point', () => {
    const daily = (count: number) => Array.from({ length: count }, (_, i) => [T - i * DAY, '4'] as Observation);
    expect(apyStats(daily(15), '4', T)).toMatchObject({ mean_30d: '4.000000', stddev_30d: '0.000000', points_30d: 15 });
    expect(apyStats(daily(14), '4', T)).toMatchObject({ mean_30d: null, stddev_30d: null, points_30d: 14 });
    expect(apyStats(daily(4), '4', T).mean_7d).toBe('4.000000');
    expect(apyStats(daily(3), '4', T).mean_7d).toBeNull();
  });

  it('gives null where no observation is within a day before t − N days, and ignores later ones', () => {
    const stats = apyStats([[T - 2 * DAY - 1, '4']], '5', T);
    expect(stats.change_1d).toBeNull();
    expect(apyStats([[T - 2 * DAY, '4']], '5', T).change_1d).toBe('1');
    expect(apyStats([[T + 1, '9']], '5', T)).toMatchObject({ change_1d: null, points_30d: 0, mean_7d: null });
  });
});
