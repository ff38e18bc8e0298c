/**
 * Exact decimal strings. Finance values are kept as the strings they arrived as and returned byte
 * for byte; to order them we never go through a float. `compareDecimal` compares two decimal
 * strings exactly and `decimalSortKey` maps one to a string whose lexicographic order is the
 * numeric order (the family index's APY and TVL columns and the `min_apy`/`min_tvl` bounds use it). `numberSortKey` gives the same key
 * for a number in the JSON grammar (exponent allowed), as `min_apy` arrives (docs/api.md).
 */

/** A decimal string as the data files and the API carry it: no sign but `-`, no exponent. */
export const DECIMAL_PATTERN = /^-?\d+(\.\d+)?$/;

interface Parsed {
  negative: boolean;
  /** Significant digits without leading or trailing zeros ('' for zero). */
  digits: string;
  /** Position of the decimal point relative to `digits`: value = 0.digits × 10^exponent. */
  exponent: number;
}

function parse(value: string): Parsed {
  if (!DECIMAL_PATTERN.test(value)) throw new Error(`not a decimal string: ${value}`);
  const negative = value.startsWith('-');
  const unsigned = negative ? value.slice(1) : value;
  const [int, frac = ''] = unsigned.split('.');
  const all = int + frac;
  const lead = all.search(/[1-9]/);
  if (lead < 0) return { negative: false, digits: '', exponent: 0 };
  const digits = all.slice(lead).replace(/0+$/, '');
  return { negative, digits, exponent: int.length - lead };
}

function compareMagnitude(a: Parsed, b: Parsed): number {
  if (a.digits === '' || b.digits === '') return (a.digits === '' ? 0 : 1) - (b.digits === '' ? 0 : 1);
  if (a.exponent !== b.exponent) return a.exponent < b.exponent ? -1 : 1;
  return a.digits < b.digits ? -1 : a.digits > b.digits ? 1 : 0;
}

/** Exact numeric comparison of two decimal strings: negative, zero or positive. */
export function compareDecimal(a: string, b: string): number {
  const pa = parse(a);
  const pb = parse(b);
  const signA = pa.digits === '' ? 0 : pa.negative ? -1 : 1;
  const signB = pb.digits === '' ? 0 : pb.negative ? -1 : 1;
  if (signA !== signB) return signA < signB ? -1 : 1;
  const magnitude = compareMagnitude(pa, pb);
  return signA < 0 ? -magnitude : magnitude;
}

const EXPONENT_BIAS = 50_000;
const EXPONENT_WIDTH = 6;

const complementDigits = (digits: string) => digits.replace(/\d/g, (d) => String(9 - Number(d)));

/**
 * An order-preserving string key: for decimal strings a < b exactly when key(a) < key(b) in code
 * unit order. Negative values start with '0', zero is '1', positive values start with '2'; then
 * a biased exponent and the significant digits (complemented for negatives, with a terminator
 * that sorts above every digit so that a shorter negative significand sorts after its extensions).
 */
export function decimalSortKey(value: string): string {
  return keyOf(parse(value));
}

function keyOf(p: Parsed): string {
  if (p.digits === '') return '1';
  const exponent = String(EXPONENT_BIAS + p.exponent).padStart(EXPONENT_WIDTH, '0');
  if (!p.negative) return `2${exponent}${p.digits}`;
  const inverted = String(2 * EXPONENT_BIAS - (EXPONENT_BIAS + p.exponent)).padStart(EXPONENT_WIDTH, '0');
  return `0${inverted}${complementDigits(p.digits)}~`;
}

/** A number in the JSON grammar: optional `-`, digits, optional fraction, optional exponent. */
const JSON_NUMBER = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** The exponents a key spells at its fixed width: those of every decimal string under 50,000 digits. */
const MIN_EXPONENT = -EXPONENT_BIAS;
const MAX_EXPONENT = 10 ** EXPONENT_WIDTH - 1 - EXPONENT_BIAS;

