/**
 * What the stored kinds of the served data share: their compressed content in one binary attribute
 * (DynamoDB charges by stored bytes), raw deflate for what is read per request (blocks, history), gzip
 * with its checksum for the rest. Content that does not decode is a CorruptDataError (a 500).
 */
import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { CorruptDataError } from '../../platform/errors';
import type { Key } from '../keys';

export type Item = Record<string, unknown> & Key;

/** The attribute that holds an item's compressed content. */
export const BODY = 'z';

export const gzip = (text: string) => gzipSync(text, { level: 9 });

/** An item's content: gzip by default, raw deflate for blocks (see above). */
export function inflated(
  item: Record<string, unknown> | undefined,
  what: string,
  inflate: (bytes: Uint8Array) => Buffer = gunzipSync,
): Buffer {
  const value = item?.[BODY];
  if (!(value instanceof Uint8Array)) throw new CorruptDataError(`${what} has no content`);
  try {
    return inflate(value);
  } catch {
    throw new CorruptDataError(`${what} is not readable`);
  }
}

/** The text of content cut into parts (index segments, journal parts), each part's item in order. */
export function joinedBody(items: (Record<string, unknown> | undefined)[], what: string, part: string): string {
  const parts = items.map((item, i) => {
    const value = item?.[BODY];
    if (!(value instanceof Uint8Array)) throw new CorruptDataError(`${what}: ${part} ${i} is missing`);
    return value;
  });
  try {
    return gunzipSync(Buffer.concat(parts)).toString('utf8');
  } catch {
    throw new CorruptDataError(`${what} is not readable`);
  }
}

export function parsed(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CorruptDataError(`${what} is not JSON`);
  }
}

/** The text a source or search chunk holds: under the 400 KB item limit even uncompressed. */
const CHUNK_TEXT_BYTES = 300 * 1024;

/** Texts → groups of consecutive texts under `maxBytes` (unless one is larger) and `maxCount`; none empty. */
export function cut(
  texts: Iterable<string>,
  maxBytes = CHUNK_TEXT_BYTES,
  maxCount = Number.POSITIVE_INFINITY,
): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let size = 0;
  for (const text of texts) {
    const bytes = Buffer.byteLength(text) + 1;
    if ((size + bytes > maxBytes || group.length === maxCount) && group.length > 0) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(text);
    size += bytes;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** A segment's compressed bytes: a quarter of the item size limit, several read in parallel. */
const SEGMENT_BYTES = 256 * 1024;

/** Gzip'd JSON cut into segments of SEGMENT_BYTES, keyed by `key` (an index, its delta, a manifest). */
export function segmented(value: unknown, key: (segment: number) => Key): Item[] {
  // An order read back is typed integers (items/index-segment.ts): written again, it is a list.
  const bytes = gzip(JSON.stringify(value, (_, v) => (v instanceof Int32Array ? Array.from(v) : v)));
  const items: Item[] = [];
  for (let start = 0; start === 0 || start < bytes.length; start += SEGMENT_BYTES)
    items.push({ ...key(items.length), [BODY]: bytes.subarray(start, start + SEGMENT_BYTES) });
  return items;
}

/** SHA-256 of an index's or a delta's segments, in order: the pointer names it, every read checks it. */
export function segmentsHash(items: readonly Record<string, unknown>[]): string {
  const hash = createHash('sha256');
  for (const item of items) {
    const body = item[BODY];
    if (body instanceof Uint8Array) hash.update(body);
  }
  return hash.digest('hex');
}

/** The segments read, when they hash to `expected` (else corrupt); missing ones are the caller's to judge (a 410, a 500). */
export function checkedSegments<T extends Record<string, unknown> | undefined>(
  items: T[],
  expected: string | undefined,
  what: string,
): T[] {
  if (items.some((item) => item === undefined)) return items;
  if (expected === undefined) throw new CorruptDataError(`${what}: the pointer names no content hash`);
  if (segmentsHash(items as Record<string, unknown>[]) !== expected)
    throw new CorruptDataError(`${what}: its content does not match the hash the pointer names`);
  return items;
}
