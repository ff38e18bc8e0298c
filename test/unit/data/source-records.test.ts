/**
 * Source records stored like document blocks (shared/data/items/source-records.ts,
 * docs/adr/0016-source-records-by-content.md): chunks addressed by the hash of their family and
 * text, a version's layout (chunks and runs of their lines) in its manifest, a new version naming
 * the served version's chunks for its unchanged records and writing only the others, the keys of
 * both layouts, and the records of versions written before.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync, gzipSync } from 'node:zlib';
import * as z from 'zod/mini';
import { decodeManifest, encodeManifest, MANIFEST_LAYOUT, type Manifest } from '../../../shared/data/items/manifest';
import {
  decodeSource,
  decodeSourceChunk,
  encodeSourceChunk,
  planSource,
  type SourceChunk,
  type SourceLayout,
} from '../../../shared/data/items/source-records';
import { documentBlockKey, sharedItemKey, sourceChunkKey, sourceChunkName } from '../../../shared/data/keys';
import { CorruptDataError } from '../../../shared/platform/errors';

const NOTE = z.strictObject({ id: z.int(), note: z.string() });
type Note = z.output<typeof NOTE>;

/** `count` records of about 520 bytes of JSON each: 300 KB of text hold about 590 of them. */
const notes = (count: number, from = 0): Note[] =>
  Array.from({ length: count }, (_, i) => ({ id: from + i, note: `${from + i}:${'x'.repeat(500)}` }));

/** The chunks as the table holds them, read back by hash. */
const storedLines = (chunks: readonly SourceChunk[]) =>
  new Map(chunks.map((c) => [c.hash, decodeSourceChunk(c.hash, 'earn_offers', encodeSourceChunk(c))]));

/** A version written with no served version before it: its layout and every chunk it names. */
function first(records: Note[]) {
  const { layout, written } = planSource('earn_offers', records);
  return { layout, lines: storedLines(written) };
}

const read = (layout: SourceLayout, lines: ReadonlyMap<string, readonly string[]>) =>
  decodeSource('v', 'earn_offers', layout, lines, NOTE);

describe('source chunks', () => {
  it('are keyed and addressed by the hash of their family and text (a known answer), one record a line', () => {
    const { written } = planSource('earn_offers', [{ id: 1, note: 'a' }]);
    const text = '{"id":1,"note":"a"}';
    const hash = createHash('sha256').update(`source/earn_offers\n${text}`).digest('hex').slice(0, 32);

    expect(written).toEqual([{ hash, lines: [text] }]);
    expect(encodeSourceChunk(written[0])).toEqual({
      PK: `SRC#${hash}`,
      SK: 'SRC',
      z: deflateRawSync(text, { level: 9 }),
    });
    expect(sourceChunkKey(hash)).toEqual({ PK: `SRC#${hash}`, SK: 'SRC' });
  });

  it.each<[string, (chunk: SourceChunk) => Record<string, unknown> | undefined]>([
    ['is missing', () => undefined],
    ['has no content', (c) => ({ ...sourceChunkKey(c.hash) })],
    ['is not deflated', (c) => ({ ...sourceChunkKey(c.hash), z: new Uint8Array([1, 2, 3]) })],
    ['holds other records than its key names', (c) => ({ ...sourceChunkKey(c.hash), z: deflateRawSync('{"id":2}') })],
  ])('a chunk that %s fails to decode with CorruptDataError', (_, item) => {
    const [chunk] = planSource('earn_offers', notes(2)).written;
    expect(() => decodeSourceChunk(chunk.hash, 'earn_offers', item(chunk))).toThrow(CorruptDataError);
  });

  it('differ between families holding the same records: one is not read as the other', () => {
    const [borrow] = planSource('borrow_offers', notes(2)).written;
    expect(planSource('earn_offers', notes(2)).written[0].hash).not.toBe(borrow.hash);
    expect(() => decodeSourceChunk(borrow.hash, 'earn_offers', encodeSourceChunk(borrow))).toThrow(CorruptDataError);
  });
});

