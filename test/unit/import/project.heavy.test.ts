/**
 * Stored items of a large family version round-trip in several items (shared/data/items/):
 * an index of 60,000 entries in several segments, a manifest of 50,000 keys and blocks in several
 * chunks. Heavy: seconds each; project.test.ts round-trips the fixture's, in one item.
 */
import { createHash } from 'node:crypto';
import type { OfferIndexData } from '../../../shared/data/family-index';
import { decodeIndex, encodeIndex } from '../../../shared/data/items/index-segment';
import { decodeManifest, encodeManifest, type Manifest } from '../../../shared/data/items/manifest';

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
    flag: Array.from({ length: n }, (_, i) => i % 2),
    orders: { apy_desc: Array.from({ length: n }, (_, i) => n - 1 - i) },
  };

  const items = encodeIndex('v7', big);

  expect(items.length).toBeGreaterThan(1);
  expect(items.map((i) => [i.PK, i.SK])).toEqual(items.map((_, s) => ['V#v7#INDEX', String(s).padStart(6, '0')]));
  // Compared as text: jest's deep equality is slow on columns of 60,000 entries.
  expect(JSON.stringify(decodeIndex('v7', items).data)).toBe(JSON.stringify(big));
});

it('a manifest round-trips in several chunks', () => {
  const large: Manifest = {
    keys: Array.from({ length: 20_000 }, (_, i) => [`V#v#SOURCE#x${i}`, String(i)]),
    blocks: Array.from({ length: 30_000 }, (_, i) => `block-${i}-${'0'.repeat(20)}`),
  };

  const items = encodeManifest('v', large);

  expect(items.length).toBeGreaterThan(1);
  expect(items.every((i) => i.PK === 'V#v#MANIFEST')).toBe(true);
  expect(JSON.stringify(decodeManifest('v', items))).toBe(JSON.stringify(large));
});
