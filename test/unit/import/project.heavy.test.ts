/**
 * Heavy projection tests (seconds each; project.test.ts holds the quick ones): adding or removing
 * an offer among 900 changes only the blocks around it, 24 projections; and stored items of a large
 * family version round-trip in several items (shared/data/items/): an index of 60,000 entries in
 * several segments, a manifest of 50,000 keys and blocks in several chunks (project.test.ts
 * round-trips the fixture's, in one item); and every figure ordering of earn and borrow, for 40 random
 * figure sets each, against an independent sort (project.test.ts checks the other orderings).
 */
import { createHash } from 'node:crypto';
import { indexOf, type OfferIndex, type OfferIndexData } from '../../../shared/data/family-index';
import { decodeIndex, encodeIndex } from '../../../shared/data/items/index-segment';
import { decodeManifest, encodeManifest, type Manifest } from '../../../shared/data/items/manifest';
import { DATASET_FAMILY_OF } from '../../../shared/data/keys';
import type { ApyStats } from '../../../shared/domain/apy-stats';
import { type Projection, platformResolver, projectOffers } from '../../../shared/import/project';
import { type FigureSortMode, isFigureSort, SORT_MODES, SORTS } from '../../../shared/model/offer-families';
import { compareExact } from '../../helpers/exact-decimal';
import { figureMapArb } from '../../helpers/figures';
import {
  generatedBorrow,
  generatedEarn,
  platformsOf,
  blockPositionOf as positionOf,
  projectEarn as project,
  withOffers,
} from '../../helpers/generated-offers';
import { fc, runs } from '../../helpers/property';
import { type RecordOf as Doc, earnRecord } from '../../helpers/records';

it('an index round-trips in several segments', () => {
  const n = 60_000;
  const big: OfferIndexData = {
    kind: 'offers',
    family: 'earn',
    ids: Array.from({ length: n }, (_, i) => i),
    block: Array.from({ length: n }, (_, i) => i % 4),
    slot: Array.from({ length: n }, (_, i) => i % 16),
    blocks: ['a', 'b', 'c', 'd'],
    // Incompressible, like real document hashes.
    hash: Array.from({ length: n }, (_, i) => createHash('sha256').update(String(i)).digest('base64url').slice(0, 12)),
    platformType: Array.from({ length: n }, () => null),
    platform: Array.from({ length: n }, () => null),
    asset: Array.from({ length: n }, (_, i) => `asset-${i % 97}`),
    chain: Array.from({ length: n }, () => null),
    apyKey: Array.from({ length: n }, (_, i) => `2${i}`),
    tvlKey: Array.from({ length: n }, () => null),
    flag: Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 0 : 1)),
    orders: { apy_desc: Array.from({ length: n }, (_, i) => n - 1 - i) },
  };

  const items = encodeIndex('v7', big);

  expect(items.length).toBeGreaterThan(1);
  expect(items.map((i) => [i.PK, i.SK])).toEqual(items.map((_, s) => ['V#v7#INDEX', String(s).padStart(6, '0')]));
  // Compared as text: jest's deep equality is slow on columns of 60,000 entries.
  const listed = (_: string, value: unknown) => (value instanceof Int32Array ? Array.from(value) : value);
  expect(JSON.stringify(decodeIndex('v7', items).data, listed)).toBe(JSON.stringify(big));
});

it('a manifest round-trips in several segments', () => {
  // Block hashes as stored (hex digits of SHA-256): their gzip is past one 256 KB segment.
  const hash = (i: number) => createHash('sha256').update(String(i)).digest('hex').slice(0, 32);
  const large: Manifest = {
    keys: Array.from({ length: 20_000 }, (_, i) => [`V#v#SOURCE#x${i}`, String(i)]),
    blocks: Array.from({ length: 30_000 }, (_, i) => hash(i)),
  };

  const items = encodeManifest('v', large);

  expect(items.length).toBeGreaterThan(1);
  expect(items.every((i) => i.PK === 'V#v#MANIFEST')).toBe(true);
  expect(JSON.stringify(decodeManifest('v', items))).toBe(JSON.stringify(large));
});

