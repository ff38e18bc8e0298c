/**
 * The offer filter predicate (shared/domain/offer-facts.ts) against a brute-force oracle that
 * reads the offers' own values: OR within a list parameter, AND across parameters, `null` never
 * matching, and `min_apy` / `min_tvl` / `min_apy_mean_30d` / `max_apy_stddev_30d` compared as
 * exact decimals (test/helpers/exact-decimal.ts, BigInt) where the predicate compares sort keys or
 * micro-units. The facts are built from the values as the data layer's index builds them
 * (decimalSortKey of the decimal strings, a figure's micro-units below 10^15 and its key above);
 * the last property projects real indexes with random figures and checks every figure sort with
 * every filter and page against the oracle's own order.
 */
import { indexOf, type OfferIndex } from '../../../shared/data/family-index';
import { decodeIndex, encodeIndex } from '../../../shared/data/items/index-segment';
import type { OfferFamily } from '../../../shared/data/keys';
import { candidates, offerMatcher } from '../../../shared/domain/offer-facts';
import { effectiveSort } from '../../../shared/domain/orderings';
import { pageOf } from '../../../shared/domain/page';
import { OFFER_LIST_QUERY, type OfferQuery, parseQuery } from '../../../shared/http/query';
import { type PlatformResolver, projectOffers } from '../../../shared/import/project';
import {
  type FigureSortMode,
  type FilterKind,
  filtersOf,
  isFigureSort,
  OFFER_FILTERS,
  SORT_MODES,
  SORTS,
} from '../../../shared/model/offer-families';
import { compareExact } from '../../helpers/exact-decimal';
import { apyStatsArb } from '../../helpers/figures';
import { columnsOf, factsOf, indexOver, type Offer, oracleKeeps } from '../../helpers/offer-facts';
import { fc, runs } from '../../helpers/property';

/** The oracle (test/helpers/offer-facts.ts): every rule of docs/api.md "Filters", on the values themselves. */
const oracle = (_family: OfferFamily, q: OfferQuery, o: Offer): boolean => oracleKeeps(q, o);

// ---- generators --------------------------------------------------------------------------------

const SLUGS = ['a', 'b', 'c', 'd'];
const slug = fc.constantFrom(...SLUGS);
const digits = (min: number, max: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
/** Canonical decimal strings as the data carries them: signs, zeros, long fractions, near-ties. */
const decimal = fc
  .tuple(
    fc.boolean(),
    fc.oneof(
      fc.constant('0'),
      fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 8)).map(([a, b]) => `${a}${b}`),
    ),
    fc.option(digits(1, 30), { nil: undefined }),
  )
  .map(([negative, int, frac]) => {
    const text = frac === undefined ? int : `${int}.${frac}`;
    return negative && /[1-9]/.test(text) ? `-${text}` : text;
  });
/** A bound as a client writes it: the JSON number grammar without sign, exponents included. */
const bound = fc
  .tuple(
    fc.oneof(
      fc.constant('0'),
      fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 6)).map(([a, b]) => `${a}${b}`),
    ),
    fc.option(digits(1, 12), { nil: undefined }),
    fc.option(fc.integer({ min: -12, max: 6 }), { nil: undefined }),
  )
  .map(([int, frac, exp]) => `${int}${frac === undefined ? '' : `.${frac}`}${exp === undefined ? '' : `e${exp}`}`)
  .filter((text) => text.length <= 32);

const offer = (id: number) =>
  fc.record({
    id: fc.constant(id),
    platformType: fc.constantFrom('exchange', 'wallet', 'protocol', null),
    platform: fc.option(slug, { nil: null }),
    asset: fc.option(slug, { nil: null }),
    chain: fc.option(slug, { nil: null }),
    apy: fc.option(decimal, { nil: null }),
    tvl: fc.option(decimal, { nil: null }),
    flag: fc.boolean(),
    figures: fc.option(apyStatsArb, { nil: null, freq: 5 }),
  }) as fc.Arbitrary<Offer>;

const offers = fc
  .integer({ min: 1, max: 40 })
  .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => offer(i * 3))));

/**
 * Bounds equal to the offers' own values (the ties a `>` for `>=` would get wrong), also written
 * with an exponent (`5.5` as `55e-1`).
 */
