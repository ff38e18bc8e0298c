/**
 * What a write costs, by DynamoDB's own rules, for the import cases (tools/bench/imports.ts).
 *
 * Item size ("DynamoDB item sizes and formats",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 * the sum over its attributes of the UTF-8 length of the name plus the value's size. A string: its
 * UTF-8 bytes; a number: about 1 byte per two significant digits (leading and trailing zeros
 * trimmed) plus 1; a binary: its raw bytes; a null or Boolean: 1; a List or Map: 3 bytes plus its
 * elements, each with 1 more byte (a Map's members with their names). Sets are not described
 * there: the sum of their elements.
 *
 * Write units ("Capacity unit consumption for write operations",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html):
 * 1 per KB of the item, rounded up. PutItem and UpdateItem pay for the larger of the item before
 * and after; DeleteItem for the item deleted (1 when there was none); BatchWriteItem pays each of
 * its requests as a PutItem or DeleteItem; a transactional write pays twice. A write refused by its
 * condition still pays for the item it found, or 1 ("Capacity units consumed by conditional writes",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html).
 *
 * Index entries ("Write capacity units" and "Storage considerations" of
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html): on each global
 * secondary index a write costs one write to put an entry the item did not have, one to delete the
 * entry it loses, two when its index key changes (the old deleted, the new put), one when only
 * projected attributes change, none when the entry stays the same or the item is in the index
 * neither before nor after; each 1 per KB of the index entry, rounded up. An index entry is the
 * projected attributes (the table's and the index's keys, and every attribute with the ALL
 * projection of shared/data/table.ts) plus 100 bytes of overhead per index item. The documentation
 * gives those 100 bytes for storage; counted here in the entry's size as well, the larger reading.
 */
import { BatchGetCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  DOCUMENT_PREFIX,
  HISTORY_PREFIX,
  historyJournalKey,
  pointerKey,
  SNAPSHOT_PREFIX,
  SOURCE_PREFIX,
} from '../../shared/data/keys';
import { TABLE_PARTITION_KEY, TABLE_SORT_KEY } from '../../shared/data/table';
import { createDocumentClient, isConditionFailure } from '../../shared/platform/dynamodb';

type Item = Record<string, unknown>;

/** Bytes DynamoDB adds to an index entry (GSI.html, "Storage considerations"). */
const INDEX_ENTRY_OVERHEAD_BYTES = 100;
const KB = 1024;

function numberSize(value: number | bigint | string): number {
  // The SDK sends a number as its decimal text; DynamoDB trims leading and trailing zeros.
  const mantissa = String(value).replace(/^-/, '').split(/e/i)[0].replace('.', '');
  const digits = mantissa.replace(/^0+/, '').replace(/0+$/, '').length;
  return Math.ceil(digits / 2) + 1;
}

/** The size of one value as DynamoDB counts it (without its attribute name). */
function valueSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint') return numberSize(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((n: number, v) => n + valueSize(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + valueSize(v), 0);
  if (typeof value === 'object' && value.constructor?.name === 'NumberValue') return numberSize(String(value));
  if (typeof value === 'object')
    return (
      3 +
      Object.entries(value).reduce(
        (n, [name, v]) => (v === undefined ? n : n + 1 + Buffer.byteLength(name, 'utf8') + valueSize(v)),
        0,
      )
    );
  throw new Error(`no DynamoDB size for a value of type ${typeof value}`);
}

/** An item's size in bytes by DynamoDB's rules (undefined attributes are not sent: the client removes them). */
export function itemSize(item: Item): number {
  return Object.entries(item).reduce(
    (n, [name, value]) => (value === undefined ? n : n + Buffer.byteLength(name, 'utf8') + valueSize(value)),
    0,
  );
}

/** The write units of a put of `bytes` (1 KB each, at least one). */
export const unitsOf = (bytes: number) => Math.max(1, Math.ceil(bytes / KB));

export interface IndexShape {
  name: string;
  keys: string[];
  /** undefined: every attribute (ALL). */
  projected?: string[];
}

const TABLE_KEYS = [TABLE_PARTITION_KEY.name, TABLE_SORT_KEY.name];
/**
 * The table's global secondary indexes: none since ADR 0009 (shared/data/table.ts); the five of the
 * positioned layout when the baseline was measured. Every function below takes the list, so that a
 * test can charge entries of indexes the table no longer has.
 */
const INDEX_SHAPES: IndexShape[] = [];

