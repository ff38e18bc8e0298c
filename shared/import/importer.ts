/**
 * The import: validate the whole file, write a new immutable snapshot, publish it by flipping the
 * pointer item last, then delete snapshots older than the previous one. Until the flip the API
 * serves the previous snapshot; a failed or interrupted import leaves it untouched, and a re-run
 * writes the same version (its id is the hash of the content) and completes it.
 */
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { pointerKey, SNAPSHOT_PREFIX, sourcePartition, versionOfPartition } from '../keys';
import { DataFileError, DATASET_FAMILIES, parseDataset, type Dataset, type DatasetFamily } from '../schemas/dataset';
import { deleteItems, putItems } from '../repositories/batch-writer';
import { HISTORY_DATASET_FAMILY, joinSourceRecords, OFFER_DATASET_FAMILY, projectSnapshot, type CompleteDataset } from './project';

export interface SnapshotPointer {
  version: string;
  previous: string | null;
  importedAt: string;
  counts: Record<string, number>;
}

export interface ImportOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
  now?: () => Date;
}

export interface ImportResult {
  version: string;
  previous: string | null;
  unchanged: boolean;
  itemsWritten: number;
  itemsDeleted: number;
  carriedOver: DatasetFamily[];
  counts: Record<string, number>;
}

export async function readPointer(client: DynamoDBDocumentClient, tableName: string): Promise<SnapshotPointer | undefined> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: pointerKey(), ConsistentRead: true }));
  return out.Item as SnapshotPointer | undefined;
}

async function readSource(client: DynamoDBDocumentClient, tableName: string, version: string, family: DatasetFamily): Promise<unknown[]> {
  const records: unknown[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': sourcePartition(version, family) },
        ExclusiveStartKey,
      }),
    );
    for (const item of out.Items ?? []) records.push(...(JSON.parse(item.records as string) as unknown[]));
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return joinSourceRecords(records);
}

/** Rules across records: unique identifiers, former slugs naming one record only, history of known offers. */
export function crossRecordErrors(dataset: CompleteDataset, fromFile: Set<DatasetFamily>): string[] {
  const errors: string[] = [];
  for (const family of ['exchanges', 'wallets', 'protocols', 'currencies'] as const) {
    const seen = new Map<string, number>();
    dataset[family].forEach((record, i) => {
      if (seen.has(record.slug)) errors.push(`${family}[${i}].slug: duplicate of ${family}[${seen.get(record.slug)}]`);
      seen.set(record.slug, i);
    });
    // A former slug naming another record would make that record's address a redirect, even once it is hidden.
    const former = new Map<string, number>();
    dataset[family].forEach((record, i) => {
      record.previous_slugs.forEach((slug, j) => {
        if (slug === record.slug) errors.push(`${family}[${i}].previous_slugs[${j}]: equals the record's own slug`);
        else if (seen.has(slug)) errors.push(`${family}[${i}].previous_slugs[${j}]: "${slug}" is the slug of ${family}[${seen.get(slug)}]`);
        else if (former.has(slug) && former.get(slug) !== i) {
          errors.push(`${family}[${i}].previous_slugs[${j}]: "${slug}" is also a former slug of ${family}[${former.get(slug)}]`);
        }
        former.set(slug, i);
      });
    });
  }
  for (const family of ['earn', 'borrow', 'collateral'] as const) {
    const name = OFFER_DATASET_FAMILY[family];
    const seen = new Map<number, number>();
    dataset[name].forEach((offer, i) => {
      if (seen.has(offer.id)) errors.push(`${name}[${i}].id: duplicate of ${name}[${seen.get(offer.id)}]`);
      seen.set(offer.id, i);
    });
  }
  for (const family of ['earn', 'borrow'] as const) {
    const name = HISTORY_DATASET_FAMILY[family];
    if (!fromFile.has(name)) continue;
    const offers = new Set(dataset[OFFER_DATASET_FAMILY[family]].map((o) => o.id));
    const seen = new Map<number, number>();
    dataset[name].forEach((series, i) => {
      if (!offers.has(series.offer_id)) errors.push(`${name}[${i}].offer_id: no ${family} offer has id ${series.offer_id}`);
      if (seen.has(series.offer_id)) errors.push(`${name}[${i}].offer_id: duplicate of ${name}[${seen.get(series.offer_id)}]`);
      seen.set(series.offer_id, i);
    });
  }
  return errors;
}

