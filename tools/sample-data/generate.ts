/**
 * A deterministic, realistic dataset (README.md, "Data import") for local runs, tests and benchmarks. Same
 * options, same output: all randomness comes from `seed` and every time is placed before `now`.
 */

import { RETENTION_MS, SERIES } from '../../shared/domain/buckets';
import { OFFER_FAMILIES, OFFER_FAMILY, type OfferFamily } from '../../shared/model/offer-families';
import { DAY_MS, HOUR_MS } from '../../shared/platform/timestamps';
import { generateCurrencies } from './currencies';
import { generateHistories, type HistoryOptions } from './history';
import { createOfferContext } from './offer-context';
import { generatePlatforms, isListedRef } from './platforms';
import { OFFER_RECIPES, type PresetSize } from './recipes';
import type { GeneratedDataset, OffersByFamily } from './types';

/** How many records of each offer family. */
type OfferCounts = Record<OfferFamily, number>;

export interface GenerateOptions extends HistoryOptions, OfferCounts {
  seed: number;
  /** The anchor: every timestamp is at or before it, and histories end at it. */
  now: Date;
  currencies: number;
  exchanges: number;
  wallets: number;
  protocols: number;
}

/** Each offer family's count in a preset (tools/sample-data/recipes.ts). */
const countsOf = (size: PresetSize) =>
  Object.fromEntries(OFFER_FAMILIES.map((family) => [family, OFFER_RECIPES[family].counts[size]])) as OfferCounts;

/** The anchor of a dataset generated at `now`: the start of its UTC hour, so that a run within one hour generates the same file. */
export const anchorOf = (now: Date): Date => new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);

/** A preset is everything but the anchor time, which the caller supplies. */
export type GeneratePreset = Readonly<Omit<GenerateOptions, 'now'>>;

/** The days the 1 h series keeps its points: a living sample is hourly over them, daily before. */
const RAW_DAYS = RETENTION_MS[SERIES['1h'].stored]! / DAY_MS;

/**
 * What `npm start` serves: every edge case, and every published earn and borrow offer with 90
 * days of history ending at the anchor (CONTRACT §9), so that its figures are there.
 */
export const SAMPLE: GeneratePreset = {
  seed: 2024,
  currencies: 400,
  exchanges: 40,
  wallets: 30,
  protocols: 40,
  ...countsOf('sample'),
  historyOffers: 'all',
  historyDays: 90,
  historyStepHours: 1,
  historyDetailDays: RAW_DAYS,
};

/** The load the service is sized for: three years of hourly history for 50 offers. */
export const BENCH: GeneratePreset = {
  seed: 2024,
  currencies: 10_000,
  exchanges: 1_000,
  wallets: 500,
  protocols: 3_000,
  ...countsOf('bench'),
  historyOffers: 50,
  historyDays: 3 * 365,
  historyStepHours: 1,
};

/** A tenth of BENCH, for a benchmark that finishes in seconds. */
export const QUICK_BENCH: GeneratePreset = {
  seed: 2024,
  currencies: 1_000,
  exchanges: 100,
  wallets: 50,
  protocols: 300,
  ...countsOf('quickBench'),
  historyOffers: 10,
  historyDays: 90,
  historyStepHours: 1,
};

export const PRESETS = { sample: SAMPLE, 'quick-bench': QUICK_BENCH, bench: BENCH } as const;
export type PresetName = keyof typeof PRESETS;

const COUNT_FIELDS = ['currencies', 'exchanges', 'wallets', 'protocols', ...OFFER_FAMILIES] as const;

function assertValid(options: GenerateOptions): void {
  const problems: string[] = [];
  if (!Number.isSafeInteger(options.seed)) problems.push('seed must be a safe integer');
  if (!(options.now instanceof Date) || Number.isNaN(options.now.getTime())) problems.push('now must be a valid Date');
  for (const field of COUNT_FIELDS) {
    if (!Number.isSafeInteger(options[field]) || options[field] < 0)
      problems.push(`${field} must be a non-negative integer`);
  }
  if (options.currencies === 0 && OFFER_FAMILIES.some((family) => options[family] > 0)) {
    problems.push('offers need at least one currency to be about');
  }
  if (options.historyOffers !== 'all' && (!Number.isSafeInteger(options.historyOffers) || options.historyOffers < 0))
    problems.push("historyOffers must be a non-negative integer or 'all'");
  if (!(options.historyDays > 0)) problems.push('historyDays must be positive');
  if (options.historyDetailDays !== undefined && !(options.historyDetailDays > 0))
    problems.push('historyDetailDays must be positive');
  const steps = typeof options.historyStepHours === 'number' ? [options.historyStepHours] : options.historyStepHours;
  if (steps.length === 0 || steps.some((step) => !Number.isSafeInteger(step) || step <= 0)) {
    problems.push('historyStepHours must be positive whole hours');
  }
  if (problems.length > 0) throw new RangeError(`invalid generate options: ${problems.join('; ')}`);
}

export function generateDataset(options: GenerateOptions): GeneratedDataset {
  assertValid(options);
  const { seed } = options;
  const now = options.now.getTime();
  const platforms = generatePlatforms(seed, now, options);
  const currencies = generateCurrencies(seed, now, options.currencies);
  const ctx = createOfferContext(seed, now, currencies, platforms);
  const offers = Object.fromEntries(
    OFFER_FAMILIES.map((family) => [family, OFFER_RECIPES[family].generate(ctx, options[family])]),
  ) as OffersByFamily;
  const history = generateHistories(seed, now, offers, options, (ref) => isListedRef(platforms, ref));
  return {
    exchanges: platforms.exchange,
    wallets: platforms.wallet,
    protocols: platforms.protocol,
    currencies,
    ...Object.fromEntries(OFFER_FAMILIES.map((family) => [OFFER_FAMILY[family].dataset, offers[family]])),
    ...history,
  } as GeneratedDataset;
}

export type { GeneratedDataset } from './types';