describe('blocks', () => {
  const base = generatedEarn(900);
  const before = project(base);

  /** The positions of `after`'s blocks that `before` does not have, and the reverse; both must be one contiguous run. */
  function changedRun(after: Projection) {
    const old = before.index.blocks;
    const now = after.index.blocks;
    let prefix = 0;
    while (prefix < Math.min(old.length, now.length) && old[prefix] === now[prefix]) prefix++;
    let suffix = 0;
    while (
      suffix < Math.min(old.length, now.length) - prefix &&
      old[old.length - 1 - suffix] === now[now.length - 1 - suffix]
    )
      suffix++;
    return {
      prefix,
      suffix,
      removed: old.slice(prefix, old.length - suffix),
      added: now.slice(prefix, now.length - suffix),
    };
  }

  it.each([
    [
      'adding',
      (at: Doc) => ({ records: [...base, earnRecord(at.id + 1, '3.5', { asset: at.asset })], id: at.id + 1, delta: 1 }),
    ],
    ['removing', (at: Doc) => ({ records: base.filter((o) => o.id !== at.id), id: at.id, delta: -1 })],
  ])('%s an offer changes only the blocks around it', (_, edit) => {
    for (const at of base.filter((o) => o.published).slice(0, 12)) {
      const { records, id, delta } = edit(at);

      const after = project(records);

      const { prefix, suffix, removed, added } = changedRun(after);
      // The run of changed blocks holds the edited offer; every block before and after it is the same.
      const [where, position] = delta > 0 ? [after, positionOf(after, id)] : [before, positionOf(before, id)];
      expect(position).toBeGreaterThanOrEqual(prefix);
      expect(position).toBeLessThan(where.blocks.length - suffix);
      // The run holds the same documents, regrouped, with the edited one added or removed.
      const idsIn = (p: Projection, hashes: string[]) =>
        p.blocks.filter((b) => hashes.includes(b.hash)).flatMap((b) => b.docs.map((d) => JSON.parse(d).id as number));
      const expected = delta > 0 ? [...idsIn(before, removed), id] : idsIn(before, removed).filter((i) => i !== id);
      expect(idsIn(after, added).sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
      // Neighbours only: a handful of blocks of the asset's many.
      expect(removed.length).toBeLessThanOrEqual(3);
      expect(added.length).toBeLessThanOrEqual(3);
    }
  });
});

describe('orderings (docs/api.md, "Orderings")', () => {
  /** The independent order of a figure's mode: its figure exact, null last in either direction, ties by id. */
  function expectedFigureOrder(ids: number[], figures: Map<number, ApyStats>, mode: FigureSortMode): number[] {
    const { figure, direction } = SORTS[mode];
    const value = (id: number) => figures.get(id)?.[figure] ?? null;
    return [...ids].sort((a, b) => {
      const [x, y] = [value(a), value(b)];
      if (x === null || y === null) return x === y ? a - b : x === null ? 1 : -1;
      return (direction === 'asc' ? 1 : -1) * compareExact(x, y) || a - b;
    });
  }

  it('earn and borrow, the modes of a figure: the exact order of random figures (null last, huge values exact), stored and read back', () => {
    const dataset = withOffers(generatedEarn(120), generatedBorrow(90));
    for (const family of ['earn', 'borrow'] as const) {
      const records = dataset[DATASET_FAMILY_OF[family]] ?? [];
      const ids = records.filter((r) => r.published).map((r) => r.id as number);
      fc.assert(
        fc.property(figureMapArb(ids), (figures) => {
          const projection = projectOffers(family, records, platformResolver(platformsOf(dataset)), figures);
          const { data } = decodeIndex('v', encodeIndex('v', projection.index));
          const index = indexOf('v', data) as OfferIndex;
          for (const mode of SORT_MODES.filter(isFigureSort)) {
            const sorted = [...ids].sort((a, b) => a - b);
            expect(Array.from(index.order(mode), (e) => index.id(e))).toEqual(
              expectedFigureOrder(sorted, figures, mode),
            );
          }
          // Each offer's figures read back as given (none: every one null).
          for (const id of ids) {
            const { as_of, ...values } = figures.get(id) ?? { as_of: undefined, points_30d: 0 };
            const read = index.figures(index.entry(id)!)!;
            expect(read.asOf).toBe('2026-11-20T10:00:00.000Z');
            expect(Object.fromEntries(Object.entries(read.values).filter(([, v]) => v !== null))).toEqual(
              Object.fromEntries(Object.entries(values).filter(([, v]) => v !== null)),
            );
          }
        }),
        { numRuns: runs(40) },
      );
    }
  });
});
