/**
 * Reads of snapshot items: records by key, list views by position range on their index, view
 * sizes, and the APY bound of a view. Handlers never build a command; this is the only module that
 * queries the served snapshot.
 */
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CorruptDataError } from '../errors';
import { APY_VALUE_ATTRIBUTE, APY_VALUE_INDEX, positionAttribute, SORT_INDEX, SNAPSHOT_PREFIX, VIEW_ATTRIBUTE, VIEW_SIZE_ATTRIBUTE, viewMetaKey, type Key, type PositionIndex } from '../keys';
import { queryAll } from './query-all';
import type { ReadCache } from './read-cache';

const APY_ASC_INDEX = SORT_INDEX.apy_asc;

export type StoredItem = Record<string, unknown>;

/** The rendered document of an item; anything else is corrupt data (a 500, never a broken body). */
export function docOf(item: StoredItem): string {
  const doc = item.doc;
  if (typeof doc !== 'string' || !doc.startsWith('{')) throw new CorruptDataError(`item ${String(item.PK)} has no document`);
  return doc;
}

/** The largest position a query may name: DynamoDB numbers are exact, JS ones only to 2^53 - 1. */
const MAX_POSITION = Number.MAX_SAFE_INTEGER;

function sizeOf(item: StoredItem, partition: string): number {
  const n = item[VIEW_SIZE_ATTRIBUTE];
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) throw new CorruptDataError(`view ${partition} has no size`);
  return n;
}

/** The view's size a member carries; undefined for a version written before members carried it. */
function carriedSize(item: StoredItem | undefined, partition: string): number | undefined {
  return item === undefined || item[VIEW_SIZE_ATTRIBUTE] === undefined ? undefined : sizeOf(item, partition);
}

