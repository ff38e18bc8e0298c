/**
 * One ordered index per family version (docs/adr/0009-one-index-per-family-version.md), on the
 * embedded DynamoDB through the real import and handlers:
 *
 * - reads: a page reads the blocks of its documents and nothing else, in one round trip, at any
 *   offset and at `limit=200`; a page past the end and a family never imported read no document;
 *   the currency detail is one round trip; an instance loads a version's index once and the new one
 *   after a publish;
 * - writes: a refresh writes the blocks whose content changed, and the changed family's index and
 *   source, nothing else; an import of what is served writes nothing;
 * - deletion: once its retention has passed, a replaced version's own items go, and the blocks
 *   that only it named; every block a kept version names stays;
 * - leases: an import killed while deleting an earlier failed import's versions leaves them on the
 *   lease, and the next import deletes them; an abandoned version that is still retained is kept.
 */
import { BatchWriteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ImportBusyError } from '../../shared/data/import-lease';
import { IndexStore } from '../../shared/data/index-store';
import { blockDocuments } from '../../shared/data/items/document-block';
import { decodeIndexDelta, encodeIndexDelta } from '../../shared/data/items/index-delta';
import {
  DOCUMENT_PREFIX,
  indexDeltaKey,
  refreshedKey,
  SNAPSHOT_PREFIX,
  SOURCE_PREFIX,
  sharedItemKey,
} from '../../shared/data/keys';
import { type FamilyVersion, servedVersions } from '../../shared/data/snapshot-store';
import { VersionWriter } from '../../shared/data/version-writer';
import { parseDataset, RECORD_SCHEMA } from '../../shared/import/dataset';
import { type ImportOptions, type ImportResult, importDataset, readPointer } from '../../shared/import/importer';
import { TAKEOVER_GRACE_MS } from '../../shared/import/lease-holder';
import { withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import { createDocumentClient } from '../../shared/platform/dynamodb';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable, versionOfPartition } from '../helpers/embedded';
import { type Call, injectFaults } from '../helpers/faults';
import { ASSETS, earnRecord, seeded } from '../helpers/records';

// ---- the datasets ------------------------------------------------------------------------------

/**
 * The fixture's platforms, currencies and borrow offers, and `count` more earn offers over three
 * assets and several platforms; no wallets and no collateral (never imported), no history.
 */
function base(count = 600): any {
  const { exchanges, protocols, currencies, earn_offers, borrow_offers } = fixtureDataset();
  const r = seeded(21);
  const platforms = [
    { type: 'exchange', slug: 'binance', name: 'Binance' },
    { type: 'exchange', slug: 'kraken', name: 'Kraken' },
    { type: 'exchange', slug: 'bybit-old', name: 'Bybit' },
    { type: 'protocol', slug: 'aave', name: 'Aave' },
    { type: 'exchange', slug: 'hidden-ex', name: 'Hidden' },
  ];
  const generated = Array.from({ length: count }, (_, i) =>
    earnRecord(100 + i, `${Math.floor(r.next() * 30)}.${Math.floor(r.next() * 100)}`, {
      asset: ASSETS[i % 3],
      platform: r.pick(platforms),
      tvl: r.next() < 0.1 ? null : String(Math.floor(r.next() * 1e6)),
      updated_at: new Date(Date.parse('2026-11-10T00:00:00.000Z') + Math.floor(r.next() * 1e6) * 1000).toISOString(),
    }),
  );
  return { exchanges, protocols, currencies, earn_offers: [...earn_offers, ...generated], borrow_offers };
}

/** `dataset` with the APY of earn offer `id` set to `apy` (its document, and nothing else, changes). */
function withApy(dataset: any, id: number, apy: string): any {
  const changed = structuredClone(dataset);
  Object.assign(
    changed.earn_offers.find((o: any) => o.id === id),
    { apy, estimated_apy: apy },
  );
  return changed;
}

// ---- helpers -----------------------------------------------------------------------------------

const T0 = NOW.getTime();
const at = (ms: number) => () => new Date(ms);
const pkOf = (key: { PK: string | { S: string } }) => (typeof key.PK === 'string' ? key.PK : key.PK.S);

/** A request's DynamoDB calls (the quota's counter write left out) and its round trips. */
async function observe(table: TestTable, handler: TestApi[keyof TestApi], path: string) {
  const calls: Call[] = [];
  const capture = injectFaults(table.clients(), (call) => void calls.push(call));
  try {
    const { result, accounting } = await withRequestAccounting(() => invoke(handler as any, apiEvent(path)));
    const reads = calls.filter((c) => c.command !== 'UpdateItemCommand');
    return { result, reads, roundTrips: accounting.summary().roundTrips };
  } finally {
    capture.remove();
  }
}

/** The partition keys a request's reads named (GetItem and BatchGetItem). */
function keysRead(reads: Call[]): string[] {
  return reads.flatMap((c) => {
    if (c.command === 'GetItemCommand') return [pkOf(c.input.Key)];
    if (c.command === 'BatchGetItemCommand')
      return Object.values(c.input.RequestItems as Record<string, { Keys: any[] }>).flatMap((r) => r.Keys.map(pkOf));
    return [`${c.command}?`];
  });
}

/** Every stored document block, decoded: hash → its documents. */
async function storedBlocks(table: TestTable): Promise<Map<string, string[]>> {
  const blocks = new Map<string, string[]>();
  for (const item of await table.items()) {
    const pk = item.PK as string;
    if (pk.startsWith(DOCUMENT_PREFIX)) blocks.set(pk.slice(DOCUMENT_PREFIX.length), blockDocuments(item));
  }
  return blocks;
}

