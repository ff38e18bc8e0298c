import { compareDecimal, decimalSortKey, numberSortKey } from '../../../shared/platform/decimal';
import { compareExact, plainDecimal as plain } from '../../helpers/exact-decimal';
import { runs } from '../../helpers/property';

/**
 * A deterministic generator of awkward decimal strings: signs, leading/trailing zeros, long scales.
 * Its counts are property runs (PROPERTY_RUNS scales them).
 */
function* decimals(seed = 7, count = runs(3000)): Generator<string> {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(next() * 10)).join('');
  for (let i = 0; i < count; i++) {
    const int = next() < 0.2 ? '0' : digits(1 + Math.floor(next() * 45));
    const frac = next() < 0.4 ? '' : `.${digits(1 + Math.floor(next() * 40))}`;
    yield `${next() < 0.3 ? '-' : ''}${int}${frac}`;
  }
}

const reference = compareExact;

const sign = (n: number) => Math.sign(n);

describe('compareDecimal', () => {
  it.each([
    ['1', '1.0', 0],
    ['-0', '0.000', 0],
    ['0.1', '0.10000000000000000001', -1],
    ['10000000.5', '10000000.49999999999999999999999', 1],
    ['-1.5', '-1.49', -1],
    ['007', '7', 0],
    ['99999999999999999999999999999999999999999.1', '99999999999999999999999999999999999999999', 1],
  ])('compares %s and %s exactly', (a, b, expected) => {
    expect(sign(compareDecimal(a, b))).toBe(expected);
  });

  it('agrees with exact BigInt arithmetic on thousands of random pairs', () => {
    const values = [...decimals()];
    for (let i = 1; i < values.length; i++) {
      expect(sign(compareDecimal(values[i - 1], values[i]))).toBe(reference(values[i - 1], values[i]));
    }
  });

  it('refuses what is not a decimal string', () => {
    expect(() => compareDecimal('1e5', '1')).toThrow(/not a decimal/);
  });
});

describe('decimalSortKey', () => {
  it('orders keys as code units exactly as the numbers order', () => {
    const values = [...decimals(11, runs(2000))];
    const byNumber = [...values].sort(reference);
    const byKey = [...values].sort((a, b) => {
      const ka = decimalSortKey(a);
      const kb = decimalSortKey(b);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    // Equal numbers may appear in either order; compare the sequences of values. `firstEqual` is
    // `byNumber.findIndex((w) => reference(v, w) === 0)` by binary search: byNumber is sorted, so equal
    // values sit together and the first of them is the lower bound (4 million BigInt comparisons fewer).
    const firstEqual = (v: string) => {
      let lo = 0;
      let hi = byNumber.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (reference(byNumber[mid], v) < 0) lo = mid + 1;
        else hi = mid;
      }
      return lo < byNumber.length && reference(v, byNumber[lo]) === 0 ? lo : -1;
    };
    expect(byKey.map(firstEqual)).toEqual(byNumber.map(firstEqual));
  });

  it('gives equal numbers equal keys, and a key followed by "#" sorts below every larger number', () => {
    expect(decimalSortKey('5.50')).toBe(decimalSortKey('5.5'));
    expect(decimalSortKey('-0.0')).toBe(decimalSortKey('0'));
    expect(`${decimalSortKey('0.5')}#1` < decimalSortKey('0.51')).toBe(true);
    expect(`${decimalSortKey('-0.51')}#1` < decimalSortKey('-0.5')).toBe(true);
  });
});

describe('numberSortKey', () => {
  it('gives a number with an exponent the key of the same decimal', () => {
    const values = ['1e-7', '1.5E+2', '2.5E1', '0e5', '0.000e-3', '4.75e0', '12.5e-1', '1e30', '7E-30', '123456789e-4'];
    for (const value of values) expect([value, numberSortKey(value)]).toEqual([value, decimalSortKey(plain(value))]);
  });

  it('orders numbers with exponents exactly among stored decimal keys', () => {
    const numbers = [...decimals(23, runs(400))].map((v, i) => `${v}e${(i % 41) - 20}`);
    const stored = [...decimals(29, runs(400))];
    for (let i = 0; i < numbers.length; i++) {
      const a = numbers[i];
      const b = stored[i];
      const byKey = Math.sign(numberSortKey(a) < decimalSortKey(b) ? -1 : numberSortKey(a) > decimalSortKey(b) ? 1 : 0);
      const exact = a.startsWith('-') ? `-${plain(a.slice(1))}` : plain(a);
      expect([a, b, byKey]).toEqual([a, b, reference(exact, b)]);
    }
  });

  it('places exponents past what a key spells beside every stored key', () => {
    const huge = numberSortKey('1e999999');
    const tiny = numberSortKey('1e-99999999999999999999999999');
    for (const value of ['0', '0.0000000000000000000000000000001', '1', `9${'9'.repeat(200)}`, '-5']) {
      expect(huge > decimalSortKey(value)).toBe(true);
      expect(tiny > decimalSortKey(value)).toBe(compareDecimal(value, '0') <= 0);
    }
  });

  it('places negative exponents past what a key spells beside every stored key', () => {
    const huge = numberSortKey('-1e999999');
    const tiny = numberSortKey('-1e-99999999999999999999999999');
    for (const value of ['0', '-0.0000000000000000000000000000001', '1', `-9${'9'.repeat(200)}`, '-5']) {
      expect(huge < decimalSortKey(value)).toBe(true);
      expect(tiny > decimalSortKey(value)).toBe(compareDecimal(value, '0') < 0);
    }
  });

  it('refuses a malformed number', () => {
    expect(() => numberSortKey('+1')).toThrow(/not a number/);
    expect(() => numberSortKey('1e')).toThrow(/not a number/);
  });
});
