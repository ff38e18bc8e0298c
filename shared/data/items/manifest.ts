/**
 * A version's manifest (`V#<version>#MANIFEST` / `000000`…): the keys of the items it owns and
 * the blocks it names, so that it can be deleted without a scan. Read and written by
 * snapshot-writer.ts.
 */
import { CorruptDataError } from '../../platform/errors';
import { manifestKey } from '../keys';
import { BODY, body, chunked, gzip, type Item, parsed } from './content';

const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * What a version holds: the keys of the items it owns (index segments, source chunks, the
 * manifest's own chunks aside) and the blocks it names (shared with other versions), so the
 * version can be deleted without a scan and a block only when no kept version names it.
 */
export interface Manifest {
  keys: [string, string][];
  blocks: string[];
}

export function encodeManifest(version: string, manifest: Manifest): Item[] {
  const entries = [...manifest.keys.map((k) => JSON.stringify(k)), ...manifest.blocks.map((b) => JSON.stringify(b))];
  return chunked(entries).map((text, i) => ({ ...manifestKey(version, i), [BODY]: gzip(text) }));
}

export function decodeManifest(version: string, items: Record<string, unknown>[]): Manifest {
  const manifest: Manifest = { keys: [], blocks: [] };
  for (const item of items) {
    // Versions of the positioned layout (before ADR 0009) list their keys as text and name no blocks.
    const text = typeof item.keys === 'string' ? item.keys : body(item, `the manifest of ${version}`);
    const entries = parsed(text, `the manifest of ${version}`);
    if (!Array.isArray(entries)) throw new CorruptDataError(`the manifest of ${version} is not a list`);
    for (const entry of entries) {
      if (typeof entry === 'string') manifest.blocks.push(entry);
      else if (Array.isArray(entry) && entry.length === 2 && isString(entry[0]) && isString(entry[1]))
        manifest.keys.push([entry[0], entry[1]]);
      else throw new CorruptDataError(`the manifest of ${version} holds ${JSON.stringify(entry)}`);
    }
  }
  return manifest;
}
