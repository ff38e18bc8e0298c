/**
 * An offer index as a delta against the version it replaced (shared/data/index-delta.ts,
 * docs/adr/0017-index-deltas.md): for random pairs of versions (offers added, removed and changed,
 * figures or none on either side), the delta applied to the replaced index, as an instance reads
 * both (through their stored codecs), equals the new index exactly: every column, every order,
 * the blocks and the figures.
 */
import type { OfferIndexData } from '../../../shared/data/family-index';
import { applyDelta, indexDelta, sameIndex } from '../../../shared/data/index-delta';
import { decodeIndexDelta, encodeIndexDelta } from '../../../shared/data/items/index-delta';
import { checkIndex, decodeIndex, encodeIndex } from '../../../shared/data/items/index-segment';
import type { OfferFamily } from '../../../shared/data/keys';
import type { ApyStats } from '../../../shared/domain/apy-stats';
import { platformResolver, projectOffers } from '../../../shared/import/project';
import { CorruptDataError } from '../../../shared/platform/errors';
import { apyStatsArb } from '../../helpers/figures';
import { DECIMALS, generatedBorrow, generatedEarn, platformsOf, withOffers } from '../../helpers/generated-offers';
import { fc, runs } from '../../helpers/property';
import { ASSETS, type RecordOf, seeded } from '../../helpers/records';

const LATER = ['2026-11-20T00:00:00.000Z', '2026-11-20T00:05:00.000Z', '2026-11-09T00:00:00.000Z'];

/** Stored and read back as an instance holds it (orders as typed integers). */
const asRead = (version: string, data: OfferIndexData) =>
  decodeIndex(version, encodeIndex(version, data)).data as OfferIndexData;

/** Records of one family, each edited with probability `share`: a moved APY or time, another asset or platform. */
function edited(family: OfferFamily, records: RecordOf[], share: number, seed: number): RecordOf[] {
  const r = seeded(seed);
  return records.map((o) => {
    if (r.next() >= share) return o;
    const field = r.pick(['rate', 'time', 'asset', 'platform', 'flag', 'tvl']);
    const rate = family === 'earn' ? { apy: r.pick(DECIMALS) } : { net_borrow_apy: r.pick(DECIMALS) };
    switch (field) {
      case 'rate':
        return { ...o, ...rate };
      case 'time':
        return { ...o, updated_at: r.pick(LATER) };
      case 'asset':
        return { ...o, asset: r.pick(family === 'earn' ? [...ASSETS, null] : ASSETS) };
      case 'platform':
        return { ...o, platform: r.pick([null, { type: 'exchange', slug: 'binance', name: 'Binance' }]) };
      case 'flag':
        return family === 'earn' ? { ...o, available: !o.available } : { ...o, is_active: !o.is_active };
      default:
        return family === 'earn' ? { ...o, tvl: r.pick([null, ...DECIMALS]) } : o;
    }
  });
}

const generated = (family: OfferFamily, count: number, seed: number) =>
  family === 'earn' ? generatedEarn(count, seed) : generatedBorrow(count, seed);

function project(family: OfferFamily, records: RecordOf[], figures?: Map<number, ApyStats>): OfferIndexData {
  const dataset = family === 'earn' ? withOffers(records) : withOffers([], records);
  const list = (family === 'earn' ? dataset.earn_offers : dataset.borrow_offers) ?? [];
  return projectOffers(family, list, platformResolver(platformsOf(dataset)), figures).index as OfferIndexData;
}

/** Figures for every `every`-th id, or none. */
const figuresArb = (ids: readonly number[]) =>
  fc.option(
    fc
      .tuple(fc.integer({ min: 1, max: 4 }), fc.array(apyStatsArb, { minLength: 8, maxLength: 8 }))
      .map(([every, stats]) => new Map(ids.filter((_, i) => i % every === 0).map((id, i) => [id, stats[i % 8]]))),
    { nil: undefined },
  );

const pairArb = fc
  .record({
    family: fc.constantFrom<OfferFamily>('earn', 'borrow'),
    count: fc.integer({ min: 0, max: 120 }),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    removed: fc.double({ min: 0, max: 0.3, noNaN: true }),
    added: fc.integer({ min: 0, max: 20 }),
    changed: fc.constantFrom(0, 0.05, 0.3, 1),
  })
  .chain((pair) => {
    const ids = generated(pair.family, pair.count + pair.added, pair.seed).map((o) => o.id as number);
    return fc.record({ pair: fc.constant(pair), before: figuresArb(ids), after: figuresArb(ids) });
  });

