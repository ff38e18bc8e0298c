/**
 * A version's manifest (`V#<version>#MANIFEST` / `000000`…): the keys of the items it owns and
 * the blocks it names, so that it can be deleted without a scan. Read and written by
 * version-writer.ts.
 */
import { CorruptDataError } from '../../platform/errors';
import { manifestKey, sourceChunkName } from '../keys';
import { BODY, body, chunked, gzip, type Item, parsed } from './content';
import type { SourceLayout } from './source-records';

const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * The APY figure state of an earn or borrow version (docs/adr/0015-apy-figures.md): the chunks
 * (items/figure-chunk.ts) of each UTC hour's observations (`hours`) and of each UTC day's last
 * observation per offer (`days`), by the hour's or day's start (epoch ms, as a string).
 */
export interface FigureIndex {
  hours: Record<string, string[]>;
  days: Record<string, string[]>;
}

/**
 * What a version holds: the keys of the items it owns (its index segments and its delta's; the
 * manifest's own chunks aside) and the blocks it names (shared with other versions: its document
 * blocks, then its figure chunks, then its source chunks by `SRC#` name), so the version can be deleted without a scan and a block only when no
 * kept version names it; its figure state, if it has one; and how its source records are made of
 * its source chunks (items/source-records.ts), if they are stored so.
 */
export interface Manifest {
  keys: [string, string][];
  blocks: string[];
  figures?: FigureIndex;
  source?: SourceLayout;
}

/** Chunk hashes, or run numbers, an entry of the source layout holds at most (an entry is one JSON text: kept well under a chunk). */
const SOURCE_ENTRY_SIZE = 3_000;

/** A source layout as manifest entries: its chunks (at least one entry, even for no records), then its runs. */
function sourceEntries({ chunks, runs }: SourceLayout): Record<string, unknown>[] {
  const parts = <T>(list: T[]) =>
    Array.from({ length: Math.ceil(list.length / SOURCE_ENTRY_SIZE) }, (_, i) =>
      list.slice(i * SOURCE_ENTRY_SIZE, (i + 1) * SOURCE_ENTRY_SIZE),
    );
  return [
    ...(chunks.length === 0 ? [[]] : parts(chunks)).map((source) => ({ source })),
    ...parts(runs).map((r) => ({ runs: r })),
  ];
}

/** The figure chunks of a manifest, in the order they are stored (hours, then days). */
const figureEntries = (figures: FigureIndex) => [
  ...Object.entries(figures.hours).map(([ms, chunks]) => ({ hour: Number(ms), chunks })),
  ...Object.entries(figures.days).map(([ms, chunks]) => ({ day: Number(ms), chunks })),
];

export function encodeManifest(version: string, manifest: Manifest): Item[] {
  const entries = manifest.figures ? figureEntries(manifest.figures) : [];
  // A figure or source chunk is stored once, in its entry; the decoder lists it among the blocks again.
  const inEntries = new Set([
    ...entries.flatMap((e) => e.chunks),
    ...(manifest.source?.chunks.map(sourceChunkName) ?? []),
  ]);
  const texts = [
    ...manifest.keys.map((k) => JSON.stringify(k)),
    ...manifest.blocks.filter((b) => !inEntries.has(b)).map((b) => JSON.stringify(b)),
    ...entries.map((e) => JSON.stringify(e)),
    ...(manifest.source ? sourceEntries(manifest.source) : []).map((e) => JSON.stringify(e)),
  ];
  return chunked(texts).map((text, i) => ({ ...manifestKey(version, i), [BODY]: gzip(text) }));
}

const isFigureEntry = (entry: unknown): entry is { hour?: number; day?: number; chunks: string[] } => {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return false;
  const { hour, day, chunks, ...rest } = entry as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    (hour === undefined) !== (day === undefined) &&
    Number.isSafeInteger(hour ?? day) &&
    Array.isArray(chunks) &&
    chunks.every(isString)
  );
};

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** An entry `{ [name]: [...] }` whose every element passes `is`: its list, else undefined. */
function listEntry<T>(entry: unknown, name: string, is: (v: unknown) => v is T): T[] | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || Object.keys(entry).length !== 1)
    return undefined;
  const value = (entry as Record<string, unknown>)[name];
  return Array.isArray(value) && value.every(is) ? value : undefined;
}

export function decodeManifest(version: string, items: Record<string, unknown>[]): Manifest {
  const manifest: Manifest = { keys: [], blocks: [] };
  const figureChunks: string[] = [];
  const source = () => (manifest.source ??= { chunks: [], runs: [] });
  for (const item of items) {
    const text = body(item, `the manifest of ${version}`);
    const entries = parsed(text, `the manifest of ${version}`);
    if (!Array.isArray(entries)) throw new CorruptDataError(`the manifest of ${version} is not a list`);
    for (const entry of entries) {
      if (typeof entry === 'string') manifest.blocks.push(entry);
      else if (Array.isArray(entry) && entry.length === 2 && isString(entry[0]) && isString(entry[1]))
        manifest.keys.push([entry[0], entry[1]]);
      else if (isFigureEntry(entry)) {
        manifest.figures ??= { hours: {}, days: {} };
        const [times, ms] =
          entry.hour !== undefined ? [manifest.figures.hours, entry.hour] : [manifest.figures.days, entry.day!];
        times[String(ms)] = entry.chunks;
        figureChunks.push(...entry.chunks);
      } else {
        const chunks = listEntry(entry, 'source', isString);
        const runs = listEntry(entry, 'runs', isCount);
        if (chunks) source().chunks.push(...chunks);
        else if (runs) source().runs.push(...runs);
        else throw new CorruptDataError(`the manifest of ${version} holds ${JSON.stringify(entry)}`);
      }
    }
  }
  manifest.blocks.push(...figureChunks);
  if (manifest.source) {
    if (manifest.source.runs.length % 3 !== 0)
      throw new CorruptDataError(`the manifest of ${version} holds source runs that are not triples`);
    manifest.blocks.push(...manifest.source.chunks.map(sourceChunkName));
  }
  return manifest;
}
