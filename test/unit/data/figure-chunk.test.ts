/**
 * The codec of the APY figure state's chunks (shared/data/items/figure-chunk.ts) and their place in
 * a version's manifest (items/manifest.ts): lines round-trip, chunks are cut at 4,000 lines and
 * addressed by the hash of their family and text, and a chunk that does not hold what its key
 * names, or holds something else than lines, fails to decode.
 */
import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { encodeBlock } from '../../../shared/data/items/document-block';
import {
  decodeFigureChunk,
  FIGURE_CHUNK_LINES,
  type FigureLine,
  figureChunks,
} from '../../../shared/data/items/figure-chunk';
import { decodeManifest, encodeManifest, type Manifest } from '../../../shared/data/items/manifest';
import { CorruptDataError } from '../../../shared/platform/errors';

const lines: FigureLine[] = [
  [1, 1_795_165_200_000, '4.25'],
  [1, 1_795_168_800_000, '-0.5'],
  [12, 1_795_165_200_000, '0'],
];

/** Stored as the table holds it. */
const stored = (chunk: { hash: string; docs: string[] }) => encodeBlock(chunk.hash, chunk.docs);

describe('figure chunks', () => {
  it('round-trip their lines, under the hash of their family and text (a known answer)', () => {
    const [chunk, ...more] = figureChunks('earn', lines);
    expect(more).toEqual([]);
    const text = '[1,1795165200000,"4.25"]\n[1,1795168800000,"-0.5"]\n[12,1795165200000,"0"]';
    expect(chunk!.hash).toBe(createHash('sha256').update(`figures/earn\n${text}`).digest('hex').slice(0, 32));
    expect(decodeFigureChunk(chunk!.hash, 'earn', stored(chunk!))).toEqual(lines);
  });

  it('are cut at 4,000 lines, in order', () => {
    const many: FigureLine[] = Array.from({ length: 2 * FIGURE_CHUNK_LINES + 1 }, (_, i) => [i, 1_000, '1.5']);
    const chunks = figureChunks('borrow', many);
    expect(chunks.map((c) => c.docs.length)).toEqual([4_000, 4_000, 1]);
    expect(chunks.flatMap((c) => decodeFigureChunk(c.hash, 'borrow', stored(c)))).toEqual(many);
    expect(figureChunks('borrow', [])).toEqual([]);
  });

  it('differ between families holding the same lines: one is not read as the other', () => {
    const borrow = figureChunks('borrow', lines)[0]!;
    expect(figureChunks('earn', lines)[0]!.hash).not.toBe(borrow.hash);
    expect(() => decodeFigureChunk(borrow.hash, 'earn', stored(borrow))).toThrow(CorruptDataError);
  });

  it.each<[string, (hash: string) => Record<string, unknown> | undefined]>([
    ['is missing', () => undefined],
    ['has no content', (hash) => ({ PK: `DOC#${hash}`, SK: 'DOC' })],
    ['is not deflated', (hash) => ({ PK: `DOC#${hash}`, SK: 'DOC', z: new Uint8Array([1, 2, 3]) })],
    [
      'holds other lines than its key names',
      (hash) => ({ PK: `DOC#${hash}`, SK: 'DOC', z: deflateRawSync('[1,1795165200000,"4.26"]') }),
    ],
  ])('a chunk that %s fails to decode with CorruptDataError', (_, item) => {
    const { hash } = figureChunks('earn', lines)[0]!;
    expect(() => decodeFigureChunk(hash, 'earn', item(hash))).toThrow(CorruptDataError);
  });

  it.each([
    ['a line that is not an array', '{"id":1}'],
    ['an apy that is a number', '[1,1795165200000,4.25]'],
    ['an apy that is not a decimal', '[1,1795165200000,"4.2e1"]'],
    ['an id that is not an integer', '[1.5,1795165200000,"4.25"]'],
    ['a missing time', '[1,"4.25"]'],
    ['text that is not JSON', '[1,179'],
  ])('a chunk whose content hashes right but holds %s fails to decode', (_, doc) => {
    // Written under its own hash, so only the line check can refuse it.
    const hash = createHash('sha256').update(`figures/earn\n${doc}`).digest('hex').slice(0, 32);
    expect(() => decodeFigureChunk(hash, 'earn', stored({ hash, docs: [doc] }))).toThrow(CorruptDataError);
  });
});

describe('a manifest with figure state', () => {
  it('round-trips it, its chunks listed among the blocks after the documents’ (each stored once)', () => {
    const manifest: Manifest = {
      keys: [['V#v#INDEX', '000000']],
      blocks: ['doc1', 'h1', 'h2', 'h1', 'd1'],
      figures: { hours: { '1795165200000': ['h1', 'h2'] }, days: { '1795132800000': ['h1'], '1795046400000': ['d1'] } },
    };
    const decoded = decodeManifest('v', encodeManifest('v', manifest));
    expect(decoded.keys).toEqual(manifest.keys);
    expect(decoded.figures).toEqual(manifest.figures);
    expect(decoded.blocks.sort()).toEqual(manifest.blocks.sort());
  });

  it('without figure state has none', () => {
    const decoded = decodeManifest('v', encodeManifest('v', { keys: [], blocks: ['doc1'] }));
    expect(decoded).toEqual({ keys: [], blocks: ['doc1'] });
  });
});