/** The item's entry in an index, or undefined when the item lacks one of the index's keys (a sparse index). */
function indexEntry(index: IndexShape, item: Item | undefined): Item | undefined {
  if (!item || index.keys.some((k) => item[k] === undefined || item[k] === null)) return undefined;
  if (!index.projected) return item;
  return Object.fromEntries(index.projected.filter((a) => item[a] !== undefined).map((a) => [a, item[a]]));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' || typeof b === 'number' || typeof a === 'bigint' || typeof b === 'bigint')
    return String(a) === String(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b));
  if (a instanceof Set && b instanceof Set)
    return a.size === b.size && [...a].every((v) => [...b].some((w) => sameValue(v, w)));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const defined = (o: object) => Object.entries(o).filter(([, v]) => v !== undefined);
    const ea = defined(a);
    const eb = new Map(defined(b));
    return ea.length === eb.size && ea.every(([k, v]) => eb.has(k) && sameValue(v, eb.get(k)));
  }
  return false;
}

const entryUnits = (entry: Item) => unitsOf(itemSize(entry) + INDEX_ENTRY_OVERHEAD_BYTES);

/**
 * Write units of one item's write, `before` and `after` being the item as stored before and after it
 * (undefined: absent). The table pays the larger of the two (1 at least); each index what its entry
 * needs, by the rules of the file's comment.
 * @internal (exported for its tests)
 */
export function writeUnits(
  before: Item | undefined,
  after: Item | undefined,
  shapes: readonly IndexShape[] = INDEX_SHAPES,
): { table: number; indexes: number } {
  const table = unitsOf(Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0));
  let indexes = 0;
  for (const index of shapes) {
    const old = indexEntry(index, before);
    const next = indexEntry(index, after);
    if (old && next && index.keys.every((k) => sameValue(old[k], next[k]))) {
      if (!sameValue(old, next)) indexes += Math.max(entryUnits(old), entryUnits(next));
    } else {
      if (old) indexes += entryUnits(old);
      if (next) indexes += entryUnits(next);
    }
  }
  return { table, indexes };
}

export interface WriteCounts {
  /** Items put or updated. */
  itemsWritten: number;
  itemsDeleted: number;
  /** Write units of puts and updates, the table and every index entry. */
  writeUnits: number;
  /** Write units of deletions, the table and every index entry of the items deleted. */
  deleteUnits: number;
  /** Items returned by reads (GetItem, BatchGetItem, Query, Scan, TransactGetItems). */
  itemsRead: number;
  /** Read units as the embedded DynamoDB reports them (ReturnConsumedCapacity). */
  readUnits: number;
  /** Write units of puts and updates of history items and of the history journal (among writeUnits). */
  historyWriteUnits: number;
  /** Of which the history journal's. */
  journalWriteUnits: number;
  /** Write units of puts and deletions of family version items (index segments, manifests, blocks, figure chunks, source records). */
  versionUnits: number;
  /** Write units of the snapshot pointer's writes (the lease, its renewals, the publish). */
  pointerUnits: number;
  /** Write units of puts and deletions by item kind (`kindOf`): where a case's units go. */
  byKind: Record<string, number>;
}

/**
 * The kind of an item by its key: a version's own items by their partition's last part (`V#…#INDEX`,
 * `V#…#MANIFEST`), the shared ones by their prefix (`DOC#`, `SRC#`), the rest by the partition up to
 * its first `#`.
 */
const kindOf = (key: Item): string => {
  const pk = String(key.PK);
  if (pk.startsWith(SNAPSHOT_PREFIX)) return `V#…#${pk.slice(pk.lastIndexOf('#') + 1)}`;
  const at = pk.indexOf('#');
  return at < 0 ? pk : pk.slice(0, at + 1);
};

/** The partitions of family versions: their own items, and the blocks and source records they name. */
const VERSION_PREFIXES = [SNAPSHOT_PREFIX, DOCUMENT_PREFIX, SOURCE_PREFIX];
const POINTER = pointerKey();

/** Every count at zero: a client's start, and each case's (`reset`). */
const zeroCounts = (): WriteCounts => ({
  itemsWritten: 0,
  itemsDeleted: 0,
  writeUnits: 0,
  deleteUnits: 0,
  itemsRead: 0,
  readUnits: 0,
  historyWriteUnits: 0,
  journalWriteUnits: 0,
  versionUnits: 0,
  pointerUnits: 0,
  byKind: {},
});

