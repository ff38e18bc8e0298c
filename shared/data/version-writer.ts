/**
 * Writes of a family version (docs/data-model.md, "Versions and imports"): its manifest first, then
 * the blocks and chunks no kept version has, its index and its delta; its reads, and its deletion.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod/mini';
import { deleteItems, putItems } from './batch-writer';
import type { IndexData, VersionContent } from './family-index';
import type { IndexDeltaData } from './index-delta';
import { type IndexDeltaRef, type IndexRef, readIndex } from './index-store';
import { BODY, type Item, segmentsHash } from './items/content';
import { encodeBlock } from './items/document-block';
import { encodeIndexDelta } from './items/index-delta';
import { encodeIndex } from './items/index-segment';
import { decodeManifest, encodeManifest, type FigureIndex, type Manifest } from './items/manifest';
import { encodeSourceChunk } from './items/source-records';
import { manifestPartition, sharedItemKey, sourceChunkName } from './keys';
import { queryAll } from './query-all';
import { type SourcePlan, SourceStore, type VersionSource } from './source-store';

/** An earn or borrow version's figure state (docs/adr/0015-apy-figures.md): every chunk it names, those it made. */
export interface VersionFigures {
  index: FigureIndex;
  hashes: readonly string[];
  chunks: readonly { hash: string; docs: string[] }[];
}

/** The largest share of its index's stored bytes a delta may take (docs/adr/0017-index-deltas.md). */
const DELTA_MAX_SHARE = 1 / 4;

const storedBytes = (items: readonly Item[]) => items.reduce((sum, item) => sum + (item[BODY] as Uint8Array).length, 0);

export interface VersionContentToWrite {
  projection: VersionContent;
  source: VersionSource;
  /** The blocks and chunks kept versions name (stored: not written again). */
  stored: ReadonlySet<string>;
  figures?: VersionFigures;
  /** Its index's delta against the version it replaces, checked to apply exactly. */
  delta?: IndexDeltaData;
}

/** What writing a version did: the items it put, and where its index lies (for the pointer). */
export interface WrittenVersion extends Required<Pick<IndexRef, 'segments' | 'indexHash'>> {
  itemsWritten: number;
  delta?: IndexDeltaRef;
  /** The source chunks it names (shared with other versions), stored by it or before. */
  shared: string[];
}

export interface WriterOptions {
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
  /** Awaited before each batch write or delete (an import holds its lease there). */
  beforeWrite?: () => Promise<void>;
}

export class VersionWriter {
  private readonly sources: SourceStore;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: WriterOptions = {},
  ) {
    this.sources = new SourceStore(client, tableName, options.concurrency);
  }

  private get batch() {
    const { client, tableName, options } = this;
    return { client, tableName, concurrency: options.concurrency, beforeBatch: options.beforeWrite };
  }

  /** Write a version: its manifest first (a partial version can be deleted), then what `stored` does not hold. */
  async write(version: string, content: VersionContentToWrite): Promise<WrittenVersion> {
    const { projection, stored, figures } = content;
    const index = encodeIndex(version, projection.index);
    const encodedDelta = content.delta ? encodeIndexDelta(version, content.delta) : [];
    const delta = storedBytes(encodedDelta) <= storedBytes(index) * DELTA_MAX_SHARE ? encodedDelta : [];
    const source = await this.sources.plan(content.source);
    const sourceNames = source.layout.chunks.map(sourceChunkName);
    const manifest = encodeManifest(version, {
      keys: [...index, ...delta].map(({ PK, SK }) => [PK, SK]),
      blocks: [...new Set([...projection.blocks.map((b) => b.hash), ...(figures?.hashes ?? [])]), ...sourceNames],
      ...(figures ? { figures: figures.index } : {}),
      source: source.layout,
    });
    const blocks = [...projection.blocks, ...(figures?.chunks ?? [])]
      .filter((b) => !stored.has(b.hash))
      .map((b) => encodeBlock(b.hash, b.docs));
    const chunks = newSourceChunks(source, stored);
    await putItems(manifest, this.batch);
    await putItems([...blocks, ...index, ...delta, ...chunks], { ...this.batch, onProgress: this.options.onProgress });
    return {
      itemsWritten: manifest.length + blocks.length + index.length + delta.length + chunks.length,
      segments: index.length,
      indexHash: segmentsHash(index),
      ...(content.delta && delta.length > 0
        ? { delta: { base: content.delta.base, segments: delta.length, hash: segmentsHash(delta) } }
        : {}),
      shared: sourceNames,
    };
  }

  /** The index of a served version as stored: the import builds the next version's delta against it. */
  async readIndex(version: string, ref: IndexRef): Promise<IndexData> {
    return (await readIndex(this.client, this.tableName, version, ref)).data;
  }

  /** What a version holds (empty for a version that never wrote its manifest). */
  async readManifest(version: string): Promise<Manifest> {
    return decodeManifest(version, await this.manifestItems(version));
  }

  private manifestItems(version: string) {
    return queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': manifestPartition(version) },
      ConsistentRead: true,
    });
  }

  /** The source records of a version, decoded with `record`, the dataset's schema of the family. */
  async readSource<S extends z.ZodMiniType>(version: string, family: string, record: S): Promise<z.output<S>[]> {
    return this.sources.records(version, family, await this.readManifest(version), record);
  }

  /** Delete a version: its items, the blocks it names that `kept` does not, its manifest last; the items deleted. */
  async deleteVersion(version: string, kept: ReadonlySet<string>): Promise<number> {
    const items = await this.manifestItems(version);
    const manifest = decodeManifest(version, items);
    const keys = [
      ...manifest.keys.map(([PK, SK]) => ({ PK, SK })),
      ...[...new Set(manifest.blocks)].filter((b) => !kept.has(b)).map((b) => ({ ...sharedItemKey(b) })),
    ];
    await deleteItems(keys, this.batch);
    await deleteItems(
      items.map(({ PK, SK }) => ({ PK, SK })),
      this.batch,
    );
    return keys.length + items.length;
  }
}

/** The source chunks a version writes: those no kept version stored already, and any stored one that did not decode. */
const newSourceChunks = (source: SourcePlan, stored: ReadonlySet<string>): Item[] =>
  source.written
    .filter((c) => !stored.has(sourceChunkName(c.hash)) || source.unreadable.has(c.hash))
    .map(encodeSourceChunk);
