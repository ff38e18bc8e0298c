/** A block of rendered documents (`DOC#<hash>` / `DOC`), addressed by the hash of its content, one a line. */
import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { CorruptDataError } from '../../platform/errors';
import { documentBlockKey, type Key } from '../keys';
import { BODY, type Item, inflated, parsed } from './content';

/** How a block is stored (JSON has no raw line break); part of every version's layout, so another format is another version. */
const BLOCK_FORMAT = { separator: '\n', body: 'deflate-raw', hash: 'sha256', hashDigits: 32 } as const;
const DOC_SEPARATOR = BLOCK_FORMAT.separator;

export const BLOCK_LAYOUT = JSON.stringify(BLOCK_FORMAT);

const contentHash = (family: string, text: string | Uint8Array): string =>
  createHash(BLOCK_FORMAT.hash)
    .update(family)
    .update(DOC_SEPARATOR)
    .update(text)
    .digest('hex')
    .slice(0, BLOCK_FORMAT.hashDigits);

export const blockHash = (family: string, docs: readonly string[]): string =>
  contentHash(family, docs.join(DOC_SEPARATOR));

/** A block as stored: under its document key, or `key` for what is stored like one (source chunks). */
export const encodeBlock = (hash: string, docs: readonly string[], key: Key = documentBlockKey(hash)): Item => ({
  ...key,
  [BODY]: deflateRawSync(docs.join(DOC_SEPARATOR), { level: 9 }),
});

/** The lines of an item stored like a block (figure and source chunks), which must hash to `hash` in `space`. */
export function blockLines(
  hash: string,
  space: string,
  item: Record<string, unknown> | undefined,
  what: string,
): string[] {
  const lines = inflated(item, what, (bytes) => inflateRawSync(bytes))
    .toString('utf8')
    .split(DOC_SEPARATOR);
  if (blockHash(space, lines) !== hash) throw new CorruptDataError(`${what} does not hold the content its key names`);
  return lines;
}

/** What a document is checked against: its `id` (offers) or `slug` (platforms, currencies). */
type Identity = { id: unknown; slug: unknown };

/** A decoded block: each document checked, the first time it is served, to be the one its index entry names. */
export class DocumentBlockView {
  /** Each checked document's identifiers (undefined: not checked yet). */
  private readonly identities: (Identity | undefined)[];

  constructor(
    private readonly hash: string,
    private readonly docs: string[],
  ) {
    this.identities = new Array(docs.length);
  }

  /** The document at `slot`, which must be the one of `id` (a number: an offer's `id`; a string: a `slug`). */
  doc(slot: number, id: number | string): string {
    const identity = this.identity(slot);
    if ((typeof id === 'number' ? identity.id : identity.slug) !== id)
      throw new CorruptDataError(`document ${slot} of block ${this.hash} is not the one of ${JSON.stringify(id)}`);
    return this.docs[slot];
  }

  /** Every document of the block (each checked to be a JSON object). */
  all(): string[] {
    return this.docs.map((doc, slot) => {
      this.identity(slot);
      return doc;
    });
  }

  private identity(slot: number): Identity {
    const doc = this.docs[slot];
    if (doc === undefined) throw new CorruptDataError(`block ${this.hash} has no document ${slot}`);
    let identity = this.identities[slot];
    if (!identity) {
      const value = parsed(doc, `a document of block ${this.hash}`);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new CorruptDataError(`a document of block ${this.hash} is not an object`);
      const { id, slug } = value as Record<string, unknown>;
      identity = { id, slug };
      this.identities[slot] = identity;
    }
    return identity;
  }
}

/**
 * The stored bytes of the blocks an instance found to hash to their key, per family and hash: the
 * same bytes read again are compared, not hashed (docs/data-model.md). Least recently matched leave first.
 */
export class VerifiedBlocks {
  private readonly kept = new Map<string, Uint8Array>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Whether `bytes` are those that hashed to `hash` for `family`. */
  holds(family: string, hash: string, bytes: Uint8Array): boolean {
    const key = `${family}\u0000${hash}`;
    const kept = this.kept.get(key);
    if (kept === undefined || Buffer.compare(kept, bytes) !== 0) return false;
    // Most recently matched last: Map keeps insertion order.
    this.kept.delete(key);
    this.kept.set(key, kept);
    return true;
  }

  /** Keeps a copy of `bytes`, which hashed to `hash` for `family` (a copy: the read's buffer is not held). */
  add(family: string, hash: string, bytes: Uint8Array): void {
    if (bytes.length > this.maxBytes) return;
    const key = `${family}\u0000${hash}`;
    const previous = this.kept.get(key);
    if (previous) this.bytes -= previous.length;
    this.kept.delete(key);
    this.kept.set(key, new Uint8Array(bytes));
    this.bytes += bytes.length;
    for (const [oldest, value] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(oldest);
      this.bytes -= value.length;
    }
  }

  /** The bytes kept, for the bound's tests. */
  get keptBytes(): number {
    return this.bytes;
  }
}

/** A block of `family` read under `hash`: its content must hash to its key, else it is corrupt. */
export function decodeBlock(
  hash: string,
  family: string,
  item: Record<string, unknown> | undefined,
  verified?: VerifiedBlocks,
): DocumentBlockView {
  const text = inflated(item, `block ${hash}`, (bytes) => inflateRawSync(bytes));
  const stored = item![BODY] as Uint8Array;
  if (!verified?.holds(family, hash, stored)) {
    if (contentHash(family, text) !== hash)
      throw new CorruptDataError(`block ${hash} does not hold the content its key names`);
    verified?.add(family, hash, stored);
  }
  return new DocumentBlockView(hash, text.toString('utf8').split(DOC_SEPARATOR));
}

/** A block item's documents as stored, unchecked: for tools that read blocks without an index naming them (the bench's floor). */
export const blockDocuments = (item: Record<string, unknown>): string[] =>
  inflated(item, `block ${String(item.PK)}`, (bytes) => inflateRawSync(bytes))
    .toString('utf8')
    .split(DOC_SEPARATOR);