describe('an index delta', () => {
  it('applied to the replaced index as read, equals the new index: every column, order, block and figure', () => {
    fc.assert(
      fc.property(pairArb, ({ pair, before, after }) => {
        const all = generated(pair.family, pair.count + pair.added, pair.seed);
        const r = seeded(pair.seed + 1);
        const old = all.slice(0, pair.count);
        const kept = old.filter(() => r.next() >= pair.removed);
        const next = [...edited(pair.family, kept, pair.changed, pair.seed + 2), ...all.slice(pair.count)];
        const base = project(pair.family, old, before);
        const target = project(pair.family, next, after);

        const delta = indexDelta(asRead('v1', base), 'v1', target);
        expect(delta).toBeDefined();
        const stored = decodeIndexDelta('v2', encodeIndexDelta('v2', delta!));
        const held = asRead('v1', base);
        const applied = applyDelta(held, stored);
        expect(sameIndex(applied, target)).toBe(true);
        // The index it applied to is unchanged: the new one shares its lists only where they are equal.
        expect(sameIndex(held, asRead('v1', base))).toBe(true);
        // What the comparison covers, spelled out: the same JSON as the new index as it is stored.
        expect(asRead('v2', applied)).toEqual(asRead('v2', target));
      }),
      { numRuns: runs(150) },
    );
  });

  it('against a base, several refreshes on (docs/adr/0018-index-bases.md): a cold instance (the base and that delta) and a warm one (each refresh’s delta on what it holds) read the same index', () => {
    const refreshes = fc.record({
      family: fc.constantFrom<OfferFamily>('earn', 'borrow'),
      count: fc.integer({ min: 0, max: 120 }),
      seed: fc.integer({ min: 1, max: 1_000_000 }),
      steps: fc.array(
        fc.record({
          removed: fc.constantFrom(0, 0, 0.05),
          added: fc.integer({ min: 0, max: 3 }),
          changed: fc.constantFrom(0.05, 0.2),
        }),
        { minLength: 1, maxLength: 5 },
      ),
    });
    fc.assert(
      fc.property(refreshes, ({ family, count, seed, steps }) => {
        const all = generated(family, count + steps.length * 3, seed);
        let records = all.slice(0, count);
        let next = count;
        const base = asRead('v0', project(family, records));
        let held = base;
        steps.forEach((step, k) => {
          const r = seeded(seed + 10 * k + 1);
          const kept = records.filter(() => r.next() >= step.removed);
          records = [...edited(family, kept, step.changed, seed + 10 * k + 2), ...all.slice(next, next + step.added)];
          next += step.added;
          const version = `v${k + 1}`;
          const target = project(family, records);
          // The delta stored against the base (rewritten each refresh), read back as a cold instance reads it.
          const cumulative = indexDelta(base, 'v0', target)!;
          const cold = applyDelta(base, decodeIndexDelta(version, encodeIndexDelta(version, cumulative)));
          // The delta against the version it replaced, applied by an instance to the index it built the same way.
          const step_ = indexDelta(held, `v${k}`, target)!;
          const warm = applyDelta(held, decodeIndexDelta(version, encodeIndexDelta(version, step_, 'STEP')));
          expect(cumulative.base).toBe('v0');
          expect(sameIndex(cold, target)).toBe(true);
          expect(sameIndex(warm, target)).toBe(true);
          expect(asRead(version, cold)).toEqual(asRead(version, warm));
          held = warm;
        });
      }),
      { numRuns: runs(60) },
    );
  });

  it('of an index against itself changes nothing and moves no entry', () => {
    const index = project('earn', generatedEarn(200, 3));
    const delta = indexDelta(asRead('v1', index), 'v1', index)!;
    expect(delta).toMatchObject({
      removed: [],
      added: [],
      columns: {},
      blocks: [[0, index.blocks.length]],
      members: [],
    });
    expect(Object.values(delta.orders).every(([places]) => places.length === 0)).toBe(true);
  });

  it('of one changed APY names that offer in its column and moves it in the APY orders only', () => {
    const records = generatedEarn(300, 5).filter((o) => o.published !== false);
    const index = project('earn', records);
    const changed = records.map((o, i) => (i === 17 ? { ...o, apy: '987.654321' } : o));
    const delta = indexDelta(asRead('v1', index), 'v1', project('earn', changed))!;
    const entry = [...index.ids].indexOf(records[17].id);
    expect(delta.columns.apyKey[0]).toEqual([entry]);
    expect(delta.columns.hash[0]).toEqual([entry]);
    // Its block is new: its members name their block and slot, which no column repeats.
    expect(delta.members).toHaveLength(1);
    expect(delta.members[0]).toContain(entry);
    expect(delta.columns.block).toBeUndefined();
    expect(delta.columns.slot).toBeUndefined();
    const moves = Object.entries(delta.orders).flatMap(([mode, [, moved]]) => (moved.length ? [[mode, moved]] : []));
    expect(moves.sort()).toEqual([
      ['apy_asc', [entry]],
      ['apy_desc', [entry]],
    ]);
  });

  it('does not apply to another family’s index, nor past its base’s entries', () => {
    const earn = project('earn', generatedEarn(40, 9));
    const delta = indexDelta(earn, 'v1', earn)!;
    expect(() => applyDelta({ ...earn, family: 'borrow' }, delta)).toThrow();
    expect(() => applyDelta(earn, { ...delta, size: earn.ids.length + 5 })).toThrow();
    expect(() => applyDelta(earn, { ...delta, members: [[0]] })).toThrow();
  });

  it('does not apply with figures changed out of the order of the entries, past them, or on an index without figures', () => {
    const records = generatedEarn(40, 9);
    const stats = fc.sample(apyStatsArb, { numRuns: 1, seed: 3 })[0];
    const earn = project('earn', records, new Map(records.map((o) => [o.id as number, stats])));
    const delta = indexDelta(earn, 'v1', earn)!;
    const packed = earn.figures!.stats.at(0);
    expect(
      applyDelta(earn, {
        ...delta,
        columns: {
          figures: [
            [1, 3],
            [packed, null],
          ],
        },
      }).figures!.stats.at(3),
    ).toBe(null);
    for (const figures of [
      [
        [3, 1],
        [packed, packed],
      ],
      [
        [2, 2],
        [packed, packed],
      ],
      [[earn.ids.length], [packed]],
    ] as const)
      expect(() => applyDelta(earn, { ...delta, columns: { figures: figures as never } })).toThrow('not entries of');
    expect(() => applyDelta(earn, { ...delta, figuresAsOf: null, columns: { figures: [[1], [packed]] } })).toThrow(
      'without figures',
    );
  });

  it('stored, does not decode with a malformed value, entry or time', () => {
    const earn = project('earn', generatedEarn(40, 9));
    const delta = indexDelta(earn, 'v1', project('earn', edited('earn', generatedEarn(40, 9), 0.5, 4)))!;
    const bad = [
      { ...delta, columns: { ...delta.columns, flag: [[0], [7]] } },
      { ...delta, columns: { ...delta.columns, nope: [[0], ['x']] } },
      { ...delta, removed: [-1] },
      { ...delta, figuresAsOf: 'yesterday' },
      { ...delta, kind: 'offers' },
    ];
    for (const data of bad)
      expect(() => decodeIndexDelta('v2', encodeIndexDelta('v2', data as typeof delta))).toThrow(CorruptDataError);
  });
});