function tiesOf(all: Offer[]): string[] {
  const ties = new Set<string>();
  for (const value of all.flatMap((o) => [o.apy, o.tvl, o.figures?.mean_30d ?? null, o.figures?.stddev_30d ?? null])) {
    if (value === null || value.startsWith('-')) continue;
    ties.add(value);
    const [int, frac = ''] = value.split('.');
    const shifted = `${int}${frac}`.replace(/^0+(?=\d)/, '');
    if (frac !== '') ties.add(`${shifted}e-${frac.length}`);
  }
  return [...ties].filter((text) => text.length <= 32);
}

const list = (values: fc.Arbitrary<string>) =>
  fc.option(
    fc.uniqueArray(values, { minLength: 1, maxLength: 3 }).map((v) => v.join(',')),
    { nil: undefined },
  );

/** A drawn value of each kind of filter, as a request sends it (a new kind without one does not compile). */
const FILTER_VALUES: Record<FilterKind, (limit: fc.Arbitrary<string>) => fc.Arbitrary<string | undefined>> = {
  slugs: () => list(slug),
  platformTypes: () => list(fc.constantFrom('exchange', 'wallet', 'protocol')),
  ids: () => list(fc.integer({ min: 0, max: 130 }).map(String)),
  atLeast: (limit) => fc.option(limit, { nil: undefined }),
  atMost: (limit) => fc.option(limit, { nil: undefined }),
  is: () => fc.option(fc.constantFrom('true', 'false'), { nil: undefined }),
};

/** Query parameters as a request sends them, every filter the family declares drawn, parsed by the route's schema. */
const query = (family: OfferFamily, ties: string[]) => {
  const limit = ties.length === 0 ? bound : fc.oneof(bound, fc.constantFrom(...ties));
  const drawn = Object.fromEntries(
    filtersOf(family).map((filter) => [filter, FILTER_VALUES[OFFER_FILTERS[filter].kind](limit)]),
  );
  return fc.record(drawn, { requiredKeys: [] }).map((raw) => {
    const values = Object.fromEntries(
      Object.entries(raw)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, [v as string]]),
    );
    return parseQuery(OFFER_LIST_QUERY[family](), values) as OfferQuery;
  });
};

/** Offers, and a query whose bounds are sometimes exactly their values. */
const offersAndQuery = (family: OfferFamily) =>
  offers.chain((all) => fc.tuple(fc.constant(all), query(family, tiesOf(all))));

// ---- properties --------------------------------------------------------------------------------

describe.each(['earn', 'borrow', 'collateral'] as const)('offerMatcher on %s', (family) => {
  it('keeps exactly the offers the oracle keeps, for any offers and any combination of filters', () => {
    fc.assert(
      fc.property(offersAndQuery(family), ([all, q]) => {
        const matches = offerMatcher(family, q, columnsOf(all.map(factsOf))) ?? (() => true);
        const kept = all.filter((_, entry) => matches(entry)).map((o) => o.id);
        expect(kept).toEqual(all.filter((o) => oracle(family, q, o)).map((o) => o.id));
      }),
      { numRuns: runs(600) },
    );
  });
});

// ---- the candidates a list runs the predicate over --------------------------------------------

/**
 * Offers, a query, an order of the offers (a shuffle of their entries), and a page. Half the
 * queries name ids of the offers themselves, in any sequence (drawn ids rarely hit two offers).
 */
const listCase = (family: OfferFamily) =>
  offersAndQuery(family).chain(([all, q]) =>
    fc.tuple(
      fc.constant(all),
      fc.oneof(
        fc.constant(q),
        fc
          .shuffledSubarray(
            all.map((o) => o.id),
            { minLength: 1 },
          )
          .map((ids): OfferQuery => ({ ...q, ids })),
      ),
      fc.shuffledSubarray(
        all.map((_, i) => i),
        { minLength: all.length, maxLength: all.length },
      ),
      fc.integer({ min: 0, max: 10 }),
      fc.integer({ min: 1, max: 10 }),
    ),
  );

