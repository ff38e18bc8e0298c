/**
 * Writes of the served data (docs/data-model.md, "Versions"): a family version's manifest (the
 * items it owns and the blocks it names, so that it can be deleted without a scan), the document
 * blocks that no kept version has yet, its index (a base of its own, or a delta against the base of
 * the version it replaces: docs/adr/0018-index-bases.md) and its source records; and the pointer
 * item that names the served version of each family. The pointer also holds the import lease (one
 * import at a time) and the versions replaced but not yet deleted.
 */

import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod/mini';
import { isConditionFailure } from '../platform/dynamodb';
import { CorruptDataError, MissingItemError } from '../platform/errors';
import { finished } from '../platform/steps';
import { getItems } from './batch-reader';
import { deleteItems, putItems } from './batch-writer';
import type { IndexData, VersionContent } from './family-index';
import type { IndexDeltaData } from './index-delta';
import type { IndexDeltaRef, IndexRef } from './index-store';
import { BODY, checkedSegments, type Item, segmentsHash } from './items/content';
import { encodeBlock } from './items/document-block';
import { appliedIndexDelta, encodeIndexDelta } from './items/index-delta';
import { decodeIndex, encodeIndexBase } from './items/index-segment';
import {
  type BaseList,
  decodeBaseList,
  decodeManifest,
  encodeBaseList,
  encodeManifest,
  type FigureIndex,
  type Manifest,
} from './items/manifest';
import { decodePointer, type ImportLease, type SnapshotPointer } from './items/pointer';
import {
  decodeSource,
  decodeSourceChunk,
  encodeSourceChunk,
  planSource,
  type SourceLayout,
} from './items/source-records';
import {
  baseListKey,
  baseListName,
  indexBaseKey,
  indexBaseName,
  indexDeltaKey,
  indexSegmentKey,
  type Key,
  manifestPartition,
  pointerKey,
  refreshedKey,
  sharedItemKey,
  sourceChunkKey,
  sourceChunkName,
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

/**
 * The largest share of its index's stored bytes a delta may take to be written beside it or
 * instead of it (docs/adr/0017-index-deltas.md, docs/adr/0018-index-bases.md): past it, an instance
 * reads little less than the whole index, and a version stored as its base and such a delta costs
 * nearly the index's write units on every refresh, and the base stays stored for it.
 */
const DELTA_MAX_SHARE = 1 / 4;

/** The figure chunks a figure state names. */
const figureChunks = (figures: FigureIndex | undefined): string[] =>
  figures ? [...Object.values(figures.hours), ...Object.values(figures.days)].flat() : [];

/** Do two figure states name the same chunks for the same hours and days (none on both sides included)? */
const sameFigures = (a: FigureIndex | undefined, b: FigureIndex | undefined): boolean =>
  JSON.stringify(a && [Object.entries(a.hours).sort(), Object.entries(a.days).sort()]) ===
  JSON.stringify(b && [Object.entries(b.hours).sort(), Object.entries(b.days).sort()]);

const storedBytes = (items: readonly Item[]) => items.reduce((sum, item) => sum + (item[BODY] as Uint8Array).length, 0);

/**
 * The deltas an import built for a new offer version's index (docs/adr/0018-index-bases.md), each
 * checked to apply exactly (importer.ts): against the index base of the version it replaces, and
 * against that version itself. Empty for a first version, a catalog family, or a replaced version
 * whose index cannot be read whole.
 */
export interface IndexPlan {
  /** A delta against base `base` (a version's whole index stored in `segments` shared segments). */
  onBase?: { base: string; segments: number; indexHash?: string; delta: IndexDeltaData };
  /** A delta against the version it replaces, for the instances that hold that version's index. */
  step?: IndexDeltaData;
  /**
   * The content hash a kept version's pointer entry names for this version's base, when its
   * segments are stored already (a version written again): they are not written again, so the hash
   * is theirs, not this import's encoding's.
   */
  storedIndexHash?: string;
}

/** What writing a version did: the items it put, and where its index lies (the pointer names it: index-store.ts `IndexRef`). */
export interface WrittenVersion extends Required<Pick<IndexRef, 'segments' | 'base'>> {
  /** The content hash of its whole index's segments (its own base's, or the base's it is built on, as named). */
  indexHash?: string;
  itemsWritten: number;
  delta?: IndexDeltaRef;
  step?: IndexDeltaRef;
  /** The shared items it names beside its blocks (its source chunks and its index base's segments), stored by it or before. */
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
  /** The lists of index bases read (items/manifest.ts `BaseList`): never changed once written. */
  private readonly lists = new Map<string, Promise<BaseList>>();

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
   * kept), and its index: a delta against the base of the version it replaces when the plan has
   * one of at most DELTA_MAX_SHARE of the index, else the whole index as a base of its own, and
   * beside either a delta against the version it replaces (when the plan has one that small, and
   * it is not the first). Its source records name the served version's chunks for the records that
   * did not change (read first, unless none changed) and are written whole otherwise.
   */
  async writeVersion(
    version: string,
    projection: VersionContent,
    source: VersionSource,
    stored: ReadonlySet<string>,
    figures?: VersionFigures,
    plan: IndexPlan = {},
  ): Promise<WrittenVersion> {
    const whole = encodeIndexBase(version, projection.index);
    const limit = storedBytes(whole) * DELTA_MAX_SHARE;
    const small = (items: Item[]) => (storedBytes(items) <= limit ? items : []);
    // A version written again (its identity names its content) over its own base is that base.
    const onBase =
      plan.onBase && plan.onBase.base !== version ? small(encodeIndexDelta(version, plan.onBase.delta)) : undefined;
    const based = plan.onBase && onBase && onBase.length > 0 ? { ...plan.onBase, items: onBase } : undefined;
    // Beside a base's delta, the delta against the replaced version only when that is not the base.
    const step =
      plan.step && plan.step.base !== based?.base
        ? small(encodeIndexDelta(version, plan.step, based ? 'STEP' : 'DELTA'))
        : [];
    const baseNames = Array.from({ length: based?.segments ?? whole.length }, (_, i) =>
      indexBaseName(based?.base ?? version, i),
    );
    const ownIndex = based ? [] : whole.filter((_, i) => !stored.has(baseNames[i]));
    // Segments stored before are kept as they are: their hash is the one named for them, if any.
    const ownHash = ownIndex.length === whole.length ? segmentsHash(whole) : plan.storedIndexHash;
    const base = based ?? {
      base: version,
      segments: whole.length,
      ...(ownHash ? { indexHash: ownHash } : {}),
      items: [],
    };
    const deltas = [...base.items, ...step];
    const records = await this.sourcePlan(source);
    const sourceNames = records.layout.chunks.map(sourceChunkName);
    // Its blocks and figure state: its base's list (written with a base), and what differs from it.
    const docs = projection.blocks.map((b) => b.hash);
    const list: BaseList = based
      ? await this.baseList(based.base)
      : { blocks: docs, ...(figures ? { figures: figures.index } : {}) };
    const ownList = based || stored.has(baseListName(version)) ? [] : [encodeBaseList(version, list)];
    const sharedFigures = sameFigures(figures?.index, list.figures);
    const listed = new Set([...list.blocks, ...(sharedFigures ? figureChunks(list.figures) : [])]);
    const named = new Set([...docs, ...(figures?.hashes ?? [])]);
    const manifest = encodeManifest(version, {
      keys: deltas.map(({ PK, SK }) => [PK, SK]),
      blocks: [...[...named].filter((b) => !listed.has(b)), ...baseNames, ...sourceNames],
      ...(figures && !sharedFigures ? { figures: figures.index } : {}),
      source: records.layout,
      list: { base: base.base, figures: sharedFigures, unnamed: list.blocks.filter((b) => !named.has(b)) },
    });
    const blocks = [...projection.blocks, ...(figures?.chunks ?? [])]
      .filter((b) => !stored.has(b.hash))
      .map((b) => encodeBlock(b.hash, b.docs));
    // Chunks a kept version already stored (the served version's, or a retained one's) are not written again.
    const newSources = records.written
      .filter((c) => !stored.has(sourceChunkName(c.hash)) || records.unreadable.has(c.hash))
      .map(encodeSourceChunk);
    await putItems([...manifest, ...ownList], this.batch);
    await putItems([...blocks, ...ownIndex, ...deltas, ...newSources], {
      ...this.batch,
      onProgress: this.options.onProgress,
    });
    const ref = (items: Item[], of: string | undefined) =>
      of !== undefined && items.length > 0
        ? { base: of, segments: items.length, hash: segmentsHash(items) }
        : undefined;
    const delta = based ? ref(base.items, base.base) : ref(step, plan.step?.base);
    const stepRef = based ? ref(step, plan.step?.base) : undefined;
    return {
      itemsWritten:
        manifest.length + ownList.length + blocks.length + ownIndex.length + deltas.length + newSources.length,
      segments: base.segments,
      base: base.base,
      ...(base.indexHash ? { indexHash: base.indexHash } : {}),
      ...(delta ? { delta } : {}),
      ...(stepRef ? { step: stepRef } : {}),
      shared: [...baseNames, baseListName(base.base), ...sourceNames],
    };
  }

  /**
   * The index of a served version as stored, and the whole index of its base when it has one
   * (versions written before ADR 0018 have none: their index is their own, deleted with them).
   * An import builds the next version's deltas against them.
   */
  async readIndex(version: string, ref: IndexRef): Promise<{ index: IndexData; base?: IndexData }> {
    const read = (count: number, key: (segment: number) => Key) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          this.client
            .send(new GetCommand({ TableName: this.tableName, Key: key(i), ConsistentRead: true }))
            .then((out) => out.Item),
        ),
      );
    const what = `the index of version ${version}`;
    if (ref.base === undefined)
      return { index: decodeIndex(version, await read(ref.segments, (i) => indexSegmentKey(version, i))).data };
    const baseItems = await read(ref.segments, (i) => indexBaseKey(ref.base!, i));
    const base = decodeIndex(ref.base, checkedSegments(baseItems, ref.indexHash, what)).data;
    if (ref.base === version) return { index: base, base };
    if (base.kind !== 'offers' || ref.delta?.base !== ref.base)
      throw new CorruptDataError(`${what}: its base ${ref.base} has no delta`);
    const items = checkedSegments(
      await read(ref.delta.segments, (i) => indexDeltaKey(version, i)),
      ref.delta.hash,
      `the index delta of version ${version}`,
    );
    return { index: finished(appliedIndexDelta(version, ref.base, base, items)), base };
  }

  /**
   * What a version holds (empty for a version that never wrote its manifest), with what it names
   * from its index base's list.
   */
  async readManifest(version: string): Promise<Manifest> {
    return (await this.manifestOf(version, false)).manifest;
  }

  /**
   * A version's manifest items and what they name. `lenient`: a base list that is missing names
   * nothing (a version being deleted whose import stopped before it wrote the list beside its
   * manifest: it wrote nothing after them).
   */
  private async manifestOf(version: string, lenient: boolean) {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': manifestPartition(version) },
      ConsistentRead: true,
    });
    const manifest = decodeManifest(version, items);
    if (!manifest.list) return { items, manifest };
    let list: BaseList;
    try {
      list = await this.baseList(manifest.list.base);
    } catch (error) {
      if (!(lenient && error instanceof MissingItemError)) throw error;
      list = { blocks: [] };
    }
    const unnamed = new Set(manifest.list.unnamed);
    manifest.blocks.push(...list.blocks.filter((b) => !unnamed.has(b)));
    if (manifest.list.figures && list.figures) {
      manifest.figures = list.figures;
      manifest.blocks.push(...figureChunks(list.figures));
    }
    return { items, manifest };
  }

  /** The list of index base `version` (an item that never changes: read once per writer). */
  private baseList(version: string): Promise<BaseList> {
    let list = this.lists.get(version);
    if (!list) {
      list = this.client
        .send(new GetCommand({ TableName: this.tableName, Key: baseListKey(version), ConsistentRead: true }))
        .then((out) => decodeBaseList(version, out.Item));
      list.catch(() => this.lists.delete(version));
      this.lists.set(version, list);
    }
    return list;
  }

  /**
   * Delete a version: the items it owns, the blocks it names that `kept` does not (blocks named by
   * versions that stay), the manifest last. Returns the items deleted. A version whose import
   * stopped before its manifest was written may have written its base's list (written beside the
   * manifest): deleted too, unless kept.
   */
  async deleteVersion(version: string, kept: ReadonlySet<string>): Promise<number> {
    const { items: manifestItems, manifest } = await this.manifestOf(version, true);
    const names = manifestItems.length > 0 ? manifest.blocks : [baseListName(version)];
    const keys = [
      ...manifest.keys.map(([PK, SK]) => ({ PK, SK })),
      ...[...new Set(names)].filter((b) => !kept.has(b)).map((b) => ({ ...sharedItemKey(b) })),
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
   * family): made of the chunks its manifest names. Every version an import writes names them; a
   * manifest without (no writer produces one) is corrupt.
   */
  async readSource<S extends z.ZodMiniType>(version: string, family: string, record: S): Promise<z.output<S>[]> {
    const manifest = await this.readManifest(version);
    if (!manifest.source) throw new CorruptDataError(`the ${family} records of ${version}: its manifest names none`);
    const lines = await this.readSourceChunks(family, manifest.source.chunks);
    return decodeSource(version, family, manifest.source, lines, record);
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