/** The versions the pointer names (served and retired). */
async function keptVersions(table: TestTable): Promise<string[]> {
  const pointer = await readPointer(table.client, table.tableName);
  return [
    ...Object.values(pointer?.families ?? {}).flatMap((s) => (s?.version ? [s.version] : [])),
    ...(pointer?.retired ?? []).map((r) => r.version),
  ];
}

/** The source partitions a version's manifest names. */
async function sourcesOf(table: TestTable, version: string): Promise<string[]> {
  return (await new VersionWriter(table.client, table.tableName).readManifest(version)).blocks
    .filter((name) => name.startsWith(SOURCE_PREFIX))
    .map((name) => sharedItemKey(name).PK);
}

/** A version's own partitions, and the stored source chunks that it names and no other kept version does. */
async function partitionsOf(table: TestTable, version: string): Promise<string[]> {
  const items = await table.items();
  const own = items.flatMap((i) => (versionOfPartition(i.PK as string) === version ? [i.PK as string] : []));
  const others = new Set<string>();
  for (const other of await keptVersions(table))
    if (other !== version) for (const pk of await sourcesOf(table, other)) others.add(pk);
  const named = own.length > 0 ? await sourcesOf(table, version) : [];
  const alone = named.filter((pk) => !others.has(pk) && items.some((i) => i.PK === pk));
  return [...new Set([...own, ...alone])].sort();
}

/** Every source partition stored that no kept (served or retired) version names. */
async function unnamedSources(table: TestTable): Promise<string[]> {
  const named = new Set<string>();
  for (const version of await keptVersions(table)) for (const pk of await sourcesOf(table, version)) named.add(pk);
  const stored = new Set(
    (await table.items()).flatMap((i) => (String(i.PK).startsWith(SOURCE_PREFIX) ? [String(i.PK)] : [])),
  );
  return [...stored].filter((pk) => !named.has(pk));
}

