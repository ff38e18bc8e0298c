/**
 * A block of rendered documents (`DOC#<hash>` / `DOC`), addressed by the hash of its content and
 * shared by every version that names it: one JSON document a line, raw deflate. Read by
 * document-store.ts; written by snapshot-writer.ts.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { CorruptDataError } from '../../platform/errors';
import { documentBlockKey } from '../keys';
import { BODY, body, type Item, parsed } from './content';

/** Documents are JSON texts without a raw line break (JSON.stringify escapes them): one a line. */
const DOC_SEPARATOR = '\n';

export const encodeBlock = (hash: string, docs: readonly string[]): Item => ({
  ...documentBlockKey(hash),
  [BODY]: deflateRawSync(docs.join(DOC_SEPARATOR), { level: 9 }),
});

/** A decoded block: its documents, each checked to be a JSON object the first time it is served. */
export class DocumentBlockView {
  private readonly checked: Uint8Array;

  constructor(
    private readonly hash: string,
    private readonly docs: string[],
  ) {
    this.checked = new Uint8Array(docs.length);
  }

  doc(slot: number): string {
    const doc = this.docs[slot];
    if (doc === undefined) throw new CorruptDataError(`block ${this.hash} has no document ${slot}`);
    if (!this.checked[slot]) {
      const value = parsed(doc, `a document of block ${this.hash}`);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new CorruptDataError(`a document of block ${this.hash} is not an object`);
      this.checked[slot] = 1;
    }
    return doc;
  }

  /** Every document of the block (checked). */
  all(): string[] {
    return this.docs.map((_, slot) => this.doc(slot));
  }
}

export function decodeBlock(hash: string, item: Record<string, unknown> | undefined): DocumentBlockView {
  return new DocumentBlockView(
    hash,
    body(item, `block ${hash}`, (bytes) => inflateRawSync(bytes)).split(DOC_SEPARATOR),
  );
}
