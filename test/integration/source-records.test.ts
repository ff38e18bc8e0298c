/**
 * Source records stored like documents (docs/adr/0016-source-records-by-content.md), on the
 * embedded DynamoDB through the real import:
 *
 * - a refresh that changes a few records writes one source chunk, holding exactly those records,
 *   and the records read back are those imported;
 * - a served version whose source chunk does not decode does not stop the next refresh, which
 *   cuts its records as a first version's and writes the corrupt chunk again;
 * - a manifest naming no source records is corrupt (one layout: no reader of another);
 * - garbage collection keeps every source chunk a served or retained version names, and deletes
 *   the chunks no kept version names once their versions are due.
 */
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { deleteItems } from '../../shared/data/batch-writer';
import { encodeManifest } from '../../shared/data/items/manifest';
import { decodeSourceChunk } from '../../shared/data/items/source-records';
import { manifestPartition, SOURCE_PREFIX, sharedItemKey } from '../../shared/data/keys';
import { queryAll } from '../../shared/data/query-all';
import { VersionWriter } from '../../shared/data/version-writer';
import { parseDataset, RECORD_SCHEMA } from '../../shared/import/dataset';
import { importDataset, readPointer } from '../../shared/import/importer';
import { CorruptDataError } from '../../shared/platform/errors';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { startTestTable, type TestTable } from '../helpers/embedded';
import { injectFaults } from '../helpers/faults';
import { ASSETS, earnRecord } from '../helpers/records';

const T0 = NOW.getTime();
const at = (ms: number) => () => new Date(ms);

/** The fixture's platforms, currencies and borrow offers, and 1,500 more earn offers: several source chunks. */
function base(): any {
  const { exchanges, protocols, currencies, earn_offers, borrow_offers } = fixtureDataset();
  const generated = Array.from({ length: 1_500 }, (_, i) =>
    earnRecord(100 + i, `${(i * 7) % 30}.${i % 100}`, { asset: ASSETS[i % 3] }),
  );
  return { exchanges, protocols, currencies, earn_offers: [...earn_offers, ...generated], borrow_offers };
}

/** `dataset` with the APY of the earn offers `ids` moved (each its record and document changed). */
function withApy(dataset: any, ids: number[], apy: string): any {
  const changed = structuredClone(dataset);
  for (const offer of changed.earn_offers)
    if (ids.includes(offer.id)) Object.assign(offer, { apy, estimated_apy: apy });
  return changed;
}

const earnVersion = async (table: TestTable) =>
  (await readPointer(table.client, table.tableName))!.families.earn_offers!.version!;

const readEarn = (table: TestTable, version: string) =>
  new VersionWriter(table.client, table.tableName).readSource(version, 'earn_offers', RECORD_SCHEMA.earn_offers);

/** The source partitions a version's manifest names. */
async function sourcesOf(table: TestTable, version: string): Promise<string[]> {
  return (await new VersionWriter(table.client, table.tableName).readManifest(version)).blocks
    .filter((name) => name.startsWith(SOURCE_PREFIX))
    .map((name) => sharedItemKey(name).PK);
}

/** The source partitions the versions the pointer names (served and retired, of every family) name. */
async function keptSources(table: TestTable): Promise<Set<string>> {
  const pointer = await readPointer(table.client, table.tableName);
  const versions = [
    ...Object.values(pointer?.families ?? {}).flatMap((s) => (s?.version ? [s.version] : [])),
    ...(pointer?.retired ?? []).map((r) => r.version),
  ];
  return new Set((await Promise.all(versions.map((version) => sourcesOf(table, version)))).flat());
}

/** Every source partition stored. */
const storedSources = async (table: TestTable) =>
  new Set((await table.items()).flatMap((i) => (String(i.PK).startsWith(SOURCE_PREFIX) ? [String(i.PK)] : [])));

/** The items `work` puts through BatchWriteItem on `client` (captured by a middleware step of the real client). */
async function puts(client: DynamoDBDocumentClient, work: () => Promise<unknown>) {
  const items: Record<string, any>[] = [];
  const capture = injectFaults([client], (call) => {
    if (call.command === 'BatchWriteItemCommand')
      for (const requests of Object.values(call.input.RequestItems as Record<string, any[]>))
        for (const r of requests) if (r.PutRequest) items.push(r.PutRequest.Item);
    return undefined;
  });
  try {
    await work();
  } finally {
    capture.remove();
  }
  return items;
}

describe('a refresh', () => {
  let table: TestTable;

  beforeAll(async () => {
    table = await startTestTable();
  });
  afterAll(() => table.close());

  it('that changes three records writes one source chunk holding exactly those, and reads back what it imported', async () => {
    await importDataset(base(), { client: table.client, tableName: table.tableName, now: at(T0) });
    const before = await earnVersion(table);
    const changed = withApy(base(), [150, 800, 1_450], '42.5');

    const written = await puts(table.client, () =>
      importDataset(changed, { client: table.client, tableName: table.tableName, now: at(T0 + 1_000) }),
    );

    const version = await earnVersion(table);
    const sources = written.filter((i) => String(i.PK).startsWith(SOURCE_PREFIX));
    const records = parseDataset(changed).earn_offers!;
    expect(sources).toHaveLength(1);
    expect(decodeSourceChunk(sources[0].PK.slice(SOURCE_PREFIX.length), 'earn_offers', sources[0])).toEqual(
      records.filter((r) => [150, 800, 1_450].includes(r.id)).map((r) => JSON.stringify(r)),
    );
    // The version names the served version's chunks (several: 1,500 records) for the others.
    const named = await sourcesOf(table, version);
    expect((await sourcesOf(table, before)).length).toBeGreaterThan(1);
    expect(named).toEqual([...(await sourcesOf(table, before)), sources[0].PK]);
    expect(await readEarn(table, version)).toEqual(records);
    expect(await readEarn(table, before)).toEqual(parseDataset(base()).earn_offers);
  });
});

