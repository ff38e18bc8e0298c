/**
 * The tests' own exact decimal comparison, independent of shared/decimal.ts: scale both values
 * to a common number of fraction digits and compare them as BigInt.
 */
export function compareExact(a: string, b: string): number {
  const [ai, af = ''] = a.split('.');
  const [bi, bf = ''] = b.split('.');
  const scale = Math.max(af.length, bf.length);
  const big = (i: string, f: string) => BigInt(i.replace('-', '') + f.padEnd(scale, '0')) * (i.startsWith('-') ? -1n : 1n);
  const x = big(ai, af);
  const y = big(bi, bf);
  return x < y ? -1 : x > y ? 1 : 0;
}
