/**
 * APY (and earn TVL) time series: a mean-reverting random walk run backwards from each offer's
 * current values, so the newest point equals the offer. Observations land a few minutes past the
 * step boundary, like a scraper's; one series starts late, one has a multi-day outage.
 */
import { HISTORY_FAMILIES, OFFER_FAMILY } from '../../shared/model/offer-families';
import { createRng, DAY, decimal, fixed, HOUR, iso, MINUTE, type Rng } from './random';
import { fieldOf, type HistoryRecipe, OFFER_RECIPES } from './recipes';
import type { HistoriesByFamily, OffersByFamily, PlatformRef } from './types';

export interface HistoryOptions {
  /**
   * How many offers get a history, split between earn (the larger half) and borrow; `'all'`: every
   * published earn and borrow offer (the sample, CONTRACT §9).
   */
  historyOffers: number | 'all';
  historyDays: number;
  /** Observation step in hours, or steps cycled over the offers with history. */
  historyStepHours: number | readonly number[];
  /**
   * Observed at that step only over this many days before `now`, and once a day before (the
   * sample: as long as the 1 h series keeps its points). Omitted: at that step all along.
   */
  historyDetailDays?: number;
}

/**
 * In a sample with `historyDetailDays`, an offer whose id is a multiple of NEW_EVERY was listed
 * NEW_OFFER_DAYS ago: new on purpose, so its 7- and 30-day figures are null (too few days).
 */
const NEW_EVERY = 25;
/** @internal (exported for its tests) */
export const NEW_OFFER_DAYS = 2;

/**
 * Whether an offer's series is that of an offer new on purpose (README.md, "Local run").
 * @internal (exported for its tests)
 */
export const isNewOffer = (options: HistoryOptions, offerId: number): boolean =>
  options.historyDetailDays !== undefined && offerId % NEW_EVERY === 0;

interface SeriesShape {
  /** Observation times, ascending, the last one at or before `now`. */
  times: number[];
  /** The one step of a series at one step (gaps and missing points walk as if observed); else each point's own. */
  stepMs?: number;
}
export function generateHistories(
  seed: number,
  now: number,
  offers: OffersByFamily,
  options: HistoryOptions,
  /** Whether a reference names an exposed platform; series go to offers of such platforms first. */
  isListed: (ref: PlatformRef | null) => boolean,
): HistoriesByFamily {
  const steps = typeof options.historyStepHours === 'number' ? [options.historyStepHours] : options.historyStepHours;
  const all = options.historyOffers === 'all';
  const wanted = all
    ? HISTORY_FAMILIES.reduce((sum, family) => sum + offers[family].length, 0)
    : (options.historyOffers as number);
  const pickRng = createRng(seed, 'history-offers');

  // Split between the families in order, each the larger share of what is left (earn: the larger half).
  let left = wanted;
  const histories = HISTORY_FAMILIES.map((family, n) => {
    const records = offers[family] as Offer[];
    const count = all ? records.length : Math.min(records.length, Math.ceil(left / (HISTORY_FAMILIES.length - n)));
    left -= count;
    const recipe = OFFER_RECIPES[family].history as unknown as HistoryRecipe<typeof family> & {
      wanted: Array<(o: Offer) => boolean>;
      apyFloor: (o: Offer) => number;
    };
    const picked = pickOffers(pickRng, records, count, recipe.wanted, isListed);
    const apyField = fieldOf(family, 'apy')!;
    const tvlField = OFFER_FAMILY[family].history.includes('tvl' as never) ? fieldOf(family, 'tvl') : undefined;
    const series = picked.map((offer, k) => {
      const rng = createRng(seed, `${family}-history:${offer.id}`);
      const shape = seriesShape(rng, now, k, offer.id, steps[k % steps.length], options);
      const apys = walkApy(rng, shape, offer[apyField] as string, recipe.apyFloor(offer));
      if (tvlField === undefined)
        return { offer_id: offer.id, points: shape.times.map((at, i) => ({ timestamp: iso(at), apy: apys[i] })) };
      const tvl = offer[tvlField] as string | null;
      const tvls = tvl === null ? null : walkTvl(rng, shape, tvl, k === 2 ? 0.03 : 0);
      return {
        offer_id: offer.id,
        points: shape.times.map((at, i) => ({ timestamp: iso(at), apy: apys[i], tvl: tvls ? tvls[i] : null })),
      };
    });
    return [`${family}_history`, series.sort((a, b) => a.offer_id - b.offer_id)] as const;
  });
  return Object.fromEntries(histories) as HistoriesByFamily;
}

/** An offer record as the walks read it: its id, platform and the fields of its roles. */
type Offer = { id: number; published?: boolean; platform: PlatformRef | null } & Record<string, unknown>;

/**
 * Published offers of listed platforms: first one matching each `wanted` test (an unavailable
 * one, …), then at random; any published offer when too few are listed.
 */