const EARN_SOURCE = expect.stringMatching(/^SRC#[0-9a-f]{32}$/);

/**
 * A document client on the table that records every command it is sent; after `healthy` calls of
 * `kind`, every call fails like a dropped connection (`dies`: all calls, as when the process is killed).
 */
/** An import of `file` through a client that records what it is sent (recordingClient), closed after. */
async function recordedImport(
  table: TestTable,
  file: unknown,
  options: Pick<ImportOptions, 'now' | 'recordHistory'>,
): Promise<{ result: ImportResult; recording: ReturnType<typeof recordingClient> }> {
  const recording = recordingClient(table);
  try {
    return {
      result: await importDataset(file, { client: recording.client, tableName: table.tableName, ...options }),
      recording,
    };
  } finally {
    recording.close();
  }
}

function recordingClient(
  table: TestTable,
  options: { kind?: typeof BatchWriteCommand | typeof PutCommand; healthy?: number; dies?: boolean } = {},
) {
  const client: DynamoDBDocumentClient = createDocumentClient({ endpoint: table.endpoint });
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  const sent: { name: string; input: any }[] = [];
  let seen = 0;
  let dead = false;
  const inflight = new Set<Promise<unknown>>();
  (client as unknown as { send: (command: unknown) => Promise<unknown> }).send = (command: any) => {
    sent.push({ name: command.constructor.name, input: command.input });
    if (dead || (options.kind && command instanceof options.kind && ++seen > (options.healthy ?? Infinity))) {
      if (options.dies) dead = true;
      return Promise.reject(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' }));
    }
    const pending = send(command);
    inflight.add(pending);
    const done = () => inflight.delete(pending);
    pending.then(done, done);
    return pending;
  };
  const requests = (type: 'PutRequest' | 'DeleteRequest') =>
    sent
      .filter((c) => c.name === 'BatchWriteCommand')
      .flatMap((c) => Object.values(c.input.RequestItems as Record<string, any[]>).flat())
      .flatMap((r) => (r[type] ? [type === 'PutRequest' ? r.PutRequest.Item : r.DeleteRequest.Key] : []));
  return {
    client,
    /** The items put and the keys deleted by BatchWriteItem. */
    puts: () => requests('PutRequest') as { PK: string; SK: string }[],
    deletes: () => requests('DeleteRequest') as { PK: string; SK: string }[],
    writes: () => sent.filter((c) => /Put|BatchWrite|Delete|Update/.test(c.name)).length,
    sent: () => sent,
    settled: async () => {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
    close: () => client.destroy(),
  };
}

beforeAll(() => setLogSink(() => undefined));

// ---- reads ---------------------------------------------------------------------------------------

describe('reads', () => {
  let table: TestTable;
  let api: TestApi;
  let blocks: Map<string, string[]>;
  // Enough offers that a page of 200 sorted by APY spreads over more than 100 blocks: two BatchGetItem calls.
  const dataset = base(3_000);
  const published = dataset.earn_offers.filter((o: any) => o.published !== false);
  const earnCount = published.length;
  const ethereumCount = published.filter((o: any) => o.asset?.slug === 'ethereum').length;

  beforeAll(async () => {
    table = await startTestTable();
    await importDataset(dataset, { client: table.client, tableName: table.tableName, now: at(T0) });
    blocks = await storedBlocks(table);
    // Warm, as the service runs: the pointer cached, each index loaded, no document kept.
    api = table.api({ clock: () => NOW, env: { READ_CACHE_MB: '0', SNAPSHOT_CACHE_MS: '600000' } });
    const warming = [
      [api.offers, ['earn/1', 'borrow/1', 'collateral/1']],
      [api.platforms, ['exchanges/binance', 'wallets/trezor']],
      [api.currencies, ['currencies/bitcoin']],
    ] as const;
    for (const [fn, paths] of warming) for (const path of paths) await invoke(fn as any, apiEvent(`/api/v1/${path}`));
  }, 120_000);
  afterAll(() => table.close());

  it.each([
    ['offers', '/api/v1/earn?offset=5000', earnCount],
    ['offers', '/api/v1/earn?asset=ethereum&offset=5000', ethereumCount],
    ['platforms', '/api/v1/exchanges?offset=5', 5],
  ] as const)('%s %s: a page past the end answers its total and reads no document', async (fn, path, total) => {
    const { result, reads } = await observe(table, api[fn], path);

    expect(result.status).toBe(200);
    expect(result.body.data).toEqual([]);
    expect(result.body.pagination).toMatchObject({ total, has_more: false });
    expect(keysRead(reads)).toEqual([]);
  });

  it.each([
    ['platforms', '/api/v1/wallets'],
    ['offers', '/api/v1/collateral?platform=binance'],
  ] as const)('a family never imported: %s %s lists total 0, reading nothing', async (fn, path) => {
    const { result, reads } = await observe(table, api[fn], path);

    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      data: [],
      pagination: { total: 0, offset: 0, limit: 50, has_more: false, snapshot: 'none' },
    });
    expect(keysRead(reads)).toEqual([]);
  });

  it.each([
    ['platforms', '/api/v1/wallets/trezor'],
    ['offers', '/api/v1/collateral/1'],
  ] as const)('a family never imported: %s %s is 404, reading nothing', async (fn, path) => {
    const { result, reads } = await observe(table, api[fn], path);

    expect(result.status).toBe(404);
    expect(keysRead(reads)).toEqual([]);
  });

  it.each([
    ['offers', '/api/v1/earn?limit=50'],
    ['offers', '/api/v1/earn?limit=50&offset=450'],
    ['offers', '/api/v1/earn?limit=200'],
    ['offers', '/api/v1/earn?limit=200&offset=400&sort=updated_desc'],
    ['offers', '/api/v1/earn?limit=200&offset=100&sort=tvl_desc&min_apy=3'],
    ['offers', '/api/v1/earn?asset=ethereum&platform_type=exchange&limit=20&offset=30'],
    ['platforms', '/api/v1/exchanges?limit=2&offset=2'],
    ['currencies', '/api/v1/currencies?limit=3&offset=1'],
  ] as const)('%s %s: reads the blocks of its documents and no other, in one round trip', async (fn, path) => {
    const { result, reads, roundTrips } = await observe(table, api[fn], path);

    expect(result.status).toBe(200);
    const docs: string[] = result.body.data.map((d: unknown) => JSON.stringify(d));
    expect(docs.length).toBeGreaterThan(0);
    const read = keysRead(reads);
    expect(read.every((pk) => pk.startsWith(DOCUMENT_PREFIX))).toBe(true);
    const hashes = read.map((pk) => pk.slice(DOCUMENT_PREFIX.length));
    // Each block once, each holding a document of the page, and together all of them.
    expect(new Set(hashes).size).toBe(hashes.length);
    const held = new Set(hashes.flatMap((h) => blocks.get(h) ?? []));
    expect(hashes.filter((h) => !docs.some((d) => blocks.get(h)?.includes(d)))).toEqual([]);
    expect(docs.filter((d) => !held.has(d))).toEqual([]);
    expect(roundTrips).toBe(1);
  });

  it('a page of 200 over more than 100 blocks reads them in parallel batches: still one round trip', async () => {
    const { result, reads, roundTrips } = await observe(table, api.offers, '/api/v1/earn?limit=200&offset=1000');

    expect(result.body.data).toHaveLength(200);
    expect(keysRead(reads).length).toBeGreaterThan(100);
    expect(reads.map((c) => c.command)).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
    expect(roundTrips).toBe(1);
  });

  it('the currency detail reads its record’s block and its offers’ blocks in one round trip', async () => {
    const { result, reads, roundTrips } = await observe(table, api.currencies, '/api/v1/currencies/bitcoin');

    expect(result.status).toBe(200);
    expect(result.body.earn_offers).toHaveLength(published.filter((o: any) => o.asset?.slug === 'bitcoin').length);
    expect(keysRead(reads).every((pk) => pk.startsWith(DOCUMENT_PREFIX))).toBe(true);
    expect(roundTrips).toBe(1);
  });
});

// ---- index loads ---------------------------------------------------------------------------------

describe('index loads', () => {
  let table: TestTable;

  beforeAll(async () => {
    table = await startTestTable();
    await importDataset(base(), { client: table.client, tableName: table.tableName, now: at(T0) });
  });
  afterAll(() => table.close());

  it('an instance loads a version’s index once, and after a publish the new version’s delta against it', async () => {
    // The pointer read on every request: a publish is seen at once.
    const api = table.api({ clock: () => NOW, env: { READ_CACHE_MB: '0', SNAPSHOT_CACHE_MS: '0' } });
    const indexReads = async () =>
      keysRead((await observe(table, api.offers, '/api/v1/earn?limit=5')).reads).filter((pk) =>
        /#(INDEX|DELTA)$/.test(pk),
      );
    const first = await readPointer(table.client, table.tableName);

    const cold = await indexReads();
    const warm = await indexReads();
    await importDataset(withApy(base(), 150, '77.125'), {
      client: table.client,
      tableName: table.tableName,
      now: at(T0 + 1_000),
    });
    const published = await indexReads();
    const after = await indexReads();

    const second = await readPointer(table.client, table.tableName);
    const [v1, v2] = [first?.families.earn_offers?.version, second?.families.earn_offers?.version];
    expect(v2).not.toBe(v1);
    expect(cold).toEqual([`${SNAPSHOT_PREFIX}${v1}#INDEX`]);
    expect(warm).toEqual([]);
    expect(published).toEqual([`${SNAPSHOT_PREFIX}${v2}#DELTA`]);
    expect(after).toEqual([]);
  });
});

describe('retired versions', () => {
  let table: TestTable;
  let served: FamilyVersion;
  let retired: FamilyVersion[];
  /** What the served earn index is estimated to take (the budgets below are multiples of it). */
  let heap: number;

  beforeAll(async () => {
    table = await startTestTable();
    for (const [i, apy] of ['', '77.125', '78.5', '79.25'].entries()) {
      // 250 offers: an index of about 90 KB, so that 1 MB of memory holds a few (below).
      const dataset = apy === '' ? base(250) : withApy(base(250), 150 + i, apy);
      await importDataset(dataset, { client: table.client, tableName: table.tableName, now: at(T0 + i * 1_000) });
    }
    const versions = servedVersions((await readPointer(table.client, table.tableName))!);
    served = versions.served.earn!;
    retired = [...versions.retired.values()].filter((v) => v.family === 'earn');
    heap = (await new IndexStore(table.client, table.tableName).served('earn', served.version, served)).heapBytes;
  });
  afterAll(() => table.close());

  const loads = async (read: () => Promise<unknown>) =>
    (await withRequestAccounting(read)).accounting.summary().indexLoads;

  it('loads of retired versions never evict a served index: the served request after them reloads nothing', async () => {
    // Room for the served index and one more: one LRU of this size (the old store) evicted it at the second retired load.
    const store = new IndexStore(table.client, table.tableName, { servedBytes: 2 * heap, retiredBytes: 2 * heap });

    expect(retired).toHaveLength(3);
    expect(await loads(() => store.served('earn', served.version, served))).toBe(1);
    for (const v of [...retired, ...retired]) await loads(() => store.retired(v.version, v));
    expect(await loads(() => store.served('earn', served.version, served))).toBe(0);
    // The retired ones are kept within their own budget, the most recently used first.
    const last = retired[retired.length - 1];
    expect(await loads(() => store.retired(last.version, last))).toBe(0);
    expect(store.keptBytes.servedBytes).toBe(heap);
    expect(store.keptBytes.retiredBytes).toBeLessThanOrEqual(2 * heap);
  });

  it('through the API: `snapshot=` pages of retired versions never make the served list reload its index', async () => {
    // 1 MB of memory: a served budget of 256 KB and a retired one of 128 KB, a few of these indexes.
    expect(heap).toBeLessThan(128 * 1024);
    expect(3 * heap).toBeGreaterThan(256 * 1024);
    const api = table.api({ clock: () => NOW, env: { READ_CACHE_MB: '0', AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1' } });
    const page = async (query: string) => {
      const { result, accounting } = await withRequestAccounting(() =>
        invoke(api.offers as any, apiEvent(`/api/v1/earn?limit=5${query}`)),
      );
      expect(result.status).toBe(200);
      return accounting.summary().indexLoads;
    };

    expect(await page('')).toBe(1);
    for (const v of [...retired, ...retired]) expect(await page(`&snapshot=${v.version}`)).toBe(1);
    expect(await page('')).toBe(0);
  });

  it('a retired index larger than its budget is answered in full on every request, and not kept', async () => {
    const store = new IndexStore(table.client, table.tableName, { servedBytes: 2 * heap, retiredBytes: heap / 2 });
    const [v] = retired;
    const full = await new IndexStore(table.client, table.tableName).retired(v.version, v);

    for (let i = 0; i < 2; i++) {
      const { result, accounting } = await withRequestAccounting(() => store.retired(v.version, v));
      expect(accounting.summary().indexLoads).toBe(1);
      expect(result.size).toBe(full.size);
    }
    expect(store.keptBytes.retiredBytes).toBe(0);
  });

  it('a publish moves the replaced served index to the retired ones: a client still paging it reloads nothing', async () => {
    const store = new IndexStore(table.client, table.tableName, { servedBytes: 4 * heap, retiredBytes: 4 * heap });
    const previous = retired[retired.length - 1];

    expect(await loads(() => store.served('earn', previous.version, previous))).toBe(1);
    // The new version's index: loaded, or its delta applied to the one it replaced.
    const { result: index, accounting } = await withRequestAccounting(() =>
      store.served('earn', served.version, served),
    );
    const { indexLoads, indexDeltas } = accounting.summary();
    expect(indexLoads + indexDeltas).toBe(1);
    expect(await loads(() => store.retired(previous.version, previous))).toBe(0);
    // One version per family among the served ones (a delta's heap is estimated from the index it applied to).
    expect(store.keptBytes.servedBytes).toBe(index.heapBytes);
  });
});

// ---- index deltas ------------------------------------------------------------------------------

/** `dataset` with every 20th earn offer refreshed at `ms` (a moved APY, `updated_at`): a 5 % refresh. */
function refreshed(dataset: any, ms: number, every = 20): any {
  const changed = structuredClone(dataset);
  changed.earn_offers.forEach((o: any, i: number) => {
    if (i % every !== 0) return;
    o.apy = o.estimated_apy = `${(i * 7) % 40}.${i % 97}`;
    o.updated_at = new Date(ms).toISOString();
  });
  return changed;
}

describe('index deltas (docs/adr/0017-index-deltas.md, docs/adr/0025-keep-what-pays.md)', () => {
  let table: TestTable;
  let dataset: any;
  let clock = T0;
  const PAGES = [
    '/api/v1/earn?limit=50',
    '/api/v1/earn?limit=20&sort=updated_desc',
    '/api/v1/earn?limit=20&offset=100&sort=apy_asc&asset=ethereum',
    '/api/v1/earn?limit=20&sort=tvl_desc&min_apy=10',
  ];
  const publish = async (next: any) => {
    clock += 60_000;
    dataset = next;
    return (await importDataset(next, { client: table.client, tableName: table.tableName, now: at(clock) })).versions
      .earn;
  };
  /** An instance that reads the pointer on every request: a publish is seen at once. */
  const instance = (of: TestTable = table) => of.api({ clock: () => NOW, env: { SNAPSHOT_CACHE_MS: '0' } });
  const request = async (api: TestApi, path: string) => {
    const { result, accounting } = await withRequestAccounting(() => invoke(api.offers as any, apiEvent(path)));
    expect(result.status).toBe(200);
    const { indexLoads, indexDeltas, readCapacity } = accounting.summary();
    return { body: result.body, indexLoads, indexDeltas, readCapacity };
  };
  const pointerOf = async () => (await readPointer(table.client, table.tableName))!.families.earn_offers!;

  beforeAll(async () => {
    table = await startTestTable();
    await publish(base(600));
  });
  afterAll(() => table.close());

  it('a warm instance reads the delta of a 5 % refresh instead of the index, and answers as a fresh instance does', async () => {
    const warm = instance();
    const cold = await request(warm, PAGES[0]);
    const v2 = await publish(refreshed(dataset, clock + 60_000));

    expect(await pointerOf()).toMatchObject({ version: v2, delta: { segments: 1 } });
    const after = await request(warm, PAGES[0]);
    expect(after).toMatchObject({ indexLoads: 0, indexDeltas: 1 });
    const fresh = instance();
    const full = await request(fresh, PAGES[0]);
    expect(full).toMatchObject({ indexLoads: 1, indexDeltas: 0 });
    expect(after.body).toEqual(full.body);
    // The delta and the page's blocks cost less than the index alone.
    expect(after.readCapacity).toBeLessThan(cold.readCapacity);
    for (const path of PAGES.slice(1))
      expect((await request(warm, path)).body).toEqual((await request(fresh, path)).body);
  });

  it('a request that finds its pointer half-way to expiry refreshes it ahead: the new version is built from its delta outside every request, and its first request reads neither index nor delta', async () => {
    let now = clock;
    const CACHE_MS = 10_000;
    const warm = table.api({
      clock: () => new Date(now),
      env: { SNAPSHOT_CACHE_MS: String(CACHE_MS), READ_CACHE_MB: '0' },
    });
    const { built } = warm.deps.stores.indexes;
    const before = await request(warm, PAGES[0]);
    const v2 = await publish(refreshed(dataset, clock + 60_000, 31));
    expect((await request(instance(), PAGES[0])).body).not.toEqual(before.body);

    // Before half the cache's time: the cached pointer, nothing read beside the request.
    now += CACHE_MS / 2 - 1;
    expect((await request(warm, PAGES[0])).body).toEqual(before.body);
    await warm.deps.stores.snapshot.settled();
    const idle = { ...built };

    // From half of it: still answered from the cached pointer, and the pointer read beside it.
    now += 1;
    const during = await request(warm, PAGES[0]);
    expect(during).toMatchObject({ body: before.body, indexLoads: 0, indexDeltas: 0 });
    await warm.deps.stores.snapshot.settled();
    expect(built).toEqual({ loads: idle.loads, deltas: idle.deltas + 1 });

    // The first request of the new version: as warm as any, and the answer of a fresh instance.
    const first = await request(warm, PAGES[0]);
    expect(first).toMatchObject({ indexLoads: 0, indexDeltas: 0 });
    expect(first.body).toEqual((await request(instance(), PAGES[0])).body);
    expect(first.readCapacity).toBe((await request(warm, PAGES[0])).readCapacity);
    expect((await pointerOf()).version).toBe(v2);
    for (const path of PAGES.slice(1))
      expect((await request(warm, path)).body).toEqual((await request(instance(), path)).body);
    expect(built).toEqual({ loads: idle.loads, deltas: idle.deltas + 1 });
  });

  it('an instance that does not hold the delta’s base (two publishes since its last request) loads the whole index', async () => {
    const warm = instance();
    await request(warm, PAGES[0]);
    await publish(refreshed(dataset, clock + 60_000, 23));
    await publish(refreshed(dataset, clock + 60_000, 29));

    const after = await request(warm, PAGES[0]);
    expect(after).toMatchObject({ indexLoads: 1, indexDeltas: 0 });
    expect(after.body).toEqual((await request(instance(), PAGES[0])).body);
  });

  it('a delta that does not decode: the whole index is loaded (the same answer), and a warning logged', async () => {
    const warm = instance();
    await request(warm, PAGES[0]);
    const v = await publish(refreshed(dataset, clock + 60_000, 31));
    // The delta the warm instance reads: against the version it holds.
    await table.client.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { PK: `V#${v}#DELTA`, SK: '000000', z: new Uint8Array([1, 2, 3]) },
      }),
    );
    const lines: string[] = [];
    setLogSink((line) => lines.push(line));
    try {
      const after = await request(warm, PAGES[0]);
      expect(after).toMatchObject({ indexLoads: 1, indexDeltas: 0 });
      expect(after.body).toEqual((await request(instance(), PAGES[0])).body);
    } finally {
      setLogSink(() => undefined);
    }
    expect(lines.map((line) => JSON.parse(line)).filter((line) => line.level === 'warn')).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'index delta not applied: the whole index is loaded',
        version: v,
      }),
    ]);
  });

  it('a refresh of every offer writes no delta (it would be most of the index): the next instance loads the index', async () => {
    const warm = instance();
    await request(warm, PAGES[0]);
    const v = await publish(refreshed(dataset, clock + 60_000, 1));

    expect(await pointerOf()).toMatchObject({ version: v });
    expect((await pointerOf()).delta).toBeUndefined();
    // Its items: its whole index and the manifest, no delta.
    expect((await partitionsOf(table, v)).filter((pk) => !pk.startsWith(SOURCE_PREFIX))).toEqual([
      `V#${v}#INDEX`,
      `V#${v}#MANIFEST`,
    ]);
    expect(await request(warm, PAGES[0])).toMatchObject({ indexLoads: 1, indexDeltas: 0 });
  });

  /** Every page's body on `api`, and the index loads and deltas applied they took. */
  const pages = async (api: TestApi) => {
    const { result, accounting } = await withRequestAccounting(async () => {
      const bodies: unknown[] = [];
      for (const path of [...PAGES, '/api/v1/earn/150']) {
        const res = await invoke(api.offers as any, apiEvent(path));
        expect(res.status).toBe(200);
        bodies.push(res.body);
      }
      return bodies;
    });
    const { indexLoads, indexDeltas } = accounting.summary();
    return { bodies: result, indexLoads, indexDeltas };
  };
  /** The pages as a first import answers them: the dataset imported into an empty table. */
  const answeredFirst = async () => {
    const other = await startTestTable();
    try {
      await importDataset(dataset, { client: other.client, tableName: other.tableName, now: at(clock) });
      return (await pages(instance(other))).bodies;
    } finally {
      await other.close();
    }
  };

  it('after a refresh of every offer and several 5 % refreshes, a warm instance (deltas) and a cold one (the whole index) answer as a first import does', async () => {
    const first = await publish(refreshed(dataset, clock + 60_000, 1));
    expect((await pointerOf()).delta).toBeUndefined();
    const warm = instance();
    expect(await pages(warm)).toMatchObject({ indexLoads: 1, indexDeltas: 0 });

    // Each 5 % refresh: its whole index, and a delta against the version it replaced.
    let replaced = first;
    for (const every of [20, 23, 29]) {
      const v = await publish(refreshed(dataset, clock + 60_000, every));
      expect(await pointerOf()).toMatchObject({ version: v, delta: { base: replaced } });
      expect((await partitionsOf(table, v)).filter((pk) => !pk.startsWith(SOURCE_PREFIX))).toEqual([
        `V#${v}#DELTA`,
        `V#${v}#INDEX`,
        `V#${v}#MANIFEST`,
      ]);
      const expected = await answeredFirst();
      const applied = await pages(warm);
      expect(applied).toMatchObject({ indexLoads: 0, indexDeltas: 1 });
      const cold = await pages(instance());
      expect(cold).toMatchObject({ indexLoads: 1, indexDeltas: 0 });
      expect(applied.bodies).toEqual(expected);
      expect(cold.bodies).toEqual(expected);
      replaced = v;
    }
  });

  it('a delta that decodes and applies but is not what the pointer names (issue 45) is refused: the warm instance loads the whole index and answers as published, as a cold one does', async () => {
    const warm = instance();
    await request(warm, PAGES[3]);
    const v = await publish(refreshed(dataset, clock + 60_000, 37));
    const state = await pointerOf();
    expect(state.delta?.hash).toMatch(/^[0-9a-f]{64}$/);
    const published = await request(instance(), PAGES[3]);
    const key = indexDeltaKey(v!, 0);
    const { Item: stored } = await table.client.send(new GetCommand({ TableName: table.tableName, Key: key }));
    const delta = decodeIndexDelta(v!, [stored]);
    // Moved entries placed in each other's places: still a permutation, a wrong order.
    const [mode, [places, entries]] = Object.entries(delta.orders).find(([, [, e]]) => e.length >= 2)!;
    const tampered = { ...delta, orders: { ...delta.orders, [mode]: [places, [...entries].reverse()] } };
    const [item] = encodeIndexDelta(v!, tampered as typeof delta);
    await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...key, z: item.z } }));
    try {
      const after = await request(warm, PAGES[3]);
      expect(after).toMatchObject({ body: published.body, indexLoads: 1, indexDeltas: 0 });
      expect((await request(instance(), PAGES[3])).body).toEqual(published.body);
    } finally {
      await table.client.send(new PutCommand({ TableName: table.tableName, Item: stored! }));
    }
  });
});