describe('a version’s source layout', () => {
  it('without a served version: every record in new chunks of at most 300 KB of text, read back in order', () => {
    const records = notes(1_500);
    const { layout, written } = planSource('earn_offers', records);

    expect(written.length).toBe(3);
    expect(written.every((c) => c.lines.join('\n').length <= 300 * 1024)).toBe(true);
    expect(layout.chunks).toEqual(written.map((c) => c.hash));
    expect(read(layout, storedLines(written))).toEqual(records);
    expect(planSource('earn_offers', [])).toEqual({ layout: { chunks: [], runs: [] }, written: [] });
  });

  it('a refresh of 5 % of the records writes those records only, and names the served chunks for the others', () => {
    const served = first(notes(1_500));
    const next = notes(1_500).map((r) => (r.id % 20 === 0 ? { ...r, note: `${r.note}!` } : r));

    const { layout, written } = planSource('earn_offers', next, served);

    expect(written.flatMap((c) => c.lines)).toEqual(next.filter((r) => r.id % 20 === 0).map((r) => JSON.stringify(r)));
    expect(layout.chunks).toEqual([...served.layout.chunks, ...written.map((c) => c.hash)]);
    expect(read(layout, new Map([...served.lines, ...storedLines(written)]))).toEqual(next);
  });

  it('records added, removed and moved: only the added are written, and the order is the new one', () => {
    const served = first(notes(1_000));
    // Of each served chunk (ids 0–584, 585–999) the version uses more than half: 100–299 are removed.
    const next = [...notes(700, 300).reverse(), ...notes(3, 5_000), ...notes(100)];

    const { layout, written } = planSource('earn_offers', next, served);

    expect(written.flatMap((c) => c.lines)).toEqual(notes(3, 5_000).map((r) => JSON.stringify(r)));
    expect(read(layout, new Map([...served.lines, ...storedLines(written)]))).toEqual(next);
  });

  it('a served chunk of which the version uses less than half is not named: its used records are written again', () => {
    // Two served chunks: ids 0–584 and 585–999 (text cut at 300 KB).
    const served = first(notes(1_000));
    const [one, two] = [...served.lines.values()].map((lines) => lines.map((l) => JSON.parse(l) as Note));
    // Of the first chunk, less than half stays; of the second, half (rounded up).
    const fewOfOne = one.slice(0, Math.ceil(one.length / 2) - 1);
    const halfOfTwo = two.slice(0, Math.ceil(two.length / 2));
    const next = [...fewOfOne, ...halfOfTwo];

    const { layout, written } = planSource('earn_offers', next, served);

    expect(layout.chunks).toEqual([served.layout.chunks[1], ...written.map((c) => c.hash)]);
    expect(written.flatMap((c) => c.lines)).toEqual(fewOfOne.map((r) => JSON.stringify(r)));
    expect(read(layout, new Map([...served.lines, ...storedLines(written)]))).toEqual(next);
  });

  it('the same records again write nothing and name the same chunks', () => {
    const served = first(notes(1_000));
    const again = planSource('earn_offers', notes(1_000), served);
    expect(again).toEqual({ layout: served.layout, written: [] });
  });

  it.each<[string, SourceLayout]>([
    ['names a line past its chunk’s end', { chunks: ['c'], runs: [0, 1, 2] }],
    ['names a chunk it does not list', { chunks: ['c'], runs: [1, 0, 1] }],
    ['names a chunk that was not read', { chunks: ['d'], runs: [0, 0, 1] }],
  ])('a layout that %s is corrupt', (_, layout) => {
    expect(() => read(layout, new Map([['c', ['{"id":1,"note":"a"}', '{"id":2,"note":"b"}']]]))).toThrow(
      CorruptDataError,
    );
  });

  it.each([
    ['a line that is not JSON', '{"id":1'],
    ['a record that does not match the family’s schema', '{"id":"1","note":"a"}'],
  ])('records with %s are corrupt', (_, line) => {
    expect(() => read({ chunks: ['c'], runs: [0, 0, 1] }, new Map([['c', [line]]]))).toThrow(CorruptDataError);
  });
});

describe('a manifest with a source layout', () => {
  it('round-trips it, its chunks listed among the blocks by their `SRC#` names (each stored once)', () => {
    const manifest: Manifest = {
      keys: [['V#v#INDEX', '000000']],
      blocks: ['doc1', 'SRC#s1', 'SRC#s2'],
      source: { chunks: ['s1', 's2'], runs: [1, 0, 4, 0, 3, 1] },
    };
    const items = encodeManifest('v', manifest);

    expect(decodeManifest('v', items)).toEqual(manifest);
    expect(JSON.stringify(decodeManifest('v', items).source)).not.toContain('SRC#');
  });

  it('has a stored form derived from its codec: every field and its shape are in the layout a version’s identity hashes', () => {
    const layout = JSON.parse(MANIFEST_LAYOUT);

    expect(Object.keys(layout.properties).sort()).toEqual(['blocks', 'figures', 'keys', 'source']);
    expect(layout.required.sort()).toEqual(['blocks', 'keys']);
    expect(layout.properties.source.properties.runs.items).toMatchObject({ type: 'integer', minimum: 0 });
  });

  it('round-trips layouts of any length, and one of no records', () => {
    const chunks = Array.from({ length: 7_001 }, (_, i) => `c${i}`);
    const runs = Array.from({ length: 3 * 12_000 }, (_, i) => i);
    const many = decodeManifest('v', encodeManifest('v', { keys: [], blocks: [], source: { chunks, runs } }));
    const none = decodeManifest('v', encodeManifest('v', { keys: [], blocks: [], source: { chunks: [], runs: [] } }));

    expect(many.source).toEqual({ chunks, runs });
    expect(many.blocks).toEqual(chunks.map(sourceChunkName));
    expect(none).toEqual({ keys: [], blocks: [], source: { chunks: [], runs: [] } });
    expect(decodeManifest('v', encodeManifest('v', { keys: [], blocks: [] })).source).toBeUndefined();
  });

  it.each([
    ['runs that are not triples', '{"keys":[],"blocks":[],"source":{"chunks":["a"],"runs":[0,0]}}'],
    ['a run that is not a count', '{"keys":[],"blocks":[],"source":{"chunks":["a"],"runs":[0,-1,1]}}'],
    ['a chunk that is not a hash', '{"keys":[],"blocks":[],"source":{"chunks":[1],"runs":[]}}'],
    ['a list instead of an object', '[{"source":["a"]},{"runs":[0,0,1]}]'],
  ])('a manifest with %s is corrupt', (_, text) => {
    expect(() => decodeManifest('v', [{ PK: 'V#v#MANIFEST', SK: '000000', z: gzipSync(text) }])).toThrow(
      CorruptDataError,
    );
  });
});

describe('the keys a manifest names', () => {
  it.each([
    ['a document block', 'abc', documentBlockKey('abc')],
    ['a source chunk', 'SRC#abc', { PK: 'SRC#abc', SK: 'SRC' }],
  ])('%s', (_, name, key) => {
    expect(sharedItemKey(name)).toEqual(key);
  });
});
