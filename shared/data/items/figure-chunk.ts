/**
 * A chunk of the APY figure state (docs/adr/0015-apy-figures.md): one `[id, ms, "apy"]` line an
 * observation, sorted by (id, ms), stored as a document block and named by manifests like one.
 */
import { DECIMAL_PATTERN } from '../../platform/decimal';
import { CorruptDataError } from '../../platform/errors';
import { parsed } from './content';
import { blockHash, blockLines } from './document-block';

/** One observation: offer id, epoch ms, the APY as the decimal string observed. */
export type FigureLine = readonly [id: number, ms: number, apy: string];

/** Lines per chunk at most: ~120 KB of text, ~30 KB deflated, well under the item limit. */
export const FIGURE_CHUNK_LINES = 4_000;

const space = (family: string) => `figures/${family}`;

/** A chunk as a document block: its hash and its lines as JSON texts (one a line). */
export interface FigureChunk {
  hash: string;
  docs: string[];
}

/** Lines (sorted by id, ms) → chunks of at most FIGURE_CHUNK_LINES, cut at fixed counts. */
export function figureChunks(family: string, lines: readonly FigureLine[]): FigureChunk[] {
  const chunks: FigureChunk[] = [];
  for (let i = 0; i < lines.length; i += FIGURE_CHUNK_LINES) {
    const docs = lines.slice(i, i + FIGURE_CHUNK_LINES).map((line) => JSON.stringify(line));
    chunks.push({ hash: blockHash(space(family), docs), docs });
  }
  return chunks;
}

const isLine = (v: unknown): v is FigureLine =>
  Array.isArray(v) &&
  v.length === 3 &&
  Number.isSafeInteger(v[0]) &&
  Number.isSafeInteger(v[1]) &&
  typeof v[2] === 'string' &&
  DECIMAL_PATTERN.test(v[2]);

/** A chunk of `family` read under `hash`: its content must hash to it and hold valid lines, else CorruptDataError. */
export function decodeFigureChunk(
  hash: string,
  family: string,
  item: Record<string, unknown> | undefined,
): FigureLine[] {
  const what = `figure chunk ${hash}`;
  return blockLines(hash, space(family), item, what).map((doc) => {
    const line = parsed(doc, what);
    if (!isLine(line)) throw new CorruptDataError(`${what} holds ${doc}`);
    return line;
  });
}