function pickOffers<T extends { id: number; published?: boolean; platform: PlatformRef | null }>(
  rng: Rng,
  offers: T[],
  count: number,
  wanted: Array<(offer: T) => boolean>,
  isListed: (ref: PlatformRef | null) => boolean,
): T[] {
  const published = offers.filter((o) => o.published !== false);
  const listed = published.filter((o) => isListed(o.platform));
  const picked: T[] = [];
  for (const test of wanted) {
    const match = listed.find((o) => test(o) && !picked.includes(o));
    if (match && picked.length < count) picked.push(match);
  }
  const rest = [
    ...rng.shuffle(listed.filter((o) => !picked.includes(o))),
    ...rng.shuffle(published.filter((o) => !listed.includes(o))),
  ];
  return [...picked, ...rest.slice(0, Math.max(0, count - picked.length))];
}

function seriesShape(
  rng: Rng,
  now: number,
  k: number,
  offerId: number,
  stepHours: number,
  options: HistoryOptions,
): SeriesShape {
  const stepMs = stepHours * HOUR;
  // The first series is observed exactly on the hour; the others a few minutes late.
  const offset = k === 0 ? 0 : rng.int(0, 9) * MINUTE + rng.int(0, 59) * 1000 + rng.int(0, 999);
  let last = Math.floor(now / stepMs) * stepMs + offset;
  if (last > now) last -= stepMs;
  const detail = options.historyDetailDays;
  if (detail !== undefined) {
    const days = isNewOffer(options, offerId) ? NEW_OFFER_DAYS : options.historyDays;
    return { times: livingTimes(rng, last, stepMs, k, detail, days) };
  }

  const full = Math.floor((options.historyDays * DAY) / stepMs);
  const count = Math.max(1, k % 5 === 3 ? Math.floor(full * rng.uniform(0.3, 0.9)) : full);
  const gapStart = k === 1 ? Math.floor(count * rng.uniform(0.3, 0.6)) : -1;
  const gapLength = k === 1 ? Math.round((rng.uniform(2, 5) * DAY) / stepMs) : 0;
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const inGap = i >= gapStart && i < gapStart + gapLength;
    const dropped = i < count - 1 && rng.chance(0.003);
    if (!inGap && !dropped) times.push(last - (count - 1 - i) * stepMs);
  }
  return { times, stepMs };
}

/**
 * A living series: every step over the last `detail` days (a rare point missing), once a day
 * before, back `days`. The series with the
 * outage (k = 1) misses 2 to 5 days long before the 30 days the figures read, so every figure
 * of every other offer has its points.
 */
function livingTimes(rng: Rng, last: number, stepMs: number, k: number, detail: number, days: number) {
  const start = last - days * DAY;
  const detailFrom = last - detail * DAY;
  const gapFrom = k === 1 ? last - rng.uniform(45, 80) * DAY : Number.NEGATIVE_INFINITY;
  const gapTo = gapFrom + rng.uniform(2, 5) * DAY;
  const times: number[] = [];
  for (let t = last; t >= start; t -= t > detailFrom ? stepMs : DAY) {
    const dropped = t !== last && t > detailFrom && rng.chance(0.003);
    if (!dropped && !(t >= gapFrom && t < gapTo)) times.push(t);
  }
  return times.reverse();
}

/** The time the walk steps back from the i-th observation: the series' step, or the time from the one before (the first: as the next one's). */
const stepBefore = ({ times, stepMs }: SeriesShape, i: number): number =>
  stepMs ?? (i > 0 ? times[i] - times[i - 1] : times.length > 1 ? times[1] - times[0] : HOUR);

const fractionDigits = (value: string) => Math.min(4, Math.max(2, value.split('.')[1]?.length ?? 0));

/** Ornstein–Uhlenbeck walk backwards from the current value, with rare rate changes. */
function walkApy(rng: Rng, shape: SeriesShape, current: string, floor: number): string[] {
  const end = Number(current);
  const scale = fractionDigits(current);
  const mean = end === 0 ? rng.uniform(0.5, 3) : end * rng.uniform(0.75, 1.3);
  const values = new Array<string>(shape.times.length);
  let value = end;
  for (let i = shape.times.length - 1; i >= 0; i--) {
    values[i] = i === shape.times.length - 1 ? current : decimal(value, scale);
    const dt = stepBefore(shape, i) / DAY;
    const volatility = 0.06 * Math.max(Math.abs(mean), 0.5) * Math.sqrt(dt);
    value += 0.15 * (mean - value) * dt + volatility * rng.normal();
    if (rng.chance(0.002 * dt * 24)) value *= rng.uniform(0.6, 1.5);
    if (value < floor) value = floor + (floor - value);
  }
  return values;
}

function walkTvl(rng: Rng, shape: SeriesShape, current: string, nullRate: number): Array<string | null> {
  const drift = rng.uniform(-0.01, 0.02);
  const values = new Array<string | null>(shape.times.length);
  let log = Math.log(Math.max(Number(current), 1));
  for (let i = shape.times.length - 1; i >= 0; i--) {
    values[i] = i === shape.times.length - 1 ? current : rng.chance(nullRate) ? null : fixed(Math.exp(log), 2);
    const dt = stepBefore(shape, i) / DAY;
    log -= drift * dt + 0.03 * Math.sqrt(dt) * rng.normal();
  }
  return values;
}
