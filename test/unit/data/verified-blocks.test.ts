/**
 * A block is hashed once per content an instance reads (shared/data/items/document-block.ts
 * `VerifiedBlocks`): read again with the bytes that hashed to its key, it is not hashed again; any
 * other bytes, or the same bytes under another family, are hashed and refused as before.
 */
import crypto from 'node:crypto';
import { blockHash, decodeBlock, encodeBlock, VerifiedBlocks } from '../../../shared/data/items/document-block';
import { CorruptDataError } from '../../../shared/platform/errors';

const DOCS = ['{"id":1}', '{"id":2}'];
const HASH = blockHash('earn', DOCS);

/** The SHA-256 hashes computed while `run` runs. */
function hashesDuring(run: () => void): number {
  const spy = jest.spyOn(crypto, 'createHash');
  try {
    run();
    return spy.mock.calls.filter(([algorithm]) => algorithm === 'sha256').length;
  } finally {
    spy.mockRestore();
  }
}

it('a block read again with the bytes that hashed to its key is not hashed again', () => {
  const verified = new VerifiedBlocks(1_000_000);

  expect(hashesDuring(() => decodeBlock(HASH, 'earn', encodeBlock(HASH, DOCS), verified))).toBe(1);
  // Another read of the same block: equal bytes in another buffer.
  let docs: string[] = [];
  expect(hashesDuring(() => (docs = decodeBlock(HASH, 'earn', encodeBlock(HASH, DOCS), verified).all()))).toBe(0);
  expect(docs).toEqual(DOCS);
});

it('without a record of verified blocks, every read is hashed', () => {
  const item = encodeBlock(HASH, DOCS);

  expect(hashesDuring(() => [1, 2, 3].forEach(() => decodeBlock(HASH, 'earn', item)))).toBe(3);
});

it("bytes other than those verified are hashed and refused, even in the verified bytes' own buffer", () => {
  const verified = new VerifiedBlocks(1_000_000);
  const item = encodeBlock(HASH, DOCS);
  decodeBlock(HASH, 'earn', item, verified);
  const other = encodeBlock(HASH, ['{"id":1}', '{"id":3}']).z as Buffer;
  expect(other.length).toBe((item.z as Buffer).length);

  // The read's buffer overwritten in place: what was verified is a copy, not this buffer.
  other.copy(item.z as Buffer);

  expect(() => decodeBlock(HASH, 'earn', item, verified)).toThrow(CorruptDataError);
  expect(() => decodeBlock(HASH, 'earn', encodeBlock(HASH, ['{"id":"x"}']), verified)).toThrow(
    'does not hold the content its key names',
  );
  // The verified bytes still pass without a hash.
  expect(hashesDuring(() => decodeBlock(HASH, 'earn', encodeBlock(HASH, DOCS), verified))).toBe(0);
});

it('the verified bytes under another family are hashed and refused', () => {
  const verified = new VerifiedBlocks(1_000_000);
  decodeBlock(HASH, 'earn', encodeBlock(HASH, DOCS), verified);

  expect(() => decodeBlock(HASH, 'borrow', encodeBlock(HASH, DOCS), verified)).toThrow(
    'does not hold the content its key names',
  );
});

it('keeps bytes within its bound, the least recently matched leaving first', () => {
  const blocks = [1, 2, 3].map((n) => {
    const docs = [`{"id":${n}}`];
    const hash = blockHash('earn', docs);
    return { hash, item: encodeBlock(hash, docs) };
  });
  const size = (blocks[0].item.z as Buffer).length;
  const verified = new VerifiedBlocks(2 * size);
  const read = (i: number) => hashesDuring(() => decodeBlock(blocks[i].hash, 'earn', blocks[i].item, verified));

  expect([read(0), read(1), read(0)]).toEqual([1, 1, 0]);
  // Block 2 pushes out block 1, matched less recently than block 0.
  expect(read(2)).toBe(1);
  expect(verified.keptBytes).toBe(2 * size);
  expect([read(0), read(1)]).toEqual([0, 1]);
  expect(verified.keptBytes).toBeLessThanOrEqual(2 * size);
});

it('keeps nothing with a bound of 0', () => {
  const verified = new VerifiedBlocks(0);
  const item = encodeBlock(HASH, DOCS);

  expect(hashesDuring(() => [1, 2].forEach(() => decodeBlock(HASH, 'earn', item, verified)))).toBe(2);
  expect(verified.keptBytes).toBe(0);
});