describe('a served version whose source chunk does not decode', () => {
  let table: TestTable;

  beforeAll(async () => {
    table = await startTestTable();
  });
  afterAll(() => table.close());

  it('does not stop a refresh: its records are cut as a first version’s, and the corrupt chunk is written again', async () => {
    await importDataset(base(), { client: table.client, tableName: table.tableName, now: at(T0) });
    const before = await sourcesOf(table, await earnVersion(table));
    // The second chunk (ids about 630–1,180) does not decode; the refresh changes a record of the first.
    await table.client.send(
      new PutCommand({ TableName: table.tableName, Item: { PK: before[1], SK: 'SRC', z: new Uint8Array([1, 2, 3]) } }),
    );
    const changed = withApy(base(), [150], '42.5');

    const written = await puts(table.client, () =>
      importDataset(changed, { client: table.client, tableName: table.tableName, now: at(T0 + 1_000) }),
    );

    const version = await earnVersion(table);
    const named = await sourcesOf(table, version);
    expect(named).toHaveLength(before.length);
    expect(named[0]).not.toBe(before[0]);
    expect(named.slice(1)).toEqual(before.slice(1));
    expect(written.filter((i) => String(i.PK).startsWith(SOURCE_PREFIX)).map((i) => i.PK)).toEqual(
      expect.arrayContaining(named.slice(0, 2)),
    );
    expect(await readEarn(table, version)).toEqual(parseDataset(changed).earn_offers);
  });
});

describe('one layout of source records', () => {
  let table: TestTable;

  beforeEach(async () => {
    table = await startTestTable();
    await importDataset(base(), { client: table.client, tableName: table.tableName, now: at(T0) });
  });
  afterEach(() => table.close());

  it('a manifest that names no source records is corrupt: no other layout is read', async () => {
    const writer = new VersionWriter(table.client, table.tableName);
    const version = await earnVersion(table);
    const { keys, blocks, figures } = await writer.readManifest(version);
    const old = await queryAll(table.client, {
      TableName: table.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': manifestPartition(version) },
    });
    await deleteItems(
      old.map((i) => ({ PK: String(i.PK), SK: String(i.SK) })),
      { client: table.client, tableName: table.tableName },
    );
    const manifest = encodeManifest(version, {
      keys,
      blocks: blocks.filter((b) => !b.startsWith(SOURCE_PREFIX)),
      ...(figures ? { figures } : {}),
    });
    for (const Item of manifest) await table.client.send(new PutCommand({ TableName: table.tableName, Item }));

    await expect(readEarn(table, version)).rejects.toThrow(CorruptDataError);
  });
});

describe('garbage collection', () => {
  let table: TestTable;

  beforeAll(async () => {
    table = await startTestTable();
  });
  afterAll(() => table.close());

  it('keeps every source chunk a served or retained version names, and deletes those only due versions named', async () => {
    const run = (dataset: unknown, ms: number) =>
      importDataset(dataset, {
        client: table.client,
        tableName: table.tableName,
        now: at(T0 + ms),
        retireAfterMs: 600_000,
      });
    const v: string[] = [];
    const all = withApy(
      base(),
      Array.from({ length: 1_500 }, (_, i) => 100 + i),
      '9.5',
    );
    for (const [dataset, ms] of [
      [base(), 0], // v1: chunks A
      [withApy(base(), [150], '1.5'), 1_000], // v2: A and B (one record)
      [all, 2_000], // v3: every record changed: chunks C only
      [withApy(all, [150], '2.5'), 601_500], // v4: C and D; v1 is due (v2 still names A)
    ] as const) {
      await run(dataset, ms);
      v.push(await earnVersion(table));
    }
    const [a, b, c, d] = [
      await sourcesOf(table, v[0]),
      await sourcesOf(table, v[1]),
      await sourcesOf(table, v[2]),
      await sourcesOf(table, v[3]),
    ];
    expect(b.slice(0, a.length)).toEqual(a);
    expect(c.filter((pk) => b.includes(pk))).toEqual([]);
    expect(d.slice(0, c.length)).toEqual(c);
    // v1 is deleted; v2 (retained) still names A, so A stays; every retained and served version reads whole.
    let stored = await storedSources(table);
    let named = await keptSources(table);
    expect([...stored].filter((pk) => !named.has(pk))).toEqual([]);
    expect([...new Set([...b, ...c, ...d])].filter((pk) => !stored.has(pk))).toEqual([]);
    expect(await readEarn(table, v[1])).toEqual(parseDataset(withApy(base(), [150], '1.5')).earn_offers);
    expect(await readEarn(table, v[3])).toEqual(parseDataset(withApy(all, [150], '2.5')).earn_offers);

    // v2 and v3 due: A and B go (no kept version names them), C stays (v4 and v5 name it).
    await run(withApy(all, [151], '3.5'), 1_300_000);
    const e = await sourcesOf(table, await earnVersion(table));
    stored = await storedSources(table);
    named = await keptSources(table);
    expect(b.filter((pk) => stored.has(pk))).toEqual([]);
    expect([...new Set([...d, ...e])].filter((pk) => !stored.has(pk))).toEqual([]);
    expect([...stored].filter((pk) => !named.has(pk))).toEqual([]);
  });
});
