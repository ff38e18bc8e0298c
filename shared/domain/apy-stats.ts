/**
 * Trend and stability figures of an offer's APY (CONTRACT §13, docs/api.md "APY figures"):
 * computed from the offer's observations as of a refresh time `t` and its served APY, in exact
 * decimal arithmetic. Decimals become scaled integers (BigInt) and back; the deviation's square
 * root is an integer square root; means and deviations are rounded half-even to 6 places. No
 * float ever holds a value.
 */
import { DAY_MS } from '../platform/timestamps';

/** Decimal places of a mean or a deviation. */
const FIGURE_SCALE = 6;

/** One observation of the APY series: epoch ms and the decimal string observed. */
export type Observation = readonly [ms: number, apy: string];

export interface ApyStats {
  as_of: string;
  change_1d: string | null;
  change_7d: string | null;
  change_30d: string | null;
  mean_7d: string | null;
  mean_30d: string | null;
  stddev_30d: string | null;
  points_30d: number;
}

/** A decimal string as an integer and its scale: "-4.50" is { units: -450n, scale: 2 }. */
interface Scaled {
  units: bigint;
  scale: number;
}

function scaled(value: string): Scaled {
  const negative = value.startsWith('-');
  const [int, frac = ''] = (negative ? value.slice(1) : value).split('.');
  const units = BigInt(int + frac);
  return { units: negative ? -units : units, scale: frac.length };
}

const rescale = (v: Scaled, scale: number) => v.units * 10n ** BigInt(scale - v.scale);

/** The canonical decimal string of `units / 10^scale` with exactly `scale` places (no `-0`). */
function format(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const body = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${body}` : body;
}

/** `numerator / denominator` (denominator > 0) rounded half-even to an integer. */
function divideHalfEven(numerator: bigint, denominator: bigint): bigint {
  let quotient = numerator / denominator;
  let remainder = numerator % denominator;
  if (remainder < 0n) {
    quotient -= 1n;
    remainder += denominator;
  }
  const twice = 2n * remainder;
  if (twice > denominator || (twice === denominator && quotient % 2n !== 0n)) quotient += 1n;
  return quotient;
}

/** The largest integer whose square is at most `n` (n ≥ 0): Newton's iteration on integers. */
function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const next = (x + n / x) >> 1n;
    if (next >= x) return x;
    x = next;
  }
}

/** `sqrt(numerator / denominator)` (both ≥ 0, denominator > 0) rounded half-even to an integer. */
function sqrtHalfEven(numerator: bigint, denominator: bigint): bigint {
  const floor = isqrt(numerator / denominator);
  // sqrt(q) ≥ floor + ½  ⟺  4·numerator ≥ (2·floor + 1)²·denominator; equal only on an exact half.
  const half = (2n * floor + 1n) ** 2n * denominator;
  const four = 4n * numerator;
  if (four > half || (four === half && floor % 2n !== 0n)) return floor + 1n;
  return floor;
}

/** `a − b`, exact, at the larger scale of the two. */
function subtractDecimal(a: string, b: string): string {
  const x = scaled(a);
  const y = scaled(b);
  const scale = Math.max(x.scale, y.scale);
  return format(rescale(x, scale) - rescale(y, scale), scale);
}

/** Latest observation at or before `at`, if it is not older than `at − 24 h` (observations ascend). */
function referenceAt(observations: readonly Observation[], at: number): string | null {
  for (let i = observations.length - 1; i >= 0; i--) {
    const [ms, apy] = observations[i];
    if (ms > at) continue;
    return ms >= at - DAY_MS ? apy : null;
  }
  return null;
}

/** The daily points (last observation of each UTC day) at or before `t`, whose day starts in (t − days, t]. */
function dailyPoints(observations: readonly Observation[], t: number, days: number): string[] {
  const byDay = new Map<number, string>();
  for (const [ms, apy] of observations) {
    if (ms > t) break;
    const dayStart = Math.floor(ms / DAY_MS) * DAY_MS;
    if (dayStart > t - days * DAY_MS) byDay.set(dayStart, apy);
  }
  return [...byDay.values()];
}

/** Mean and population deviation of decimal strings, each rounded half-even to 6 places. */
function meanAndDeviation(values: readonly string[]): { mean: string; deviation: string } {
  const parts = values.map(scaled);
  const scale = Math.max(...parts.map((p) => p.scale));
  const xs = parts.map((p) => rescale(p, scale));
  const n = BigInt(xs.length);
  const sum = xs.reduce((a, b) => a + b, 0n);
  const sumOfSquares = xs.reduce((a, b) => a + b * b, 0n);
  const unit = 10n ** BigInt(scale);
  const target = 10n ** BigInt(FIGURE_SCALE);
  // mean·10^6 = sum·10^6 / (n·10^scale); variance·10^12 = (n·Σx² − (Σx)²)·10^12 / (n²·10^(2·scale)).
  const mean = divideHalfEven(sum * target, n * unit);
  const deviation = sqrtHalfEven((n * sumOfSquares - sum * sum) * target * target, n * n * unit * unit);
  return { mean: format(mean, FIGURE_SCALE), deviation: format(deviation, FIGURE_SCALE) };
}

/**
 * The figures of §13 at refresh time `t` (epoch ms) for an offer whose served APY is `current`,
 * from its observations in ascending time order (those after `t` are not seen).
 */
export function apyStats(observations: readonly Observation[], current: string, t: number): ApyStats {
  const change = (days: number) => {
    const reference = referenceAt(observations, t - days * DAY_MS);
    return reference === null ? null : subtractDecimal(current, reference);
  };
  const week = dailyPoints(observations, t, 7);
  const month = dailyPoints(observations, t, 30);
  const monthFigures = month.length * 2 >= 30 ? meanAndDeviation(month) : null;
  return {
    as_of: new Date(t).toISOString(),
    change_1d: change(1),
    change_7d: change(7),
    change_30d: change(30),
    mean_7d: week.length * 2 >= 7 ? meanAndDeviation(week).mean : null,
    mean_30d: monthFigures?.mean ?? null,
    stddev_30d: monthFigures?.deviation ?? null,
    points_30d: month.length,
  };
}

/** The `apy_stats` object's JSON, its fields in the order of `ApyStats` (what `include=apy_stats` splices in). */
export function apyStatsJson(stats: ApyStats): string {
  const { as_of, change_1d, change_7d, change_30d, mean_7d, mean_30d, stddev_30d, points_30d } = stats;
  return JSON.stringify({ as_of, change_1d, change_7d, change_30d, mean_7d, mean_30d, stddev_30d, points_30d });
}
