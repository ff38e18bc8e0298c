/**
 * The floor of a request: the raw DynamoDB reads that return exactly the items of its answer,
 * without the service around it (no quota, no index work, no middleware): for a list or a detail,
 * one BatchGetItem round of the document blocks that hold the answer's documents (keys the
 * bench finds in the version's index, as the service does); for history, the one Query of its
 * series. The latency model's floor of an authenticated request adds one raw conditional counter write.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getItems } from '../../shared/data/batch-reader';
import type { CatalogIndex, FamilyIndex, OfferIndex } from '../../shared/data/family-index';
import { IndexStore } from '../../shared/data/index-store';
import {
  type CatalogFamily,
  documentBlockKey,
  type Key,
  type OfferFamily,
  QUOTA_ATTRIBUTES,
  quotaKey,
  type VersionedFamily,
} from '../../shared/data/keys';
import { PointerStore } from '../../shared/data/pointer-store';
import { queryAll } from '../../shared/data/query-all';
import { servedVersions } from '../../shared/data/snapshot-store';
import type { SeriesResolution } from '../../shared/domain/buckets';

export type FloorSpec =
  | { read: 'blocks'; keys: Key[] }
  | { read: 'partition'; pk: string; resolution: SeriesResolution; from: string; to: string }
  | { read: 'parallel'; reads: FloorSpec[] };

export type StoredItem = Record<string, unknown>;

/** The offers a list of these filters keeps (one value a dimension), counted on the index. */
export interface ViewFilter {
  dimension: 'platform_type' | 'platform' | 'asset';
  value: string;
}

/** The served data as the bench sees it: each family's index, and the raw reads of floors. */
export class ServedData {
  private readonly indexes: IndexStore;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.indexes = new IndexStore(client, tableName);
  }

  /** The served index of the family, or the one of `version` (served, or replaced and still readable). */
  async index(family: VersionedFamily, version?: string): Promise<FamilyIndex | undefined> {
    const versions = servedVersions(
      (await new PointerStore(this.client, this.tableName).served()) ?? { families: {}, retired: [] },
    );
    const served = versions.served[family];
    if (version === undefined || served?.version === version)
      return served && this.indexes.served(family, served.version, served);
    const retired = versions.retired.get(version);
    return retired && this.indexes.retired(retired.version, retired);
  }

  /** How many records a list of the family has with these filters. */
  async size(family: CatalogFamily | OfferFamily, filters: ViewFilter[] = []): Promise<number> {
    const index = await this.index(family);
    if (!index) return 0;
    if (index.data.kind === 'catalog') return index.size;
    const field = { platform_type: 'platformType', platform: 'platform', asset: 'asset' } as const;
    const facts = (index as OfferIndex).facts();
    let size = 0;
    for (let entry = 0; entry < index.size; entry++)
      if (filters.every((x) => facts[field[x.dimension]][entry] === x.value)) size++;
    return size;
  }

  /** The keys of the blocks that hold these offers' or records' documents (each block once). */
  async blockKeys(
    family: VersionedFamily,
    identifiers: readonly (number | string)[],
    version?: string,
  ): Promise<Key[]> {
    const index = await this.index(family, version);
    const blocks = new Set<string>();
    for (const id of identifiers) {
      const entry = typeof id === 'number' ? (index as OfferIndex).entry(id) : (index as CatalogIndex).entry(id);
      if (entry === undefined) throw new Error(`${family} ${id} is not in the served index`);
      blocks.add(index!.ref(entry).block);
    }
    return [...blocks].map(documentBlockKey);
  }

  async run(spec: FloorSpec): Promise<StoredItem[]> {
    switch (spec.read) {
      case 'blocks':
        return spec.keys.length === 0
          ? []
          : getItems(spec.keys, {
              client: this.client,
              tableName: this.tableName,
              projection: ['PK', 'z'],
              concurrency: 8,
            });
      case 'partition':
        return queryAll(this.client, {
          TableName: this.tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': spec.pk, ':from': spec.from, ':to': spec.to },
        });
      case 'parallel':
        return (await Promise.all(spec.reads.map((read) => this.run(read)))).flat();
    }
  }
}

/** The raw conditional counter write of an authenticated request: one atomic ADD under a limit. */
export async function runCounterFloor(
  client: DynamoDBDocumentClient,
  tableName: string,
  keyId: string,
  month: string,
): Promise<void> {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: quotaKey(keyId, month),
      UpdateExpression: 'ADD #count :one',
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeNames: { '#count': QUOTA_ATTRIBUTES.monthCount },
      ExpressionAttributeValues: { ':one': 1, ':limit': 1_000_000_000 },
    }),
  );
}

/** A short description for the report: `BatchGetItem 42 blocks`. */
export function describeFloor(spec: FloorSpec | undefined): string {
  if (!spec) return 'none (no read)';
  switch (spec.read) {
    case 'blocks':
      return `BatchGetItem ${spec.keys.length} block(s)`;
    case 'partition':
      return `Query PK, SK ${spec.resolution} chunks`;
    case 'parallel':
      return `${spec.reads.map(describeFloor).join(' ∥ ')}`;
  }
}
