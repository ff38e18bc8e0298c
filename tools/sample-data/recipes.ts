/**
 * How the generator makes each offer family's records (README.md, "Data import"): its generator,
 * how many records each preset holds, and, for a family with history (shared/model/offer-families.ts
 * `history`), which offers its series go to first and where its APY walk stops. One entry per
 * family: a family without one does not build.
 */
import { type HistoryFamily, OFFER_FAMILY, type OfferFamily } from '../../shared/model/offer-families';
import { generateEarnOffers } from './earn';
import { generateBorrowOffers, generateCollateralOffers } from './lending';
import type { OfferContext } from './offer-context';
import type { OfferRecordOf } from './types';

/** The presets of tools/sample-data/generate.ts. */
export type PresetSize = 'sample' | 'quickBench' | 'bench';

export interface HistoryRecipe<F extends OfferFamily> {
  /** The offers its series go to first, one each (an unavailable one, one with a TVL, …). */
  wanted: Array<(offer: OfferRecordOf<F>) => boolean>;
  /** The lowest value the APY walk reaches from the offer's current APY. */
  apyFloor: (offer: OfferRecordOf<F>) => number;
}

export type OfferRecipe<F extends OfferFamily> = {
  generate: (ctx: OfferContext, count: number) => OfferRecordOf<F>[];
  counts: Record<PresetSize, number>;
} & (F extends HistoryFamily ? { history: HistoryRecipe<F> } : unknown);

const isNegative = (value: string) => value.startsWith('-');

export const OFFER_RECIPES: { [F in OfferFamily]: OfferRecipe<F> } = {
  earn: {
    generate: generateEarnOffers,
    // Every earn and borrow offer's history in the sample is ~350 stored items (docs/data-model.md,
    // "History"): these counts keep the first import of `npm start` to seconds.
    counts: { sample: 100, quickBench: 2_000, bench: 20_000 },
    // Series 1 gets an outage and series 2 sporadic null TVLs, so both want an offer with a TVL.
    history: { wanted: [(o) => !o.available, (o) => o.tvl !== null, (o) => o.tvl !== null], apyFloor: () => 0 },
  },
  borrow: {
    generate: generateBorrowOffers,
    counts: { sample: 60, quickBench: 500, bench: 5_000 },
    history: {
      wanted: [(o) => !o.is_active, (o) => isNegative(o.net_borrow_apy)],
      apyFloor: (o) => (isNegative(o.net_borrow_apy) ? -10 : 0.01),
    },
  },
  collateral: {
    generate: generateCollateralOffers,
    counts: { sample: 200, quickBench: 500, bench: 5_000 },
  },
};

/** The field of a role in a family's records (shared/model/offer-families.ts `fields`). */
export const fieldOf = (family: OfferFamily, role: 'apy' | 'tvl' | 'flag'): string | undefined =>
  (OFFER_FAMILY[family].fields as Partial<Record<string, string>>)[role];