type Op = { kind: 'put' | 'update' | 'delete' | 'check'; table: string; key: Item; item?: Item; factor: number };

const keyOf = (item: Item): Item => Object.fromEntries(TABLE_KEYS.map((k) => [k, item[k]]));
const keyText = (table: string, key: Item) => JSON.stringify([table, ...TABLE_KEYS.map((k) => key[k])]);

/** The write operations of a document-client command; undefined for a read. Throws on a command it cannot count. */
function writeOps(name: string, input: Record<string, any>): Op[] | undefined {
  switch (name) {
    case 'GetCommand':
    case 'BatchGetCommand':
    case 'QueryCommand':
    case 'ScanCommand':
    case 'TransactGetCommand':
      return undefined;
    case 'PutCommand':
      return [{ kind: 'put', table: input.TableName, key: keyOf(input.Item), item: input.Item, factor: 1 }];
    case 'UpdateCommand':
      return [{ kind: 'update', table: input.TableName, key: input.Key, factor: 1 }];
    case 'DeleteCommand':
      return [{ kind: 'delete', table: input.TableName, key: input.Key, factor: 1 }];
    case 'BatchWriteCommand':
      return Object.entries(input.RequestItems as Record<string, any[]>).flatMap(([table, requests]) =>
        requests.map(
          (r): Op =>
            r.PutRequest
              ? { kind: 'put', table, key: keyOf(r.PutRequest.Item), item: r.PutRequest.Item, factor: 1 }
              : { kind: 'delete', table, key: r.DeleteRequest.Key, factor: 1 },
        ),
      );
    case 'TransactWriteCommand':
      return (input.TransactItems as Record<string, any>[]).map((t): Op => {
        if (t.Put) return { kind: 'put', table: t.Put.TableName, key: keyOf(t.Put.Item), item: t.Put.Item, factor: 2 };
        if (t.Update) return { kind: 'update', table: t.Update.TableName, key: t.Update.Key, factor: 2 };
        if (t.Delete) return { kind: 'delete', table: t.Delete.TableName, key: t.Delete.Key, factor: 2 };
        return { kind: 'check', table: t.ConditionCheck.TableName, key: t.ConditionCheck.Key, factor: 2 };
      });
    default:
      throw new Error(`the counting client cannot count ${name}: add it to tools/bench/write-units.ts`);
  }
}

/** The items stored under `keys` (consistent reads on the uncounted client). */
async function lookUp(raw: DynamoDBDocumentClient, ops: Op[]): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  const byTable = new Map<string, Map<string, Item>>();
  for (const op of ops) {
    const keys = byTable.get(op.table) ?? new Map<string, Item>();
    keys.set(keyText(op.table, op.key), op.key);
    byTable.set(op.table, keys);
  }
  for (const [table, keys] of byTable) {
    if (keys.size === 1) {
      const [key] = keys.values();
      const out = await raw.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
      if (out.Item) found.set(keyText(table, key), out.Item);
      continue;
    }
    const all = [...keys.values()];
    for (let i = 0; i < all.length; i += 100) {
      let pending: Item[] = all.slice(i, i + 100);
      while (pending.length > 0) {
        const out = await raw.send(
          new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true } } }),
        );
        for (const item of out.Responses?.[table] ?? []) found.set(keyText(table, item), item);
        pending = (out.UnprocessedKeys?.[table]?.Keys as Item[] | undefined) ?? [];
      }
    }
  }
  return found;
}

const returned = (name: string, out: Record<string, any>): number => {
  if (name === 'GetCommand') return out.Item ? 1 : 0;
  if (name === 'QueryCommand' || name === 'ScanCommand') return out.Items?.length ?? 0;
  if (name === 'BatchGetCommand')
    return Object.values((out.Responses ?? {}) as Record<string, unknown[]>).reduce((n, items) => n + items.length, 0);
  if (name === 'TransactGetCommand')
    return (out.Responses as { Item?: unknown }[] | undefined)?.filter((r) => r.Item).length ?? 0;
  return 0;
};

const consumed = (out: Record<string, any>): number => {
  const capacity = out.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
  return (Array.isArray(capacity) ? capacity : capacity ? [capacity] : []).reduce(
    (n, c) => n + (c.CapacityUnits ?? 0),
    0,
  );
};

