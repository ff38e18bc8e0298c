/**
 * Writes of the served data (docs/data-model.md, "Versions"): a family version's manifest (the
 * items it owns and the blocks it names, so that it can be deleted without a scan), the document
 * blocks that no kept version has yet, its index segments and its source records; and the pointer
 * item that names the served version of each family. The pointer also holds the import lease (one
 * import at a time) and the versions replaced but not yet deleted.
 */

import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod/mini';
import { isConditionFailure } from '../platform/dynamodb';
import { CorruptDataError } from '../platform/errors';
import { getItems } from './batch-reader';
import { deleteItems, putItems } from './batch-writer';
import type { VersionContent } from './family-index';
import { BODY } from './items/content';
import { encodeBlock } from './items/document-block';
import { encodeIndex } from './items/index-segment';
import { decodeManifest, encodeManifest, type FigureIndex, type Manifest } from './items/manifest';
import { decodePointer, type ImportLease, type SnapshotPointer } from './items/pointer';
import {
  decodeLegacySource,
  decodeSource,
  decodeSourceChunk,
  encodeSourceChunk,
  planSource,
  type SourceLayout,
} from './items/source-records';
import {
  manifestPartition,
  pointerKey,
  refreshedKey,
  SOURCE_PREFIX,
  sharedItemKey,
  sourceChunkKey,
  sourceChunkName,
  sourcePartition,
} from './keys';
import { queryAll } from './query-all';

export type { FamilyState, ImportLease, RetiredVersion, SnapshotPointer } from './items/pointer';

/** Another import holds the lease: retry later. */
export class ImportBusyError extends Error {
  constructor(readonly until: number) {
    super(`another import is running (its lease ends at ${new Date(until).toISOString()}); retry later`);
    this.name = 'ImportBusyError';
  }
}

/**
 * The figure state of an earn or borrow version (docs/adr/0015-apy-figures.md): its index, every
 * chunk it names, and the chunks it made (written with its blocks, after its manifest).
 */
export interface VersionFigures {
  index: FigureIndex;
  hashes: readonly string[];
  chunks: readonly { hash: string; docs: string[] }[];
}

/** What writing a version did: the items it put (manifest, new blocks, index, new source chunks) and its index segments. */
export interface WrittenVersion {
  itemsWritten: number;
  segments: number;
  /** The shared items it names beside its blocks (its source chunks), stored by it or before. */
  shared: string[];
}

/**
 * The source records of a family version to write (items/source-records.ts): its records, and the
 * served version's layout, if it has one (a version written before sources were stored so has
 * none), to name its chunks for the records that did not change; `sameRecords` when they all did not.
 */
export interface VersionSource {
  family: string;
  records: readonly unknown[];
  served?: { layout: SourceLayout; sameRecords: boolean };
}

export interface WriterOptions {
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
  /** Awaited before each batch write or delete (an import holds its lease there). */
  beforeWrite?: () => Promise<void>;
}