describe.each(['earn', 'borrow', 'collateral'] as const)('candidates on %s', (family) => {
  it("give the page and total a pass over the whole order gives, in the order's sequence", () => {
    let narrowed = 0;
    fc.assert(
      fc.property(listCase(family), ([all, q, order, offset, limit]) => {
        const index = indexOver(family, all, order);
        const matcher = offerMatcher(family, q, index.facts());
        const some = candidates(index, 'drawn', q);
        if (some.length < order.length) narrowed++;
        // The oracle: every offer of the order, in its sequence, that the oracle keeps.
        const kept = order.filter((entry) => oracle(family, q, all[entry]));
        expect(pageOf(some, matcher, offset, limit)).toEqual({
          total: kept.length,
          entries: kept.slice(offset, offset + limit),
        });
      }),
      { numRuns: runs(600) },
    );
    // The property ran on queries the candidates did narrow, not only on whole orders.
    expect(narrowed).toBeGreaterThan(50);
  });
});

// ---- the figure sorts over projected indexes -----------------------------------------------------

/** Resolves every reference to itself: the generated offers' platforms are served as given. */
const asGiven = Object.assign((ref: unknown) => ref, { digest: 'given' }) as PlatformResolver;
const TIME = '2026-11-10T00:00:00.000Z';
const ref = (slug: string | null) => (slug === null ? null : { slug, symbol: slug.toUpperCase(), name: slug });

/** The data file record of a generated offer: the fields its family's filters and sorts read. */
function recordOf(family: 'earn' | 'borrow', o: Offer): Record<string, unknown> {
  const platform =
    o.platformType === null || o.platform === null
      ? null
      : { type: o.platformType, slug: o.platform, name: o.platform };
  const [apy, tvl, flag] =
    family === 'earn' ? ['apy', 'tvl', 'available'] : ['net_borrow_apy', 'total_supply_usd', 'is_active'];
  return {
    id: o.id,
    published: true,
    platform,
    asset: ref(o.asset),
    chain: ref(o.chain),
    [apy]: o.apy,
    [tvl]: o.tvl,
    [flag]: o.flag,
    estimated_apy_updated_at: TIME,
    available_updated_at: TIME,
    synced_at: TIME,
    updated_at: TIME,
  };
}

/** The oracle's order of a figure's mode: the figure exact, null last, ties by id. */
function figureOrder(all: Offer[], mode: FigureSortMode): number[] {
  const { figure, direction } = SORTS[mode];
  const value = (o: Offer) => o.figures?.[figure] ?? null;
  return all
    .map((_, i) => i)
    .sort((a, b) => {
      const [x, y] = [value(all[a]), value(all[b])];
      if (x === null || y === null) return x === y ? all[a].id - all[b].id : x === null ? 1 : -1;
      return (direction === 'asc' ? 1 : -1) * compareExact(x, y) || all[a].id - all[b].id;
    });
}

describe.each(['earn', 'borrow'] as const)('the figure sorts on %s, over a projected index', (family) => {
  it('give every filter combination its exact total and page, in the order of the figure, null last', () => {
    const modes = SORT_MODES.filter(isFigureSort);
    fc.assert(
      fc.property(
        listCase(family),
        fc.constantFrom(...modes),
        fc.boolean(),
        ([all, q, , offset, limit], mode, withFigures) => {
          // Offers as a served version holds them: their platform both ways or neither.
          const offers = all.map((o) =>
            o.platformType === null || o.platform === null ? { ...o, platformType: null, platform: null } : o,
          );
          const figures = new Map(offers.flatMap((o) => (o.figures ? [[o.id, o.figures] as const] : [])));
          const projection = projectOffers(
            family,
            offers.map((o) => recordOf(family, o)),
            asGiven,
            withFigures ? figures : undefined,
          );
          const index = indexOf('v', decodeIndex('v', encodeIndex('v', projection.index)).data) as OfferIndex;
          // A version without figures: every figure null for the oracle too.
          const seen = withFigures && figures.size > 0 ? offers : offers.map((o) => ({ ...o, figures: null }));
          const sorted = { ...q, sort: mode };
          const kept = figureOrder(seen, mode).filter((entry) => oracle(family, sorted, seen[entry]));
          expect(effectiveSort(family, mode)).toBe(mode);
          const page = pageOf(
            candidates(index, mode, sorted),
            offerMatcher(family, sorted, index.facts()),
            offset,
            limit,
          );
          expect(page.total).toBe(kept.length);
          expect(page.entries.map((e) => index.id(e))).toEqual(
            kept.slice(offset, offset + limit).map((e) => seen[e].id),
          );
        },
      ),
      { numRuns: runs(400) },
    );
  });
});
