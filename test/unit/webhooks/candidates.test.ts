/**
 * The index of a publish's changes (shared/webhooks/candidates.ts) against the list's predicate: for
 * any two versions and any filter, every offer the filter keeps in either version is among the
 * filter's candidates (the matcher evaluates the predicate over them only, so a missing one would be a
 * missing event); and the offers whose facts moved are exactly those served in both with a fact
 * that differs.
 */
import type { OfferIndex } from '../../../shared/data/family-index';
import { OFFER_LIST_QUERY, type OfferQuery, parseQuery } from '../../../shared/http/query';
import { ChangeIndex, factsMoved } from '../../../shared/webhooks/candidates';
import { apyStatsArb } from '../../helpers/figures';
import { factsOf, indexOver, type Offer, oracleKeeps } from '../../helpers/offer-facts';
import { fc, runs } from '../../helpers/property';

const SLUGS = ['a', 'b', 'c'];
const slug = fc.option(fc.constantFrom(...SLUGS), { nil: null });
const offer = (id: number): fc.Arbitrary<Offer> =>
  fc.record({
    id: fc.constant(id),
    platformType: fc.constantFrom('exchange', 'wallet', 'protocol', null),
    platform: slug,
    asset: slug,
    chain: slug,
    apy: fc.option(fc.constantFrom('1', '2.5', '4', '6'), { nil: null }),
    tvl: fc.constant('1000'),
    flag: fc.boolean(),
    figures: fc.option(apyStatsArb, { nil: null }),
  });

/** A version: some of the ids 1–12, each offer drawn. */
const version = fc
  .subarray(
    Array.from({ length: 12 }, (_, i) => i + 1),
    { minLength: 0 },
  )
  .chain((ids) => fc.tuple(...ids.map(offer)));

const list = (values: fc.Arbitrary<string>) =>
  fc.option(
    fc.uniqueArray(values, { minLength: 1, maxLength: 3 }).map((v) => [v.join(',')]),
    { nil: undefined },
  );
const query = fc
  .record({
    asset: list(fc.constantFrom(...SLUGS, 'z')),
    platform: list(fc.constantFrom(...SLUGS)),
    chain: list(fc.constantFrom(...SLUGS)),
    platform_type: list(fc.constantFrom('exchange', 'wallet', 'protocol')),
    ids: list(fc.integer({ min: 1, max: 14 }).map(String)),
    min_apy: fc.option(fc.constantFrom(['2'], ['5']), { nil: undefined }),
    available: fc.option(fc.constantFrom(['true'], ['false']), { nil: undefined }),
    min_apy_mean_30d: fc.option(fc.constantFrom(['0'], ['3']), { nil: undefined }),
  })
  .map(
    (values) =>
      parseQuery(
        OFFER_LIST_QUERY.earn(),
        Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Record<string, string[]>,
      ) as OfferQuery,
  );

const indexOf = (offers: readonly Offer[]): OfferIndex | undefined =>
  offers.length === 0
    ? undefined
    : indexOver(
        'earn',
        [...offers],
        offers.map((_, i) => i),
      );

describe('ChangeIndex', () => {
  it("holds, for any filter, every offer the filter keeps in either version among the filter's candidates", () => {
    fc.assert(
      fc.property(version, version, fc.array(query, { minLength: 1, maxLength: 8 }), (before, after, queries) => {
        const older = indexOf(before);
        const newer = indexOf(after);
        const ids = [...new Set([...before, ...after].map((o) => o.id))].sort((a, b) => a - b);
        const index = new ChangeIndex('earn', ids, older, newer);
        for (const q of queries) {
          const candidates = index.candidates(q);
          expect(new Set(candidates).size).toBe(candidates.length);
          const kept = [...before, ...after].filter((o) => oracleKeeps(q, o)).map((o) => o.id);
          for (const id of kept) expect(candidates).toContain(id);
        }
      }),
      { numRuns: runs(300) },
    );
  });

  it('narrows a filter naming an asset or ids to the offers posted under them', () => {
    const offers = [1, 2, 3, 4].map(
      (id): Offer => ({
        id,
        platformType: 'exchange',
        platform: 'p',
        asset: id <= 2 ? 'a' : 'b',
        chain: null,
        apy: '1',
        tvl: '1',
        flag: true,
      }),
    );
    const index = new ChangeIndex('earn', [1, 2, 3, 4], indexOf(offers), indexOf(offers));
    const q = (values: Record<string, string>) =>
      parseQuery(
        OFFER_LIST_QUERY.earn(),
        Object.fromEntries(Object.entries(values).map(([k, v]) => [k, [v]])),
      ) as OfferQuery;
    expect(index.candidates(q({ asset: 'b' }))).toEqual([3, 4]);
    expect(index.candidates(q({ asset: 'a,b', ids: '2' }))).toEqual([2]);
    expect(index.candidates(q({ chain: 'x' }))).toEqual([]);
    expect(index.candidates(q({ min_apy: '1' }))).toEqual([1, 2, 3, 4]);
  });
});

describe('factsMoved', () => {
  it('is the offers served in both versions, not changed, whose facts differ', () => {
    fc.assert(
      fc.property(version, version, fc.array(fc.integer({ min: 1, max: 12 })), (before, after, changedIds) => {
        const changed = new Set(changedIds);
        const old = new Map(before.map((o) => [o.id, JSON.stringify(factsOf(o))]));
        const expected = after
          .filter((o) => !changed.has(o.id) && old.has(o.id) && old.get(o.id) !== JSON.stringify(factsOf(o)))
          .map((o) => o.id);
        expect(factsMoved(indexOf(before), indexOf(after), changed)).toEqual(expected);
      }),
      { numRuns: runs(200) },
    );
  });
});
