/**
 * Exact decimal strings. Finance values are kept as the strings they arrived as and returned byte
 * for byte; to order them we never go through a float. `compareDecimal` compares two decimal
 * strings exactly and `decimalSortKey` maps one to a string whose lexicographic order is the
 * numeric order (GSI5 sort keys and filter expressions use it).
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

const complementDigits = (digits: string) =>
  digits.replace(/\d/g, (d) => String(9 - Number(d)));

/**
 * An order-preserving string key: for decimal strings a < b exactly when key(a) < key(b) in code
 * unit order. Negative values start with '0', zero is '1', positive values start with '2'; then
 * a biased exponent and the significant digits (complemented for negatives, with a terminator
 * that sorts above every digit so that a shorter negative significand sorts after its extensions).
 */
export function decimalSortKey(value: string): string {
  const p = parse(value);
  if (p.digits === '') return '1';
  const exponent = String(EXPONENT_BIAS + p.exponent).padStart(EXPONENT_WIDTH, '0');
  if (!p.negative) return `2${exponent}${p.digits}`;
  const inverted = String(2 * EXPONENT_BIAS - (EXPONENT_BIAS + p.exponent)).padStart(EXPONENT_WIDTH, '0');
  return `0${inverted}${complementDigits(p.digits)}~`;
}