/** Families absent from the file are carried over from the snapshot being served. */
async function completeDataset(
  parsed: Dataset,
  pointer: SnapshotPointer | undefined,
  options: ImportOptions,
): Promise<{ dataset: CompleteDataset; carriedOver: DatasetFamily[] }> {
  const complete: Record<string, unknown[]> = {};
  const carriedOver: DatasetFamily[] = [];
  for (const family of DATASET_FAMILIES) {
    const given = parsed[family];
    if (given) complete[family] = given;
    else if (pointer) {
      complete[family] = await readSource(options.client, options.tableName, pointer.version, family);
      carriedOver.push(family);
    } else complete[family] = [];
  }
  const dataset = complete as CompleteDataset;
  // Carried-over history of offers that the file no longer has is dropped, not an error.
  for (const family of ['earn', 'borrow'] as const) {
    const name = HISTORY_DATASET_FAMILY[family];
    if (!carriedOver.includes(name)) continue;
    const offers = new Set(dataset[OFFER_DATASET_FAMILY[family]].map((o) => o.id));
    (dataset[name] as { offer_id: number }[]) = (dataset[name] as { offer_id: number }[]).filter((s) => offers.has(s.offer_id));
  }
  return { dataset, carriedOver };
}

export const versionOf = (dataset: CompleteDataset): string =>
  createHash('sha256').update(JSON.stringify(dataset)).digest('hex').slice(0, 20);

/** Keys of every snapshot item whose version is not in `keep` (including abandoned imports). */
async function staleSnapshotKeys(client: DynamoDBDocumentClient, tableName: string, keep: Set<string>): Promise<Record<string, unknown>[]> {
  const segments = 4;
  const keys: Record<string, unknown>[] = [];
  await Promise.all(
    Array.from({ length: segments }, async (_, Segment) => {
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const out = await client.send(
          new ScanCommand({
            TableName: tableName,
            Segment,
            TotalSegments: segments,
            ProjectionExpression: 'PK, SK',
            FilterExpression: 'begins_with(PK, :prefix)',
            ExpressionAttributeValues: { ':prefix': SNAPSHOT_PREFIX },
            ExclusiveStartKey,
          }),
        );
        for (const item of out.Items ?? []) {
          const version = versionOfPartition(item.PK as string);
          if (version !== undefined && !keep.has(version)) keys.push({ PK: item.PK, SK: item.SK });
        }
        ExclusiveStartKey = out.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    }),
  );
  return keys;
}

/** Delete every snapshot but the served one and the previous one (cached readers may use it). */
async function deleteStaleSnapshots(version: string, previous: string | null, { client, tableName, concurrency }: ImportOptions): Promise<number> {
  const stale = await staleSnapshotKeys(client, tableName, new Set([version, ...(previous ? [previous] : [])]));
  await deleteItems(stale, { client, tableName, concurrency });
  return stale.length;
}

export async function importDataset(input: unknown, options: ImportOptions): Promise<ImportResult> {
  const parsed = parseDataset(input);
  const { client, tableName } = options;
  const pointer = await readPointer(client, tableName);
  const { dataset, carriedOver } = await completeDataset(parsed, pointer, options);
  const errors = crossRecordErrors(dataset, new Set(DATASET_FAMILIES.filter((f) => parsed[f] !== undefined)));
  if (errors.length > 0) throw new DataFileError(errors);

  const version = versionOf(dataset);
  const counts = Object.fromEntries(DATASET_FAMILIES.map((f) => [f, dataset[f].length]));
  if (pointer?.version === version) {
    // Nothing to publish; finish a cleanup that an earlier run may have left undone.
    const itemsDeleted = await deleteStaleSnapshots(version, pointer.previous, options);
    return { version, previous: pointer.previous, unchanged: true, itemsWritten: 0, itemsDeleted, carriedOver, counts };
  }

  const items = projectSnapshot(version, dataset);
  await putItems(items, { client, tableName, concurrency: options.concurrency, onProgress: options.onProgress });

  const previous = pointer?.version ?? null;
  const next: SnapshotPointer = { version, previous, importedAt: (options.now?.() ?? new Date()).toISOString(), counts };
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...pointerKey(), ...next },
      // Refuse to publish over an import that flipped the pointer while this one was writing.
      ConditionExpression: previous === null ? 'attribute_not_exists(PK)' : 'version = :previous',
      ExpressionAttributeValues: previous === null ? undefined : { ':previous': previous },
    }),
  );

  const itemsDeleted = await deleteStaleSnapshots(version, previous, options);
  return { version, previous, unchanged: false, itemsWritten: items.length, itemsDeleted, carriedOver, counts };
}
