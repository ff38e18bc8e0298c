/** A family version's source records (docs/adr/0016-source-records-by-content.md): read, and planned against the served version's. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod/mini';
import { CorruptDataError } from '../platform/errors';
import { getByContent } from './batch-reader';
import { BODY } from './items/content';
import type { Manifest } from './items/manifest';
import { decodeSource, decodeSourceChunk, planSource, type SourceLayout } from './items/source-records';
import { sourceChunkKey } from './keys';

/** A version's records to write, and the served version's layout (`sameRecords`: none changed). */
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

  /** A version's records, decoded with `record`; a manifest that names none is corrupt (ADR 0024). */
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
   * A version's source layout and new chunks, planned against the served version's chunks. When one
   * of those does not decode, the records are cut as a first version's and those chunks are
   * `unreadable`: written again where named (a put replaces the corrupt item).
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