/** A filter applied to the items of a view (combined filters). */
export interface ItemFilter {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/** Positions read by one query of a whole-view read (about 0.5 MB of offers). */
const VIEW_CHUNK = 500;

export class ViewStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** Published snapshot data kept in the instance (none: every read goes to DynamoDB). */
    private readonly cache?: ReadCache,
  ) {}

  /** Snapshot reads go through the cache: their keys name an immutable version. */
  private cached<T>(partition: string, key: string, read: () => Promise<T>): Promise<T> {
    return this.cache && partition.startsWith(SNAPSHOT_PREFIX) ? this.cache.get(key, read) : read();
  }

  async getItem(key: Key): Promise<StoredItem | undefined> {
    return this.cached(key.PK, `get\u0000${key.PK}\u0000${key.SK}`, async () => {
      const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: key }));
      return out.Item;
    });
  }

  /** The exact size of a view (its aggregate item), 0 when the view has no members. */
  async size(partition: string): Promise<number> {
    const item = await this.getItem(viewMetaKey(partition));
    return item ? sizeOf(item, partition) : 0;
  }

  /**
   * The items at positions [from, to) of a view and the view's size. The size comes with the
   * items, which carry it: one Query. A page past the end, or a version written before members
   * carried it, reads the view's aggregate item after the page.
   */
  async page(partition: string, index: PositionIndex, from: number, to: number): Promise<{ total: number; items: StoredItem[] }> {
    const items = await this.range(partition, index, from, to);
    // Nothing from position 0 on: the view has no members.
    if (items.length === 0 && from === 0) return { total: 0, items };
    return { total: carriedSize(items[0], partition) ?? (await this.size(partition)), items };
  }

  /** The items at positions [from, to) of a view in the order of `index`, in that order. */
  async range(partition: string, index: PositionIndex, from: number, to: number, filter?: ItemFilter): Promise<StoredItem[]> {
    to = Math.min(to, MAX_POSITION);
    if (to <= from) return [];
    const attribute = positionAttribute(index);
    const key = `range\u0000${partition}\u0000${index}\u0000${from}\u0000${to}\u0000${filter ? JSON.stringify(filter) : ''}`;
    return this.cached(partition, key, () => queryAll(this.client, {
      TableName: this.tableName,
      IndexName: index,
      KeyConditionExpression: '#view = :view AND #pos BETWEEN :from AND :to',
      FilterExpression: filter?.expression,
      ExpressionAttributeNames: { '#view': VIEW_ATTRIBUTE, '#pos': attribute, ...filter?.names },
      ExpressionAttributeValues: { ':view': partition, ':from': from, ':to': to - 1, ...filter?.values },
    }));
  }

  /**
   * Every item of a view in index order, optionally filtered. The first chunk comes first; a
   * full one brings the view's size, and the rest is read in parallel: two round trips at most.
   * With a filter the first chunk may hold none of the view's items, so the size is read beside it.
   */
  async all(partition: string, index: PositionIndex, filter?: ItemFilter): Promise<StoredItem[]> {
    if (filter) {
      const [n, first] = await Promise.all([this.size(partition), this.range(partition, index, 0, VIEW_CHUNK, filter)]);
      return n <= VIEW_CHUNK ? first : first.concat(await this.span(partition, index, VIEW_CHUNK, n, filter));
    }
    const first = await this.range(partition, index, 0, VIEW_CHUNK);
    if (first.length < VIEW_CHUNK) return first;
    const n = carriedSize(first[0], partition) ?? (await this.size(partition));
    return n <= VIEW_CHUNK ? first : first.concat(await this.span(partition, index, VIEW_CHUNK, n));
  }

  /** The items at positions [from, to), read in parallel chunks: one round trip. */
  async span(partition: string, index: PositionIndex, from: number, to: number, filter?: ItemFilter): Promise<StoredItem[]> {
    const starts: number[] = [];
    for (let start = from; start < to; start += VIEW_CHUNK) starts.push(start);
    const chunks = await Promise.all(starts.map((start) => this.range(partition, index, start, Math.min(to, start + VIEW_CHUNK), filter)));
    return ([] as StoredItem[]).concat(...chunks);
  }

  /**
   * The first `wanted` items of a view in the order of `index` that pass `filter`, reading the
   * positions from 0 in spans (each span's chunks in parallel: one round trip a span), the first
   * span `firstSpan` positions long and each next one twice the last, until enough pass or the
   * view ends.
   */
  async firstMatches(partition: string, index: PositionIndex, filter: ItemFilter, wanted: number, n: number, firstSpan: number): Promise<StoredItem[]> {
    const matches: StoredItem[] = [];
    let from = 0;
    let span = Math.max(1, firstSpan);
    while (matches.length < wanted && from < n) {
      const to = Math.min(n, from + span);
      matches.push(...(await this.span(partition, index, from, to, filter)));
      from = to;
      span *= 2;
    }
    return matches.slice(0, wanted);
  }

  /**
   * The offers of a view whose APY is at least `apyKey`: they are the apy_asc positions
   * [start, n), n the view's size. The first of them in APY value order (GSI5, the same order as
   * apy_asc) carries its apy_asc position and the view's size: one Query. When there are none,
   * start = n = 0: nothing to read.
   */
  async apyBound(partition: string, apyKey: string): Promise<{ n: number; start: number }> {
    const first = await this.cached(partition, `apy\u0000${partition}\u0000${apyKey}`, async () => {
      const out = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: APY_VALUE_INDEX,
          KeyConditionExpression: '#view = :view AND #apy >= :apy',
          ExpressionAttributeNames: { '#view': VIEW_ATTRIBUTE, '#apy': APY_VALUE_ATTRIBUTE },
          ExpressionAttributeValues: { ':view': partition, ':apy': apyKey },
          Limit: 1,
        }),
      );
      return out.Items?.[0];
    });
    if (!first) return { n: 0, start: 0 };
    return { n: carriedSize(first, partition) ?? (await this.size(partition)), start: Number(first[positionAttribute(APY_ASC_INDEX)]) };
  }

  /** Every item of a partition whose sort key is in [from, to] (history chunks). */
  async partitionRange(pk: string, from: string, to: string): Promise<StoredItem[]> {
    return queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': to },
    });
  }
}
