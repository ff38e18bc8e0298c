/**
 * A family version's source records (docs/adr/0016-source-records-by-content.md): content-addressed
 * chunks (`SRC#<hash>`) named by its manifest, with the runs of their lines that make its records.
 * The import reads them (to render offers again, to check history) and plans a new version's
 * against the served version's, so that a refresh writes only the records that changed.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod/mini';
import { CorruptDataError } from '../platform/errors';
import { getByContent } from './batch-reader';
import { BODY } from './items/content';
import type { Manifest } from './items/manifest';
import { decodeSource, decodeSourceChunk, planSource, type SourceLayout } from './items/source-records';
import { sourceChunkKey } from './keys';

/**
 * The source records of a family version to write: its records, and the served version's layout,
 * if there is one, to name its chunks for the records that did not change; `sameRecords` when they
 * all did not.
 */
export interface VersionSource {
  family: string;
  records: readonly unknown[];
  served?: { layout: SourceLayout; sameRecords: boolean };
}

/** A version's source plan: its layout, the chunks it writes, and the served chunks that did not decode. */
export type SourcePlan = ReturnType<typeof planSource> & { unreadable: Set<string> };

export class SourceStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly concurrency?: number,
  ) {}

  /**
   * The source records of a version, decoded with `record` (the dataset's schema of the family):
   * made of the chunks its manifest names. Every version an import writes names them; a manifest
   * without (no writer produces one) is corrupt.
   */
  async records<S extends z.ZodMiniType>(
    version: string,
    family: string,
    manifest: Manifest,
    record: S,
  ): Promise<z.output<S>[]> {
    if (!manifest.source) throw new CorruptDataError(`the ${family} records of ${version}: its manifest names none`);
    const lines = await this.chunks(family, manifest.source.chunks);
    return decodeSource(version, family, manifest.source, lines, record);
  }

  /**
   * The source layout of a version and its new chunks: the served version's as it is for the same
   * records; else planned against the served version's chunks, read to compare. When one of those
   * does not decode, the records are cut as a first version's (comparing only saves writes) and
   * the served chunks are `unreadable`: written again where the version names them (a put replaces
   * the corrupt item).
   */
  async plan({ family, records, served }: VersionSource): Promise<SourcePlan> {
    const unreadable = new Set<string>();
    if (served?.sameRecords) return { layout: served.layout, written: [], unreadable };
    let compared: Parameters<typeof planSource>[2];
    try {
      compared = served && { layout: served.layout, lines: await this.chunks(family, served.layout.chunks) };
    } catch (error) {
      if (!(error instanceof CorruptDataError)) throw error;
      for (const hash of served!.layout.chunks) unreadable.add(hash);
    }
    return { ...planSource(family, records, compared), unreadable };
  }

  /** The lines of source chunks of `family`, by hash, each checked against it (a missing one is corrupt). */
  private async chunks(family: string, hashes: readonly string[]): Promise<Map<string, string[]>> {
    const unique = [...new Set(hashes)];
    const read = {
      client: this.client,
      tableName: this.tableName,
      projection: ['PK', BODY],
      concurrency: this.concurrency,
    };
    const items = await getByContent(unique.map(sourceChunkKey), read);
    return new Map(unique.map((hash) => [hash, decodeSourceChunk(hash, family, items.get(sourceChunkKey(hash).PK))]));
  }
}
