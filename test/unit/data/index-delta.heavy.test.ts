/**
 * Index deltas over random pairs and runs of versions (shared/data/index-delta.ts,
 * docs/adr/0017-index-deltas.md, 0018-index-bases.md), seconds each (index-delta.test.ts holds the
 * quick cases): offers added, removed and changed, figures or none on either side, the delta applied
 * to the replaced index as an instance reads both (through their stored codecs) equals the new index
 * exactly (every column, every order, the blocks and the figures); and several refreshes on, a cold
 * instance (the base and its delta) and a warm one (each refresh's delta) read the same index.
 */

import { applyDelta, indexDelta, sameIndex } from '../../../shared/data/index-delta';
import { decodeIndexDelta, encodeIndexDelta } from '../../../shared/data/items/index-delta';
import type { OfferFamily } from '../../../shared/data/keys';
import { apyStatsArb } from '../../helpers/figures';
import { asRead, edited, generated, projectIndex } from '../../helpers/index-versions';
import { fc, runs } from '../../helpers/property';
import { seeded } from '../../helpers/records';

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
        const base = projectIndex(pair.family, old, before);
        const target = projectIndex(pair.family, next, after);

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

  it('several refreshes on: a warm instance (each refresh’s delta on what it holds) reads the index a cold one reads whole', () => {
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
        let held = asRead('v0', projectIndex(family, records));
        steps.forEach((step, k) => {
          const r = seeded(seed + 10 * k + 1);
          const kept = records.filter(() => r.next() >= step.removed);
          records = [...edited(family, kept, step.changed, seed + 10 * k + 2), ...all.slice(next, next + step.added)];
          next += step.added;
          const version = `v${k + 1}`;
          const target = projectIndex(family, records);
          // The delta against the version it replaced, applied by an instance to the index it built the same way.
          const delta = indexDelta(held, `v${k}`, target)!;
          const warm = applyDelta(held, decodeIndexDelta(version, encodeIndexDelta(version, delta)));
          expect(delta.base).toBe(`v${k}`);
          expect(sameIndex(warm, target)).toBe(true);
          expect(asRead(version, warm)).toEqual(asRead(version, target));
          held = warm;
        });
      }),
      { numRuns: runs(60) },
    );
  });
});
