/**
 * A family version's source records as imported (to render offers again, to write a version again,
 * to check history), which no serving function may read: chunks stored like document blocks
 * (`SRC#<hash>` / `SRC`, docs/adr/0016-source-records-by-content.md), and the runs of their lines
 * that make a version's records, decoded with the dataset's schema of the family.
 */
import * as z from 'zod/mini';
import { CorruptDataError } from '../../platform/errors';
import { sourceChunkKey } from '../keys';
import { cut, type Item, parsed } from './content';
import { blockHash, blockLines, encodeBlock } from './document-block';

/** A version's source records: the chunks it names, and `[chunk, first line, lines]` runs, flat, in record order. */
export interface SourceLayout {
  chunks: string[];
  runs: number[];
}

/** A chunk: its hash and its lines (one JSON record each). */
export interface SourceChunk {
  hash: string;
  lines: string[];
}

const space = (family: string) => `source/${family}`;

/** A chunk stays named while a version uses at least this share of its lines (dead lines stay bounded: ADR 0016). */
const MIN_USED_SHARE = 0.5;

/**
 * The layout of a version of `records` given the served version's (with its chunks' lines): a
 * record a kept chunk holds is named there, the others are cut, in order, into new chunks.
 */
export function planSource(
  family: string,
  records: readonly unknown[],
  previous?: { layout: SourceLayout; lines: ReadonlyMap<string, readonly string[]> },
): { layout: SourceLayout; written: SourceChunk[] } {
  const texts = records.map((r) => JSON.stringify(r));
  const chunks = previous?.layout.chunks ?? [];
  // Where each text of the served version's chunks is: [chunk, line] (the first place, for a text held twice).
  const where = new Map<string, [number, number]>();
  chunks.forEach((hash, c) => {
    previous!.lines.get(hash)?.forEach((text, line) => {
      if (!where.has(text)) where.set(text, [c, line]);
    });
  });
  const used = chunks.map(() => new Set<number>());
  for (const text of texts) {
    const at = where.get(text);
    if (at) used[at[0]].add(at[1]);
  }
  const kept = chunks.map((hash, c) => {
    const lines = previous!.lines.get(hash)?.length;
    return lines !== undefined && used[c].size > 0 && used[c].size >= MIN_USED_SHARE * lines;
  });
  const keptIndex = new Map<number, number>();
  kept.forEach((k, c) => k && keptIndex.set(c, keptIndex.size));

  const fresh = texts.filter((text) => {
    const at = where.get(text);
    return !at || !kept[at[0]];
  });
  const written = cut(fresh).map((lines) => ({ hash: blockHash(space(family), lines), lines }));
  const layout: SourceLayout = {
    chunks: [...chunks.filter((_, c) => kept[c]), ...written.map((c) => c.hash)],
    runs: [],
  };

  let next = 0; // the next fresh text's place: its chunk is keptIndex.size + next chunk
  const freshAt: [number, number][] = written.flatMap((chunk, k) =>
    chunk.lines.map((_, line): [number, number] => [keptIndex.size + k, line]),
  );
  const runs = layout.runs;
  for (const text of texts) {
    const at = where.get(text);
    const [chunk, line] = at && kept[at[0]] ? [keptIndex.get(at[0])!, at[1]] : freshAt[next++];
    const last = runs.length - 3;
    if (last >= 0 && runs[last] === chunk && runs[last + 1] + runs[last + 2] === line) runs[last + 2] += 1;
    else runs.push(chunk, line, 1);
  }
  return { layout, written };
}

export const encodeSourceChunk = (chunk: SourceChunk): Item =>
  encodeBlock(chunk.hash, chunk.lines, sourceChunkKey(chunk.hash));

/** The lines of a chunk of `family` read under `hash` (checked: a chunk that does not hold what its key names is corrupt). */
export const decodeSourceChunk = (hash: string, family: string, item: Record<string, unknown> | undefined): string[] =>
  blockLines(hash, space(family), item, `source chunk ${hash}`);

/** The records of a version, decoded with `record`: the lines its layout names in the chunks read (by hash). */
export function decodeSource<S extends z.ZodMiniType>(
  version: string,
  family: string,
  layout: SourceLayout,
  lines: ReadonlyMap<string, readonly string[]>,
  record: S,
): z.output<S>[] {
  const what = `the ${family} records of ${version}`;
  const texts: string[] = [];
  const { chunks, runs } = layout;
  for (let r = 0; r < runs.length; r += 3) {
    const chunk = lines.get(chunks[runs[r]]);
    const [first, count] = [runs[r + 1], runs[r + 2]];
    if (!chunk || first + count > chunk.length)
      throw new CorruptDataError(`${what}: run ${r / 3} names lines its chunk does not hold`);
    texts.push(...chunk.slice(first, first + count));
  }
  const result = z.safeParse(
    z.array(record),
    texts.map((text) => parsed(text, what)),
  );
  if (!result.success) throw new CorruptDataError(`${what} do not match the ${family} schema`);
  return result.data;
}