// ---- refreshes -----------------------------------------------------------------------------------

describe('a refresh', () => {
  let table: TestTable;
  const changed = withApy(base(), 150, '77.125');

  beforeAll(async () => {
    table = await startTestTable();
    await importDataset(base(), { client: table.client, tableName: table.tableName, now: at(T0) });
  });
  afterAll(() => table.close());

  it('writes only the blocks whose content changed, and the changed family’s index and source', async () => {
    const before = await storedBlocks(table);
    const { result, recording } = await recordedImport(table, changed, { now: at(T0 + 1_000) });

    const after = await storedBlocks(table);
    const newBlocks = [...after.keys()].filter((h) => !before.has(h)).sort();
    const putBlocks = recording
      .puts()
      .flatMap((i) => (i.PK.startsWith(DOCUMENT_PREFIX) ? [i.PK.slice(DOCUMENT_PREFIX.length)] : []));
    expect(result.published).toEqual(['earn']);
    expect(putBlocks.sort()).toEqual(newBlocks);
    expect(putBlocks.length).toBeGreaterThanOrEqual(1);
    expect(putBlocks.length).toBeLessThanOrEqual(2);
    // The new blocks hold earn documents, one of them the changed offer's.
    const docs = putBlocks.flatMap((h) => after.get(h)!.map((d) => JSON.parse(d)));
    expect(docs.every((d) => String(d.compositeKey).startsWith('earn:'))).toBe(true);
    expect(docs.filter((d) => d.id === 150).map((d) => d.apy)).toEqual(['77.125']);
    // Besides them: the new earn version's manifest, its index and its delta against the replaced
    // version's, its new records' source, and nothing of any other version.
    const version = result.versions.earn;
    const others = recording.puts().filter((i) => !i.PK.startsWith(DOCUMENT_PREFIX));
    expect([...new Set(others.map((i) => i.PK))].sort()).toEqual([
      EARN_SOURCE,
      `V#${version}#DELTA`,
      `V#${version}#INDEX`,
      `V#${version}#MANIFEST`,
    ]);
    expect(recording.deletes()).toEqual([]);
  });

  it('writes nothing but its refresh time when nothing changed', async () => {
    const { result, recording } = await recordedImport(table, changed, { now: at(T0 + 2_000) });

    expect(result).toMatchObject({ unchanged: true, published: [], itemsWritten: 0, itemsDeleted: 0 });
    // `refreshed_at` of GET /api/v1/status moves (docs/api.md, "Freshness"): one small UpdateItem beside the pointer.
    expect(recording.writes()).toBe(1);
    expect(
      recording
        .sent()
        .filter((c) => /Put|BatchWrite|Delete|Update/.test(c.name))
        .map((c) => [c.name, c.input.Key]),
    ).toEqual([['UpdateCommand', refreshedKey()]]);
  });

  it('a version of the same records (its figures moved with the next hour) names the stored source records and writes none', async () => {
    const before = await readPointer(table.client, table.tableName);
    const { result, recording } = await recordedImport(table, changed, {
      now: at(T0 + 3_600_000),
      recordHistory: true,
    });

    // New earn and borrow versions (their figures are as of the new hour) over the same records.
    expect(result.published).toEqual(expect.arrayContaining(['earn', 'borrow']));
    expect(result.versions.earn).not.toBe(before!.families.earn_offers!.version);
    expect(recording.puts().filter((i) => String(i.PK).startsWith(SOURCE_PREFIX))).toEqual([]);
    const writer = new VersionWriter(table.client, table.tableName);
    const sources = async (version: string) =>
      (await writer.readManifest(version)).blocks.filter((name) => name.startsWith(SOURCE_PREFIX));
    expect(await sources(result.versions.earn!)).toEqual(await sources(before!.families.earn_offers!.version!));
    const stored = new Set((await table.items()).map((i) => i.PK));
    expect((await sourcesOf(table, result.versions.earn!)).length).toBeGreaterThan(0);
    expect((await sourcesOf(table, result.versions.earn!)).filter((pk) => !stored.has(pk))).toEqual([]);
  });
});