/**
 * The key of a JSON number, compared exactly with the keys of decimal strings. Past the exponents
 * a key can spell, the key is one that sorts beside every spelled key: above all of them ('3') for
 * a huge number, between zero ('1') and every positive key ('2…') for a tiny one; for a negative
 * one, below all of them ('0') when huge, between every negative key and zero ('0~') when tiny.
 */
export function numberSortKey(value: string): string {
  const match = JSON_NUMBER.exec(value);
  if (!match) throw new Error(`not a number: ${value}`);
  const [, sign, int, frac = '', exp = '0'] = match;
  const p = parse(`${sign}${int}.${frac || '0'}`);
  if (p.digits === '') return keyOf(p);
  const exponent = p.exponent + Number(exp);
  if (exponent > MAX_EXPONENT) return p.negative ? '0' : '3';
  if (exponent < MIN_EXPONENT) return p.negative ? '0~' : '2';
  return keyOf({ ...p, exponent });
}

/**
 * A JSON number as a whole count of `10^-scale` units, rounded up (`ceil`) or down (`floor`), when
 * that count is below `limit` in magnitude; `Infinity` (`-Infinity`) when it is not. An integer `x`
 * of those units is then at least the number exactly when `x >= unitsBound(value, scale, 'ceil', limit)`,
 * and at most it exactly when `x <= unitsBound(value, scale, 'floor', limit)`, for any `x` below
 * `limit` in magnitude (at most 10^15, where the count is an exact double). No exponent makes it
 * build a long string.
 */
export function unitsBound(value: string, scale: number, rounding: 'ceil' | 'floor', limit: number): number {
  const match = JSON_NUMBER.exec(value);
  if (!match) throw new Error(`not a number: ${value}`);
  const [, sign, int, frac = '', exp = '0'] = match;
  // -m rounds up to -(m rounded down), and down to -(m rounded up).
  if (sign === '-') return 0 - magnitudeUnits(int, frac, exp, scale, rounding === 'ceil' ? 'floor' : 'ceil', limit);
  return magnitudeUnits(int, frac, exp, scale, rounding, limit);
}

function magnitudeUnits(
  int: string,
  frac: string,
  exp: string,
  scale: number,
  rounding: 'ceil' | 'floor',
  limit: number,
): number {
  const digits = `${int}${frac}`.replace(/^0+/, '');
  if (digits === '') return 0;
  // value = digits × 10^shift units.
  const shift = Number(exp) - frac.length + scale;
  const whole = digits.length + shift;
  const maxDigits = String(limit).length;
  if (whole > maxDigits) return Number.POSITIVE_INFINITY;
  const kept = whole <= 0 ? '' : shift >= 0 ? digits + '0'.repeat(shift) : digits.slice(0, whole);
  const dropped = whole <= 0 ? digits : shift >= 0 ? '' : digits.slice(whole);
  const units = Number(kept || '0') + (rounding === 'ceil' && /[1-9]/.test(dropped) ? 1 : 0);
  return units < limit ? units : Number.POSITIVE_INFINITY;
}

/** A decimal string as an integer count of 10^-scale units. */
function scaledUnits(value: string): { units: bigint; scale: number } {
  if (!DECIMAL_PATTERN.test(value)) throw new Error(`not a decimal string: ${value}`);
  const negative = value.startsWith('-');
  const [int, frac = ''] = (negative ? value.slice(1) : value).split('.');
  const units = BigInt(int + frac);
  return { units: negative ? -units : units, scale: frac.length };
}

/** Whether |a − b| ≥ bound, exactly (three decimal strings; bound ≥ 0). */
export function differsByAtLeast(a: string, b: string, bound: string): boolean {
  const [x, y, d] = [scaledUnits(a), scaledUnits(b), scaledUnits(bound)];
  const scale = Math.max(x.scale, y.scale, d.scale);
  const at = (v: { units: bigint; scale: number }) => v.units * 10n ** BigInt(scale - v.scale);
  const difference = at(x) - at(y);
  return (difference < 0n ? -difference : difference) >= at(d);
}