export class SnapshotWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: WriterOptions = {},
  ) {}

  private get batch() {
    return {
      client: this.client,
      tableName: this.tableName,
      concurrency: this.options.concurrency,
      beforeBatch: this.options.beforeWrite,
    };
  }

  async readPointer(): Promise<SnapshotPointer | undefined> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: pointerKey(), ConsistentRead: true }),
    );
    return out.Item && decodePointer(out.Item);
  }

  /**
   * Take the import lease unless another import holds an unexpired one. The versions an earlier
   * holder was writing stay listed beside this holder's (`writing`): they are deleted by whoever
   * holds the lease next, even when this holder stops before it deletes them. Returns the pointer
   * as it was before.
   */
  async acquireLease(lease: ImportLease, now: number): Promise<SnapshotPointer | undefined> {
    const take = async (
      update: string,
      condition: string,
      names: Record<string, string>,
      values: Record<string, unknown>,
    ) => {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: pointerKey(),
          UpdateExpression: update,
          ConditionExpression: condition,
          ExpressionAttributeNames: { '#lease': 'lease', ...names },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_OLD',
        }),
      );
      return out.Attributes && decodePointer(out.Attributes);
    };
    try {
      try {
        // An expired lease: take it over, keeping its list.
        return await take(
          'SET #lease.#owner = :owner, #lease.#until = :until, #lease.#writing = list_append(#lease.#writing, :writing)',
          '#lease.#until < :now',
          { '#until': 'until', '#owner': 'owner', '#writing': 'writing' },
          { ':owner': lease.owner, ':until': lease.until, ':writing': lease.writing, ':now': now },
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return await take('SET #lease = :lease', 'attribute_not_exists(#lease)', {}, { ':lease': lease });
      }
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const current = await this.readPointer();
      throw new ImportBusyError(current?.lease?.until ?? now);
    }
  }

  /** Hold the lease until `until` (a long import renews it between steps); refused if it was taken over. */
  async renewLease(owner: string, until: number): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: pointerKey(),
        UpdateExpression: 'SET #lease.#until = :until',
        ConditionExpression: '#lease.#owner = :owner',
        ExpressionAttributeNames: { '#lease': 'lease', '#owner': 'owner', '#until': 'until' },
        ExpressionAttributeValues: { ':owner': owner, ':until': until },
      }),
    );
  }

  /** Record more versions the holder is about to write (when its plan changed under the lease). */
  async recordWriting(owner: string, writing: string[]): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: pointerKey(),
        UpdateExpression: 'SET #lease.#writing = list_append(#lease.#writing, :writing)',
        ConditionExpression: '#lease.#owner = :owner',
        ExpressionAttributeNames: { '#lease': 'lease', '#owner': 'owner', '#writing': 'writing' },
        ExpressionAttributeValues: { ':owner': owner, ':writing': writing },
      }),
    );
  }

  /**
   * End the lease without publishing (a failed import). The lease stays as expired, with what it
   * was writing, so the next import deletes those versions.
   */
  async releaseLease(owner: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: pointerKey(),
          UpdateExpression: 'SET #lease.#until = :ended',
          ConditionExpression: '#lease.#owner = :owner',
          ExpressionAttributeNames: { '#lease': 'lease', '#owner': 'owner', '#until': 'until' },
          ExpressionAttributeValues: { ':owner': owner, ':ended': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** Record that an import carried these dataset families at `at`, changed or not: one small write. */
  async markRefreshed(families: readonly string[], at: string): Promise<void> {
    if (families.length === 0) return;
    const names = Object.fromEntries(families.map((family, i) => [`#f${i}`, family]));
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: refreshedKey(),
        UpdateExpression: `SET ${Object.keys(names)
          .map((name) => `${name} = :at`)
          .join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  }

  /** Publish: one write of the pointer, which also ends the lease; refused if the lease was taken over. */
  async publish(owner: string, pointer: SnapshotPointer): Promise<void> {
    const { lease: _, ...item } = pointer;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...pointerKey(), ...item },
        ConditionExpression: '#lease.#owner = :owner',
        ExpressionAttributeNames: { '#lease': 'lease', '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      }),
    );
  }

  /**
   * Write a family version: its manifest first (so that even a partial version can be deleted),
   * then the blocks and source chunks that `stored` does not hold (named by versions that are
   * kept), and its index. Its source records name the served version's chunks for the records that
   * did not change (read first, unless none changed) and are written whole otherwise.
   */
  async writeVersion(
    version: string,
    projection: VersionContent,
    source: VersionSource,
    stored: ReadonlySet<string>,
    figures?: VersionFigures,
  ): Promise<WrittenVersion> {
    const index = encodeIndex(version, projection.index);
    const plan = await this.sourcePlan(source);
    const sourceNames = plan.layout.chunks.map(sourceChunkName);
    const manifest = encodeManifest(version, {
      keys: index.map(({ PK, SK }) => [PK, SK]),
      blocks: [...projection.blocks.map((b) => b.hash), ...(figures?.hashes ?? []), ...sourceNames],
      ...(figures ? { figures: figures.index } : {}),
      source: plan.layout,
    });
    const blocks = [...projection.blocks, ...(figures?.chunks ?? [])]
      .filter((b) => !stored.has(b.hash))
      .map((b) => encodeBlock(b.hash, b.docs));
    // Chunks a kept version already stored (the served version's, or a retained one's) are not written again.
    const newSources = plan.written
      .filter((c) => !stored.has(sourceChunkName(c.hash)) || plan.unreadable.has(c.hash))
      .map(encodeSourceChunk);
    await putItems(manifest, this.batch);
    await putItems([...blocks, ...index, ...newSources], { ...this.batch, onProgress: this.options.onProgress });
    return {
      itemsWritten: manifest.length + blocks.length + index.length + newSources.length,
      segments: index.length,
      shared: sourceNames,
    };
  }

  /** What a version holds (empty for a version that never wrote its manifest). */
  async readManifest(version: string): Promise<Manifest> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': manifestPartition(version) },
      ConsistentRead: true,
    });
    return decodeManifest(version, items);
  }

  /**
   * Delete a version: the items it owns, the blocks it names that `kept` does not (blocks named by
   * versions that stay), the manifest last. Returns the items deleted.
   */
  async deleteVersion(version: string, kept: ReadonlySet<string>): Promise<number> {
    const manifestItems = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': manifestPartition(version) },
      ConsistentRead: true,
    });
    const manifest = decodeManifest(version, manifestItems);
    const keys = [
      ...manifest.keys.map(([PK, SK]) => ({ PK, SK })),
      ...[...new Set(manifest.blocks)].filter((b) => !kept.has(b)).map((b) => ({ ...sharedItemKey(b) })),
    ];
    await deleteItems(keys, this.batch);
    await deleteItems(
      manifestItems.map(({ PK, SK }) => ({ PK, SK })),
      this.batch,
    );
    return keys.length + manifestItems.length;
  }

  /**
   * The source records of a family version, decoded with `record` (the dataset's schema of the
   * family): made of the chunks its manifest names, or for a version written before, the chunks
   * shared per records hash it names or those it held under its own key.
   */
  async readSource<S extends z.ZodMiniType>(version: string, family: string, record: S): Promise<z.output<S>[]> {
    const manifest = await this.readManifest(version);
    if (manifest.source)
      return decodeSource(
        version,
        family,
        manifest.source,
        await this.readSourceChunks(family, manifest.source.chunks),
        record,
      );
    const shared = manifest.blocks.filter((name) => name.startsWith(`${SOURCE_PREFIX}${family}#`)).map(sharedItemKey);
    const partition = shared[0]?.PK ?? sourcePartition(version, family);
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': partition },
      ConsistentRead: true,
    });
    if (items.length < shared.length)
      throw new CorruptDataError(
        `the ${family} records of ${version}: ${shared.length - items.length} chunk(s) missing`,
      );
    return decodeLegacySource(version, family, items, record);
  }

  /**
   * The source layout of a version and its new chunks: the served version's as it is for the same
   * records; else planned against the served version's chunks, read to compare. When one of those
   * does not decode, the records are cut as a first version's (comparing only saves writes) and
   * the served chunks are `unreadable`: written again where the version names them (a put replaces
   * the corrupt item).
   */
  private async sourcePlan({ family, records, served }: VersionSource) {
    const unreadable = new Set<string>();
    if (served?.sameRecords) return { layout: served.layout, written: [], unreadable };
    let compared: Parameters<typeof planSource>[2];
    try {
      compared = served && { layout: served.layout, lines: await this.readSourceChunks(family, served.layout.chunks) };
    } catch (error) {
      if (!(error instanceof CorruptDataError)) throw error;
      for (const hash of served!.layout.chunks) unreadable.add(hash);
    }
    return { ...planSource(family, records, compared), unreadable };
  }

  /**
   * The lines of source chunks of `family`, by hash, each checked against its hash. A chunk never
   * changes under its key, so an eventually consistent read that finds it is exact; one it does
   * not find yet (just written) is read again strongly consistent, and is corrupt if still missing.
   */
  private async readSourceChunks(family: string, hashes: readonly string[]): Promise<Map<string, string[]>> {
    const unique = [...new Set(hashes)];
    const keys = unique.map(sourceChunkKey);
    const read = {
      client: this.client,
      tableName: this.tableName,
      projection: ['PK', BODY],
      concurrency: this.options.concurrency,
    };
    const items = await getItems(keys, read);
    const found = new Set(items.map((item) => item.PK));
    const missing = keys.filter((key) => !found.has(key.PK));
    if (missing.length > 0) items.push(...(await getItems(missing, { ...read, consistent: true })));
    const byKey = new Map(items.map((item) => [item.PK, item]));
    return new Map(unique.map((hash, i) => [hash, decodeSourceChunk(hash, family, byKey.get(keys[i].PK))]));
  }
}