// ---- deletion ------------------------------------------------------------------------------------

describe('deletion', () => {
  let table: TestTable;

  beforeAll(async () => {
    table = await startTestTable();
  });
  afterAll(() => table.close());

  it('after the retention, deletes the replaced version’s items and the blocks only it named; every block a kept version names stays', async () => {
    const writer = new VersionWriter(table.client, table.tableName);
    const earnVersion = async () => (await readPointer(table.client, table.tableName))!.families.earn_offers!.version!;
    const one = withApy(base(), 150, '1.125');
    const two = withApy(one, 400, '2.125'); // another offer, of another asset: another block
    await importDataset(base(), { client: table.client, tableName: table.tableName, now: at(T0) });
    const v1 = await earnVersion();
    await importDataset(one, { client: table.client, tableName: table.tableName, now: at(T0 + 1_000) });
    const v2 = await earnVersion();
    // Within its retention, the replaced version is whole (its source chunk is v2's too: one offer changed).
    expect(await partitionsOf(table, v1)).toEqual([`V#${v1}#INDEX`, `V#${v1}#MANIFEST`]);
    expect(await unnamedSources(table)).toEqual([]);
    const named1 = (await writer.readManifest(v1)).blocks;

    const result = await importDataset(two, {
      client: table.client,
      tableName: table.tableName,
      now: at(T0 + 601_000),
      retireAfterMs: 600_000,
    });

    const v3 = await earnVersion();
    const [named2, named3] = [(await writer.readManifest(v2)).blocks, (await writer.readManifest(v3)).blocks];
    // What a manifest may name: document blocks (by hash) and shared source chunks.
    const stored = new Set([
      ...(await storedBlocks(table)).keys(),
      ...(await table.items()).flatMap((i) => (String(i.PK).startsWith(SOURCE_PREFIX) ? [String(i.PK)] : [])),
    ]);
    const onlyV1 = named1.filter((b) => !named2.includes(b) && !named3.includes(b));
    expect(result.itemsDeleted).toBeGreaterThan(0);
    expect(await partitionsOf(table, v1)).toEqual([]);
    // v1's source records went with it: every stored source is one a kept version names.
    expect(await unnamedSources(table)).toEqual([]);
    expect((await readPointer(table.client, table.tableName))!.retired.map((r) => r.version)).toEqual([v2]);
    expect(onlyV1.length).toBeGreaterThan(0);
    expect(onlyV1.filter((b) => stored.has(b))).toEqual([]);
    expect(named3.filter((b) => !stored.has(b))).toEqual([]);
    expect(named2.filter((b) => !stored.has(b))).toEqual([]);
    // The other families' versions are untouched: their blocks are all stored.
    const pointer = await readPointer(table.client, table.tableName);
    for (const family of ['exchanges', 'protocols', 'currencies', 'borrow_offers']) {
      const version = pointer!.families[family]!.version!;
      expect({ family, missing: (await writer.readManifest(version)).blocks.filter((b) => !stored.has(b)) }).toEqual({
        family,
        missing: [],
      });
    }
  });
});

