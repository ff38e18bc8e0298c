/**
 * Writes of the served data (docs/data-model.md, "Versions"): a family version's items, preceded by
 * its manifest (the keys of every item, so the version can be deleted without a scan), its source
 * records, and the pointer item that names the served version of each family. The pointer also
 * holds the import lease (one import at a time) and the versions replaced but not yet deleted.
 */
import { isConditionFailure } from '../dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { manifestKey, manifestPartition, pointerKey, sourcePartition, type Key } from '../keys';
import { deleteItems, putItems } from './batch-writer';
import { queryAll } from './query-all';

/** The served state of one dataset family. History families have no version. */
export interface FamilyState {
  version?: string;
  /** Hash of the family's records (offers: before their platform references are resolved). */
  hash?: string;
  /** Digest of the platform references an offers version rendered. */
  refs?: string;
  /** Records in the file that published it (history: observations in the last file). */
  count: number;
  publishedAt: string;
}

/** A version replaced at `at`: readers may still name it until their pointer cache expires. */
export interface RetiredVersion {
  family: string;
  version: string;
  at: string;
}

export interface ImportLease {
  owner: string;
  /** Epoch ms after which another import may take the lease over. */
  until: number;
  /** The versions the holder writes: never published if it stops, so the next holder deletes them. */
  writing: string[];
}

export interface SnapshotPointer {
  families: Record<string, FamilyState | undefined>;
  retired: RetiredVersion[];
  importedAt?: string;
  lease?: ImportLease;
}

/** Another import holds the lease: retry later. */
export class ImportBusyError extends Error {
  constructor(readonly until: number) {
    super(`another import is running (its lease ends at ${new Date(until).toISOString()}); retry later`);
    this.name = 'ImportBusyError';
  }
}

const MANIFEST_CHUNK_BYTES = 300_000;

type Item = Record<string, unknown> & Key;

export interface WriterOptions {
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

export class SnapshotWriter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: WriterOptions = {},
  ) {}

  private get batch() {
    return { client: this.client, tableName: this.tableName, concurrency: this.options.concurrency };
  }

  async readPointer(): Promise<SnapshotPointer | undefined> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: pointerKey(), ConsistentRead: true }));
    return out.Item && toPointer(out.Item);
  }

  /**
   * Take the import lease until `now + durationMs`, unless another import holds it. Returns the
   * pointer as it was before (with the lease of an import that stopped, if any).
   */
  async acquireLease(lease: ImportLease, now: number): Promise<SnapshotPointer | undefined> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: pointerKey(),
          UpdateExpression: 'SET #lease = :lease',
          ConditionExpression: 'attribute_not_exists(#lease) OR #lease.#until < :now',
          ExpressionAttributeNames: { '#lease': 'lease', '#until': 'until' },
          ExpressionAttributeValues: { ':lease': lease, ':now': now },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return out.Attributes && toPointer(out.Attributes);
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const current = await this.readPointer();
      throw new ImportBusyError(current?.lease?.until ?? now);
    }
  }

  /** Record the versions the holder is about to write (when its plan changed under the lease). */
  async recordWriting(owner: string, writing: string[]): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: pointerKey(),
        UpdateExpression: 'SET #lease.#writing = :writing',
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

  /** Write a family version: its manifest first (so even a partial version can be deleted), then its items. */
  async writeVersion(version: string, items: Item[]): Promise<number> {
    const manifest: Item[] = [];
    let chunk: string[] = [];
    let size = 0;
    const flush = () => {
      manifest.push({ ...manifestKey(version, manifest.length), keys: `[${chunk.join(',')}]` });
      chunk = [];
      size = 0;
    };
    for (const { PK, SK } of items) {
      const json = JSON.stringify([PK, SK]);
      if (size + json.length > MANIFEST_CHUNK_BYTES && chunk.length > 0) flush();
      chunk.push(json);
      size += json.length + 1;
    }
    if (chunk.length > 0 || manifest.length === 0) flush();
    await putItems(manifest, this.batch);
    await putItems(items, { ...this.batch, onProgress: this.options.onProgress });
    return manifest.length + items.length;
  }

  /** Delete every item of a version (from its manifest), the manifest last. Returns the items deleted. */
  async deleteVersion(version: string): Promise<number> {
    const manifest = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': manifestPartition(version) },
      ConsistentRead: true,
    });
    const keys = manifest.flatMap((m) => (JSON.parse(m.keys as string) as [string, string][]).map(([PK, SK]) => ({ PK, SK })));
    await deleteItems(keys, this.batch);
    await deleteItems(manifest.map(({ PK, SK }) => ({ PK, SK })), this.batch);
    return keys.length + manifest.length;
  }

  /** The source records of a family version. */
  async readSource(version: string, family: string): Promise<unknown[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': sourcePartition(version, family) },
      ConsistentRead: true,
    });
    return items.flatMap((item) => JSON.parse(item.records as string) as unknown[]);
  }
}

function toPointer(item: Record<string, unknown>): SnapshotPointer {
  return {
    families: (item.families as SnapshotPointer['families'] | undefined) ?? {},
    retired: (item.retired as RetiredVersion[] | undefined) ?? [],
    importedAt: item.importedAt as string | undefined,
    lease: item.lease as ImportLease | undefined,
  };
}
