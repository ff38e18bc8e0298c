/**
 * The tests' own exact decimal comparison, independent of shared/platform/decimal.ts: scale both values
 * to a common number of fraction digits and compare them as BigInt.
 */
export function compareExact(a: string, b: string): number {
  const [ai, af = ''] = a.split('.');
  const [bi, bf = ''] = b.split('.');
  const scale = Math.max(af.length, bf.length);
  const big = (i: string, f: string) =>
    BigInt(i.replace('-', '') + f.padEnd(scale, '0')) * (i.startsWith('-') ? -1n : 1n);
  const x = big(ai, af);
  const y = big(bi, bf);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A JSON number (exponent allowed, modest) written out as a plain decimal string. */
export function plainDecimal(json: string): string {
  const [mantissa, exp = '0'] = json.toLowerCase().split('e');
  const [int, frac = ''] = mantissa.split('.');
  const digits = int + frac;
  const point = int.length + Number(exp);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