describe('checkIndex of an applied delta against its base', () => {
  // One offer's APY moves: the APY orders are built anew, the others are the base's.
  const records = generatedEarn(60, 11).filter((o) => o.published !== false);
  const base = asRead('v1', project('earn', records));
  const changed = project(
    'earn',
    records.map((o, i) => (i === 7 ? { ...o, apy: '987.654321' } : o)),
  );
  const applied = applyDelta(base, indexDelta(base, 'v1', changed)!);

  it('does not walk again the ids and orders the applied index shares with its base', () => {
    // A base whose shared lists a check would refuse (it was checked when it was read: here it is
    // spoiled after, to see which lists the check walks).
    const shared = Object.keys(applied.orders).filter((mode) => applied.orders[mode] === base.orders[mode]);
    expect(shared.length).toBeGreaterThan(0);
    const spoiled = Int32Array.from(base.orders[shared[0]]!);
    spoiled[0] = spoiled[1];
    const sharing = { ...applied, orders: { ...applied.orders, [shared[0]]: spoiled } };
    const spoiledBase = { ...base, orders: { ...base.orders, [shared[0]]: spoiled } };
    expect(() => checkIndex(sharing, 'v2')).toThrow(CorruptDataError);
    expect(checkIndex(sharing, 'v2', spoiledBase)).toBe(sharing);
  });

  it('walks every order the delta built and refuses one that is not a permutation', () => {
    const built = Object.keys(applied.orders).filter((mode) => applied.orders[mode] !== base.orders[mode]);
    expect(built.length).toBeGreaterThan(0);
    const order = Int32Array.from(applied.orders[built[0]]!);
    order[0] = order[1];
    expect(() => checkIndex({ ...applied, orders: { ...applied.orders, [built[0]]: order } }, 'v2', base)).toThrow(
      CorruptDataError,
    );
    expect(checkIndex(applied, 'v2', base)).toBe(applied);
  });
});

describe('sameIndex', () => {
  it('tells lists from typed integers apart by value only, and sees a missing or extra key', () => {
    expect(sameIndex({ a: [1, 2], b: Int32Array.from([3]) }, { b: [3], a: Int32Array.from([1, 2]) })).toBe(true);
    expect(sameIndex({ a: [1, 2] }, { a: [1, 3] })).toBe(false);
    expect(sameIndex({ a: [1] }, { a: [1], b: 'x' })).toBe(false);
    expect(sameIndex({ a: null }, { a: undefined })).toBe(false);
    expect(sameIndex({ a: [null] }, { a: [0] })).toBe(false);
  });
});
