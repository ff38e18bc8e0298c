/**
 * A version's manifest (`V#<version>#MANIFEST` / `000000`…): the keys of the items it owns and the
 * blocks it names, so that it can be deleted without a scan, with its figure state and its source
 * layout. One JSON object, gzip'd and cut into segments like an index. Read and written by
 * version-writer.ts.
 */
import * as z from 'zod/mini';
import { CorruptDataError } from '../../platform/errors';
import { manifestKey, sourceChunkName } from '../keys';
import { type Item, joinedBody, parsed, segmented } from './content';

const Hashes = z.array(z.string());
/** Chunks by the start (epoch ms, as a string) of their UTC hour or day. */
const ChunksByTime = z.record(z.string().check(z.regex(/^-?\d+$/)), Hashes);

const ManifestCodec = z.object({
  keys: z.array(z.tuple([z.string(), z.string()])),
  /** Every block it names; stored without its figure and source chunks, which are listed once, below. */
  blocks: Hashes,
  /** The APY figure state of an earn or borrow version (docs/adr/0015-apy-figures.md). */
  figures: z.optional(z.object({ hours: ChunksByTime, days: ChunksByTime })),
  /** Its source records (items/source-records.ts `SourceLayout`). */
  source: z.optional(
    z.object({
      chunks: Hashes,
      runs: z.array(z.int().check(z.minimum(0))).check(z.refine((runs) => runs.length % 3 === 0)),
    }),
  ),
});

export type Manifest = z.infer<typeof ManifestCodec>;

/** The manifest's stored form, derived from its codec: part of a version's layout (shared/import/plan.ts `LAYOUT`). */
export const MANIFEST_LAYOUT = JSON.stringify(z.toJSONSchema(ManifestCodec));
export type FigureIndex = NonNullable<Manifest['figures']>;

/** The figure and source chunks a manifest names, by block name. */
const chunksOf = ({ figures, source }: Manifest): string[] => [
  ...Object.values(figures?.hours ?? {}).flat(),
  ...Object.values(figures?.days ?? {}).flat(),
  ...(source?.chunks.map(sourceChunkName) ?? []),
];

export function encodeManifest(version: string, manifest: Manifest): Item[] {
  const chunks = new Set(chunksOf(manifest));
  const stored = { ...manifest, blocks: manifest.blocks.filter((b) => !chunks.has(b)) };
  return segmented(stored, (segment) => manifestKey(version, segment));
}

/** A version's manifest from its items (none: a version that never wrote it, which names nothing). */
export function decodeManifest(version: string, items: Record<string, unknown>[]): Manifest {
  if (items.length === 0) return { keys: [], blocks: [] };
  const what = `the manifest of ${version}`;
  const result = ManifestCodec.safeParse(parsed(joinedBody(items, what, 'segment'), what));
  if (!result.success) throw new CorruptDataError(`${what} is malformed`);
  return { ...result.data, blocks: [...result.data.blocks, ...chunksOf(result.data)] };
}
