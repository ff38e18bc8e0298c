/**
 * An offer index as a delta against the version it replaced (shared/data/index-delta.ts,
 * docs/adr/0017-index-deltas.md), the quick cases: a delta of nothing and of one APY, the deltas
 * that do not apply or decode, and the check of an applied delta. index-delta.heavy.test.ts checks
 * random pairs and runs of versions.
 */
import { applyDelta, indexDelta, sameIndex } from '../../../shared/data/index-delta';
import { decodeIndexDelta, encodeIndexDelta } from '../../../shared/data/items/index-delta';
import { checkIndex } from '../../../shared/data/items/index-segment';
import { CorruptDataError } from '../../../shared/platform/errors';
import { apyStatsArb } from '../../helpers/figures';
import { generatedEarn } from '../../helpers/generated-offers';
import { asRead, edited, projectIndex } from '../../helpers/index-versions';
import { fc } from '../../helpers/property';

describe('an index delta', () => {
  it('of an index against itself changes nothing and moves no entry', () => {
    const index = projectIndex('earn', generatedEarn(200, 3));
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
    const index = projectIndex('earn', records);
    const changed = records.map((o, i) => (i === 17 ? { ...o, apy: '987.654321' } : o));
    const delta = indexDelta(asRead('v1', index), 'v1', projectIndex('earn', changed))!;
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
    const earn = projectIndex('earn', generatedEarn(40, 9));
    const delta = indexDelta(earn, 'v1', earn)!;
    expect(() => applyDelta({ ...earn, family: 'borrow' }, delta)).toThrow();
    expect(() => applyDelta(earn, { ...delta, size: earn.ids.length + 5 })).toThrow();
    expect(() => applyDelta(earn, { ...delta, members: [[0]] })).toThrow();
  });

  it('does not apply with figures changed out of the order of the entries, past them, or on an index without figures', () => {
    const records = generatedEarn(40, 9);
    const stats = fc.sample(apyStatsArb, { numRuns: 1, seed: 3 })[0];
    const earn = projectIndex('earn', records, new Map(records.map((o) => [o.id as number, stats])));
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
    const earn = projectIndex('earn', generatedEarn(40, 9));
    const delta = indexDelta(earn, 'v1', projectIndex('earn', edited('earn', generatedEarn(40, 9), 0.5, 4)))!;
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
  const base = asRead('v1', projectIndex('earn', records));
  const changed = projectIndex(
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
