/**
 * The worst batch's decimals (tools/bench/dense-history.ts `longDecimal`): 64 characters of a data
 * file's canonical form, the same for a seed in every run, and as random as their digits allow, so
 * the items the bench reads compress no better than real 64-digit values would.
 */
import { deflateRawSync } from 'node:zlib';
import { DECIMAL_PATTERN } from '../../../../shared/platform/decimal';
import { longDecimal } from '../../../../tools/bench/dense-history';

const values = Array.from({ length: 2_000 }, (_, i) => longDecimal(`7:${i}:committed:apy`));

it('is a canonical decimal of 64 characters, the same for a seed, another for another', () => {
  for (const value of values) {
    expect(value).toHaveLength(64);
    expect(value).toMatch(DECIMAL_PATTERN);
    expect(value).toMatch(/^[1-9]\d*\.\d+$/);
  }
  expect(longDecimal('7:0:committed:apy')).toBe(values[0]);
  expect(new Set(values).size).toBe(values.length);
});

it('does not compress below the information its digits hold (log2(10) bits a digit)', () => {
  const digits = values.join('').replace(/\./g, '').length;
  const deflated = deflateRawSync(values.join(''), { level: 9 }).length;
  expect(deflated * 8).toBeGreaterThanOrEqual(digits * Math.log2(10));
  // Each digit about equally frequent.
  const counts = new Map<string, number>();
  for (const d of values.join('').replace(/\./g, '')) counts.set(d, (counts.get(d) ?? 0) + 1);
  for (const digit of '0123456789') expect(counts.get(digit)! / digits).toBeCloseTo(0.1, 1);
});