// ---- leases (audit issue 23, item 7) -------------------------------------------------------------

describe('leases', () => {
  let table: TestTable;

  beforeEach(async () => {
    table = await startTestTable();
    await importDataset(base(), { client: table.client, tableName: table.tableName, now: at(T0) });
  });
  afterEach(() => table.close());

  /** An import of `dataset` that writes its versions and fails at the publishing write: returns the versions it left. */
  async function abandoned(dataset: unknown, time: number): Promise<string[]> {
    const flaky = recordingClient(table, { kind: PutCommand, healthy: 0 });
    try {
      await expect(
        importDataset(dataset, { client: flaky.client, tableName: table.tableName, now: at(time) }),
      ).rejects.toThrow(/ECONNRESET/);
      await flaky.settled();
    } finally {
      flaky.close();
    }
    return (await readPointer(table.client, table.tableName))!.lease!.writing;
  }

  it('an import killed while deleting an earlier failed import’s versions leaves them on the lease; the next import deletes them', async () => {
    const [y] = await abandoned(withApy(base(), 150, '11.5'), T0 + 1_000);
    expect(await partitionsOf(table, y)).toEqual([EARN_SOURCE, `V#${y}#DELTA`, `V#${y}#INDEX`, `V#${y}#MANIFEST`]);
    const next = withApy(base(), 151, '12.5');

    // Killed after its first batch write: the deletion of y's own items, before its manifest's.
    const killed = recordingClient(table, { kind: BatchWriteCommand, healthy: 1, dies: true });
    try {
      await expect(
        importDataset(next, { client: killed.client, tableName: table.tableName, now: at(T0 + 2_000) }),
      ).rejects.toThrow(/ECONNRESET/);
      await killed.settled();
    } finally {
      killed.close();
    }
    expect(killed.deletes().map((k) => k.PK)).toContain(`V#${y}#DELTA`);
    expect(await partitionsOf(table, y)).toEqual([`V#${y}#MANIFEST`]);
    const lease = (await readPointer(table.client, table.tableName))!.lease!;
    expect(lease.writing).toContain(y);
    // Nobody gave the lease back: the next import waits for it to expire (and the grace for clocks
    // that disagree), then takes it over.
    await expect(
      importDataset(next, { client: table.client, tableName: table.tableName, now: at(T0 + 3_000) }),
    ).rejects.toBeInstanceOf(ImportBusyError);
    const result = await importDataset(next, {
      client: table.client,
      tableName: table.tableName,
      now: at(lease.until + TAKEOVER_GRACE_MS + 1),
    });

    expect(result.published).toEqual(['earn']);
    expect(await partitionsOf(table, y)).toEqual([]);
    expect((await readPointer(table.client, table.tableName))!.lease).toBeUndefined();
  });

  it('an abandoned version that is still retained (a reader may name it) is not deleted', async () => {
    const earnVersion = async () => (await readPointer(table.client, table.tableName))!.families.earn_offers!.version!;
    const v1 = await earnVersion();
    await importDataset(withApy(base(), 150, '11.5'), {
      client: table.client,
      tableName: table.tableName,
      now: at(T0 + 1_000),
    });
    // v1 is replaced, retained for 60 minutes. An import of v1's content again fails at its publish: v1 is on the lease
    // (imported at v1's refresh time: an earn version's identity includes when its figures were computed).
    expect(await abandoned(base(), T0)).toEqual([v1]);

    await importDataset(withApy(base(), 151, '12.5'), {
      client: table.client,
      tableName: table.tableName,
      now: at(T0 + 3_000),
    });

    const retired = (await readPointer(table.client, table.tableName))!.retired.find((r) => r.version === v1);
    expect(retired).toBeDefined();
    expect(await partitionsOf(table, v1)).toEqual([`V#${v1}#DELTA`, `V#${v1}#INDEX`, `V#${v1}#MANIFEST`]);
    const records = await new VersionWriter(table.client, table.tableName).readSource(
      v1,
      'earn_offers',
      RECORD_SCHEMA.earn_offers,
    );
    expect(records).toEqual(parseDataset(base()).earn_offers);
    // A reader that names it (a cached pointer, a pinned list) still loads its index.
    const index = await table
      .api({ clock: () => NOW })
      .deps.stores.indexes.retired(v1, { ...retired!, segments: retired!.segments! });
    expect(index.size).toBe(base().earn_offers.filter((o: any) => o.published !== false).length);
  });
});
