/**
 * How an offer index keeps what lists read (shared/data/family-index.ts), against plain oracles:
 * the packed strings of its figures, an entry found by its id, each asset's entries in a sort
 * mode, and the filtered figures' facts.
 */
import { figureFact, PackedStrings, packFigures } from '../../../shared/data/family-index';
import type { ApyStats } from '../../../shared/domain/apy-stats';
import { AS_OF, indexOver, type Offer } from '../../helpers/offer-facts';
import { fc, runs } from '../../helpers/property';

const text = fc.option(fc.string({ maxLength: 12 }), { nil: null });

describe('PackedStrings', () => {
  it('reads back every string of its list, an empty one as null, and is that list as JSON', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 30 }), (values) => {
        const packed = PackedStrings.of(values);
        const expected = values.map((v) => (v === '' ? null : v));
        expect(Array.from({ length: packed.length }, (_, i) => packed.at(i))).toEqual(expected);
        expect(packed.toJSON()).toEqual(expected);
        expect(JSON.parse(JSON.stringify({ stats: packed }))).toEqual({ stats: expected });
        expect(packed.characters).toBe(values.reduce((n, v) => n + (v?.length ?? 0), 0));
      }),
      { numRuns: runs(200) },
    );
  });

  it('carried to another list: each entry its changed value, else the string of the entry it carries (null for none), as packing that list does', () => {
    const carriedArb = fc
      .record({ values: fc.array(text, { maxLength: 30 }), size: fc.integer({ min: 0, max: 30 }) })
      .chain(({ values, size }) =>
        fc.record({
          values: fc.constant(values),
          // Each new entry's entry of `values`, or -1: runs in a row, jumps and repeats alike.
          from: fc.array(fc.integer({ min: -1, max: values.length - 1 }), { minLength: size, maxLength: size }),
          changes: fc.array(fc.tuple(fc.boolean(), text), { minLength: size, maxLength: size }),
        }),
      );
    fc.assert(
      fc.property(carriedArb, ({ values, from, changes }) => {
        const entries = changes.flatMap(([changed], e) => (changed ? [e] : []));
        const changedValues = entries.map((e) => changes[e][1]);
        const carried = PackedStrings.of(values).carried(Int32Array.from(from), entries, changedValues);
        const expected = from.map((b, e) => (changes[e][0] ? changes[e][1] : b < 0 ? null : values[b]));
        expect(carried.toJSON()).toEqual(PackedStrings.of(expected).toJSON());
        expect(carried.characters).toBe(PackedStrings.of(expected).characters);
      }),
      { numRuns: runs(200) },
    );
  });
});

const figures = (mean: string | null, stddev: string | null): ApyStats => ({
  as_of: AS_OF,
  change_1d: '0.5',
  change_7d: null,
  change_30d: '-1.25',
  mean_7d: '4.000000',
  mean_30d: mean,
  stddev_30d: stddev,
  points_30d: 12,
});

/** Offers of ascending ids (gaps drawn), each with an asset or none and figures or none. */
const offersArb = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 1, max: 5 }),
      asset: fc.constantFrom('a', 'b', 'c', null),
      figures: fc.option(
        fc.tuple(
          fc.option(fc.constantFrom('4.240000', '-0.500000', '12345678901.123456'), { nil: null }),
          fc.option(fc.constantFrom('0.245764', '0.000000'), { nil: null }),
        ),
        { nil: null },
      ),
    }),
    { minLength: 1, maxLength: 25 },
  )
  .map((drawn) => {
    let id = 0;
    return drawn.map(
      ({ gap, asset, figures: f }): Offer => ({
        id: (id += gap),
        platformType: null,
        platform: null,
        asset,
        chain: null,
        apy: null,
        tvl: null,
        flag: true,
        figures: f && figures(f[0], f[1]),
      }),
    );
  });

const withOrder = offersArb.chain((all) =>
  fc.tuple(
    fc.constant(all),
    fc.shuffledSubarray(
      all.map((_, i) => i),
      { minLength: all.length, maxLength: all.length },
    ),
  ),
);

describe('OfferIndex', () => {
  it('finds the entry of each id, and none for an id between, below or above them', () => {
    fc.assert(
      fc.property(withOrder, ([all, order]) => {
        const index = indexOver('earn', all, order);
        const ids = all.map((o) => o.id);
        for (let id = 0; id <= ids[ids.length - 1] + 1; id++) {
          const entry = ids.indexOf(id);
          expect(index.entry(id)).toBe(entry < 0 ? undefined : entry);
        }
        expect(index.entry(-1)).toBeUndefined();
      }),
      { numRuns: runs(200) },
    );
  });

  it("keeps each asset's entries in the order of the mode, none for an asset no offer has", () => {
    fc.assert(
      fc.property(withOrder, ([all, order]) => {
        const index = indexOver('earn', all, order);
        for (const asset of ['a', 'b', 'c'])
          expect(Array.from(index.ofAsset(asset, 'drawn'))).toEqual(order.filter((e) => all[e].asset === asset));
        expect(Array.from(index.ofAsset('z', 'drawn'))).toEqual([]);
      }),
      { numRuns: runs(200) },
    );
  });

  it('has the facts of the filtered figures of each entry, null where an offer has no figures', () => {
    fc.assert(
      fc.property(withOrder, ([all, order]) => {
        const facts = indexOver('earn', all, order).facts();
        expect(Array.from(facts.mean30d)).toEqual(all.map((o) => figureFact(o.figures?.mean_30d ?? null)));
        expect(Array.from(facts.stddev30d)).toEqual(all.map((o) => figureFact(o.figures?.stddev_30d ?? null)));
        expect(Array.from(facts.id)).toEqual(all.map((o) => o.id));
      }),
      { numRuns: runs(200) },
    );
  });

  it('reads back the figures it packs', () => {
    const all: Offer[] = [1, 2].map((id) => ({
      id,
      platformType: null,
      platform: null,
      asset: null,
      chain: null,
      apy: null,
      tvl: null,
      flag: false,
      figures: id === 1 ? figures('4.240000', null) : null,
    }));
    const index = indexOver('borrow', all, [1, 0]);
    expect(packFigures(index.figures(0)!.values)).toBe(packFigures(figures('4.240000', null)));
    expect(index.figures(0)!.asOf).toBe(AS_OF);
    expect(index.figures(1)!.values.mean_30d).toBeNull();
  });
});
