/**
 * A deterministic, realistic dataset (README.md, "Data import") for local runs, tests and benchmarks. Same
 * options, same output: all randomness comes from `seed` and every time is placed before `now`.
 */

import { HOUR_MS } from '../../shared/platform/timestamps';
import { generateCurrencies } from './currencies';
import { generateEarnOffers } from './earn';
import { generateHistories, type HistoryOptions } from './history';
import { generateBorrowOffers, generateCollateralOffers } from './lending';
import { createOfferContext } from './offer-context';
import { generatePlatforms, isListedRef } from './platforms';
import type { GeneratedDataset } from './types';

export interface GenerateOptions extends HistoryOptions {
  seed: number;
  /** The anchor: every timestamp is at or before it, and histories end at it. */
  now: Date;
  currencies: number;
  exchanges: number;
  wallets: number;
  protocols: number;
  earn: number;
  borrow: number;
  collateral: number;
}

/** The anchor of a dataset generated at `now`: the start of its UTC hour, so that a run within one hour generates the same file. */
export const anchorOf = (now: Date): Date => new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS);

/** A preset is everything but the anchor time, which the caller supplies. */
export type GeneratePreset = Readonly<Omit<GenerateOptions, 'now'>>;

/** What `npm start` serves: every edge case, ~2.5 MB of JSON. */
export const SAMPLE: GeneratePreset = {
  seed: 2024,
  currencies: 400,
  exchanges: 40,
  wallets: 30,
  protocols: 40,
  earn: 300,
  borrow: 200,
  collateral: 200,
  historyOffers: 24,
  historyDays: 120,
  historyStepHours: [1, 6, 6, 6, 6, 6],
};

/** The load the service is sized for: three years of hourly history for 50 offers. */
export const BENCH: GeneratePreset = {
  seed: 2024,
  currencies: 10_000,
  exchanges: 1_000,
  wallets: 500,
  protocols: 3_000,
  earn: 20_000,
  borrow: 5_000,
  collateral: 5_000,
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
  earn: 2_000,
  borrow: 500,
  collateral: 500,
  historyOffers: 10,
  historyDays: 90,
  historyStepHours: 1,
};

export const PRESETS = { sample: SAMPLE, 'quick-bench': QUICK_BENCH, bench: BENCH } as const;
export type PresetName = keyof typeof PRESETS;

const COUNT_FIELDS = [
  'currencies',
  'exchanges',
  'wallets',
  'protocols',
  'earn',
  'borrow',
  'collateral',
  'historyOffers',
] as const;

function assertValid(options: GenerateOptions): void {
  const problems: string[] = [];
  if (!Number.isSafeInteger(options.seed)) problems.push('seed must be a safe integer');
  if (!(options.now instanceof Date) || Number.isNaN(options.now.getTime())) problems.push('now must be a valid Date');
  for (const field of COUNT_FIELDS) {
    if (!Number.isSafeInteger(options[field]) || options[field] < 0)
      problems.push(`${field} must be a non-negative integer`);
  }
  if (options.currencies === 0 && options.earn + options.borrow + options.collateral > 0) {
    problems.push('offers need at least one currency to be about');
  }
  if (!(options.historyDays > 0)) problems.push('historyDays must be positive');
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
  const earn = generateEarnOffers(ctx, options.earn);
  const borrow = generateBorrowOffers(ctx, options.borrow);
  const collateral = generateCollateralOffers(ctx, options.collateral);
  const history = generateHistories(seed, now, earn, borrow, options, (ref) => isListedRef(platforms, ref));
  return {
    exchanges: platforms.exchange,
    wallets: platforms.wallet,
    protocols: platforms.protocol,
    currencies,
    earn_offers: earn,
    borrow_offers: borrow,
    collateral_offers: collateral,
    earn_history: history.earn_history,
    borrow_history: history.borrow_history,
  };
}

export type { GeneratedDataset } from './types';