/**
 * A document client on the bench's DynamoDB that counts what it writes and reads. Before a write it
 * looks up the items the write replaces or deletes (and after an update, the item it left) on a
 * second client that counts nothing, so that each write is charged by the real sizes: a put by
 * the larger of the old and new item, a deletion by the item deleted, with their index entries.
 */
export function countingClient(
  endpoint: string,
  shapes: readonly IndexShape[] = INDEX_SHAPES,
): {
  client: DynamoDBDocumentClient;
  counts: WriteCounts;
  reset: () => void;
} {
  const options = { endpoint, maxAttempts: 10, requestTimeoutMs: 30_000 };
  const client: DynamoDBDocumentClient = createDocumentClient(options);
  const raw: DynamoDBDocumentClient = createDocumentClient(options);
  const send = client.send.bind(client) as (command: unknown) => Promise<Record<string, any>>;
  const counts: WriteCounts = zeroCounts();

  const charge = (op: Op, before: Item | undefined, after: Item | undefined) => {
    const { table, indexes } = writeUnits(before, after, shapes);
    const total = op.factor * (table + indexes);
    if (VERSION_PREFIXES.some((prefix) => String(op.key.PK).startsWith(prefix))) counts.versionUnits += total;
    if (op.key.PK === POINTER.PK && op.key.SK === POINTER.SK) counts.pointerUnits += total;
    const kind = `${op.kind === 'delete' ? 'delete' : 'put'} ${kindOf(op.key)}`;
    counts.byKind[kind] = (counts.byKind[kind] ?? 0) + total;
    if (op.kind === 'delete') {
      counts.deleteUnits += total;
      counts.itemsDeleted++;
    } else {
      counts.writeUnits += total;
      if (op.kind !== 'check') counts.itemsWritten++;
      const pk = String(op.key.PK);
      const journal = pk === historyJournalKey(0, 0).PK && String(op.key.SK).startsWith(historyJournalKey(0, 0).SK);
      if (journal) counts.journalWriteUnits += total;
      if (journal || pk.startsWith(HISTORY_PREFIX)) counts.historyWriteUnits += total;
    }
  };

  const counted = async (command: unknown): Promise<Record<string, any>> => {
    const name = (command as { constructor: { name: string } }).constructor.name;
    const input = (command as { input: Record<string, any> }).input;
    const ops = writeOps(name, input);
    if (!ops) {
      input.ReturnConsumedCapacity ??= 'TOTAL';
      const out = await send(command);
      counts.itemsRead += returned(name, out);
      counts.readUnits += consumed(out);
      return out;
    }
    const before = await lookUp(raw, ops);
    const stored = (op: Op) => before.get(keyText(op.table, op.key));
    let out: Record<string, any>;
    try {
      out = await send(command);
    } catch (error) {
      // A refused condition still pays for the item it found (or 1) on the table.
      if (isConditionFailure(error) || (error as Error)?.name === 'TransactionCanceledException') {
        for (const op of ops) {
          const found = stored(op);
          const size = Math.max(found ? itemSize(found) : 0, op.item ? itemSize(op.item) : 0);
          if (op.kind === 'delete') counts.deleteUnits += op.factor * unitsOf(size);
          else counts.writeUnits += op.factor * unitsOf(size);
        }
      }
      throw error;
    }
    const unprocessed = new Set<string>();
    for (const [table, requests] of Object.entries((out.UnprocessedItems ?? {}) as Record<string, any[]>)) {
      for (const r of requests)
        unprocessed.add(keyText(table, r.PutRequest ? keyOf(r.PutRequest.Item) : r.DeleteRequest.Key));
    }
    const done = ops.filter((op) => !unprocessed.has(keyText(op.table, op.key)));
    const updated = done.filter((op) => op.kind === 'update');
    const after = updated.length > 0 ? await lookUp(raw, updated) : new Map<string, Item>();
    for (const op of done) {
      const old = stored(op);
      if (op.kind === 'put') charge(op, old, op.item);
      else if (op.kind === 'update') charge(op, old, after.get(keyText(op.table, op.key)));
      else if (op.kind === 'delete') charge(op, old, undefined);
      else charge(op, old, old);
    }
    return out;
  };

  (client as unknown as { send: (command: unknown) => Promise<unknown> }).send = counted;
  const reset = () => Object.assign(counts, zeroCounts());
  const destroy = client.destroy.bind(client);
  client.destroy = () => {
    raw.destroy();
    destroy();
  };
  return { client, counts, reset };
}
