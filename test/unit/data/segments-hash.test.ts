/**
 * The content hash the pointer names for an index's or a delta's segments (items/content.ts):
 * SHA-256 of their bodies in order, checked on every read; a pointer that names none is corrupt
 * (no writer produces one: ADR 0025), and missing segments are the caller's to answer (a 410, a 500).
 */
import { createHash } from 'node:crypto';
import { checkedSegments, segmentsHash } from '../../../shared/data/items/content';
import { CorruptDataError } from '../../../shared/platform/errors';

const segment = (text: string) => ({ PK: 'V#v#INDEX', SK: '000000', z: new Uint8Array(Buffer.from(text)) });

describe('segment content hashes', () => {
  const items = [segment('abc'), segment('def')];

  it('hash the bodies in order (a known answer: SHA-256 of "abcdef")', () => {
    expect(segmentsHash(items)).toBe(createHash('sha256').update('abcdef').digest('hex'));
    expect(segmentsHash(items)).toBe('bef57ec7f53a6d40beb640a780a639c83bc29ac8a9816f1fc6c5c6dcd93c4721');
  });

  it('return the segments that match, and refuse those that do not or a pointer that names no hash', () => {
    expect(checkedSegments(items, segmentsHash(items), 'the index')).toBe(items);
    expect(() => checkedSegments([...items].reverse(), segmentsHash(items), 'the index')).toThrow(CorruptDataError);
    expect(() => checkedSegments(items, undefined, 'the index')).toThrow(/names no content hash/);
  });

  it('leave missing segments to the caller', () => {
    const read = [items[0], undefined];
    expect(checkedSegments(read, undefined, 'the index')).toBe(read);
  });
});
