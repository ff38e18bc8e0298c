/**
 * Random APY figures (CONTRACT §13) as an import hands them to the projection: every figure null
 * or not, ties in different magnitudes, negative means and changes (borrow), and values far past
 * 2^53 micro-units (where the index compares exactly by keys instead of doubles).
 */
import type { ApyStats } from '../../shared/domain/apy-stats';
import { AS_OF } from './offer-facts';
import { fc } from './property';

const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));

/** An integer part: small, at the edge of 2^53 micro-units (9,007,199,254.740992), or far past it. */
const integerPart = fc.oneof(
  fc.constantFrom('0', '1', '4', '9007199254', '9007199255', '999999999', '1000000000'),
  fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 3)).map(([a, b]) => `${a}${b}`),
  fc.tuple(fc.integer({ min: 1, max: 9 }), digits(9, 30)).map(([a, b]) => `${a}${b}`),
);

/** A figure with exactly 6 decimals (a mean or a deviation), signed when `signed`. */
const sixPlaces = (signed: boolean): fc.Arbitrary<string> =>
  fc
    .tuple(
      signed ? fc.boolean() : fc.constant(false),
      integerPart,
      fc.oneof(fc.constantFrom('000000', '500000', '740992', '740993', '999999'), digits(6, 6)),
    )
    .map(([negative, int, frac]) => {
      const text = `${int}.${frac}`;
      return negative && /[1-9]/.test(text) ? `-${text}` : text;
    });

/** A change: any scale, any sign. */
const change = fc
  .tuple(fc.boolean(), integerPart, fc.option(digits(1, 12), { nil: undefined }))
  .map(([negative, int, frac]) => {
    const text = frac === undefined ? int : `${int}.${frac}`;
    return negative && /[1-9]/.test(text) ? `-${text}` : text;
  });

const nullable = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null, freq: 4 });

/** One offer's figures as of AS_OF. */
export const apyStatsArb: fc.Arbitrary<ApyStats> = fc.record({
  as_of: fc.constant(AS_OF),
  change_1d: nullable(change),
  change_7d: nullable(change),
  change_30d: nullable(change),
  mean_7d: nullable(sixPlaces(true)),
  mean_30d: nullable(sixPlaces(true)),
  stddev_30d: nullable(sixPlaces(false)),
  points_30d: fc.integer({ min: 0, max: 31 }),
});

/** Figures for some of `ids` (an offer left out has none): the map an import passes to projectOffers. */
export const figureMapArb = (ids: readonly number[]): fc.Arbitrary<Map<number, ApyStats>> =>
  fc
    .array(fc.option(apyStatsArb, { nil: undefined, freq: 6 }), { minLength: ids.length, maxLength: ids.length })
    .map((stats) => new Map(ids.flatMap((id, i) => (stats[i] === undefined ? [] : [[id, stats[i]] as const]))));
