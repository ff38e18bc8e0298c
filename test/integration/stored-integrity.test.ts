/**
 * What is read is checked, not trusted (issue 32; CONTRACT §8 "a stored item that cannot be
 * decoded", §11 changes), on the embedded DynamoDB with items changed in the table itself, each
 * request answered by a fresh instance (nothing kept: its indexes and blocks are read again)
 * unless a test says otherwise:
 *
 * - a document block whose content is not what its key hashes, or a document that is not the one
 *   its index entry names, is a 500 `internal_error` logged with the block, never a 200;
 * - a replaced version whose index is there but does not decode is a 500, not a 410 (which would
 *   hide it from the 5xx alarms); one whose index is gone is a 410 `snapshot_expired`;
 * - a changes `since` newer than the newer end is a `validation_error` naming `since`.
 */

import { gzipSync } from 'node:zlib';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { indexOf, type OfferIndex } from '../../shared/data/family-index';
import { encodeBlock } from '../../shared/data/items/document-block';
import { encodeIndex } from '../../shared/data/items/index-segment';
import { documentBlockKey, indexSegmentKey, type Key, type VersionedFamily } from '../../shared/data/keys';
import { VersionWriter } from '../../shared/data/version-writer';
import { importDataset } from '../../shared/import/importer';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset } from '../fixtures/dataset';
import { apiEvent, startTestTable, type TestTable } from '../helpers/embedded';

type Item = Record<string, unknown>;

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const MINUTE = 60_000;
const NOW = new Date(T0 + 10 * MINUTE);

let table: TestTable;
/** The earn versions of three imports: [0] and [1] replaced, [2] served. */
const earn: string[] = [];
let logLines: string[];

/** The fixture with offer 1's APY changed: a new earn version. */
function revised(apy: string) {
  const dataset = fixtureDataset();
  dataset.earn_offers[0] = { ...dataset.earn_offers[0], apy };
  return dataset;
}

/** An instance's answer to `path` (the offers or the platforms function): a fresh one's unless `api` is given. */
async function answer(fn: 'offers' | 'platforms', path: string, api = table.api({ clock: () => NOW })) {
  const result = await api[fn](apiEvent(path, { perMinute: 1000, perMonth: 100_000 }), {} as never);
  return { status: result.statusCode, body: JSON.parse(result.body ?? '') };
}

const internalError = {
  status: 500,
  body: { error: { code: 'internal_error', message: expect.any(String), details: null } },
};

/** The items a test changed, put back after it. */
let saved: Item[] = [];

async function change(key: Key, edit: (item: Item) => Item | undefined): Promise<void> {
  const { Item: item } = await table.client.send(new GetCommand({ TableName: table.tableName, Key: key }));
  if (!item) throw new Error(`no item ${key.PK}`);
  saved.push(item);
  const edited = edit(structuredClone(item));
  if (edited) await table.client.send(new PutCommand({ TableName: table.tableName, Item: edited }));
  else await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: key }));
}

/** The served version of a family and its index as stored (its own items, `V#<version>#INDEX`). */
async function served(family: VersionedFamily) {
  const version = (await table.api({ clock: () => NOW }).deps.stores.snapshot.versions()).served[family]!;
  const data = await new VersionWriter(table.client, table.tableName).readIndex(version.version, version);
  return { version: version.version, data };
}

beforeAll(async () => {
  table = await startTestTable({ READ_CACHE_MB: '0' });
  for (const [i, dataset] of [fixtureDataset(), revised('6.5'), revised('7.5')].entries()) {
    await importDataset(dataset, {
      client: table.client,
      tableName: table.tableName,
      now: () => new Date(T0 + i * MINUTE),
    });
    earn.push((await answer('offers', '/api/v1/earn?limit=1')).body.pagination.snapshot);
  }
  expect(new Set(earn).size).toBe(3);
}, 60_000);

beforeEach(() => {
  logLines = [];
  setLogSink((line) => logLines.push(line));
});

afterEach(async () => {
  for (const item of saved.reverse())
    await table.client.send(new PutCommand({ TableName: table.tableName, Item: item }));
  saved = [];
  setLogSink(() => undefined);
});

afterAll(() => table?.close());

describe('a document block is checked against its key', () => {
  it('a block whose content is not what its key hashes ({"id":"x"} in every slot) is a 500 logged with the block', async () => {
    const { version, data } = await served('earn');
    const index = indexOf(version, data) as OfferIndex;
    const { block } = index.ref(index.entry(1)!);
    await change(documentBlockKey(block), (item) => ({
      ...item,
      z: encodeBlock(block, Array(24).fill('{"id":"x"}')).z,
    }));

    expect(await answer('offers', '/api/v1/earn/1')).toEqual(internalError);
    expect(await answer('offers', '/api/v1/earn?limit=200')).toEqual(internalError);
    expect(logLines.filter((line) => line.includes('unhandled error') && line.includes(block))).toHaveLength(2);
  });

  it('an instance that read a block refuses it once its content changes (no block kept: read and hashed again)', async () => {
    const { version, data } = await served('earn');
    const index = indexOf(version, data) as OfferIndex;
    const { block } = index.ref(index.entry(1)!);
    const api = table.api({ clock: () => NOW });
    expect((await answer('offers', '/api/v1/earn/1', api)).status).toBe(200);
    // Read again with the bytes it verified: not hashed again, still served.
    expect((await answer('offers', '/api/v1/earn/1', api)).status).toBe(200);

    await change(documentBlockKey(block), (item) => ({
      ...item,
      z: encodeBlock(block, Array(24).fill('{"id":1}')).z,
    }));

    expect(await answer('offers', '/api/v1/earn/1', api)).toEqual(internalError);
  });

  it('a block holding the documents of another block of its family is a 500', async () => {
    const { version, data } = await served('earn');
    const index = indexOf(version, data) as OfferIndex;
    const blocks = data.blocks;
    expect(blocks.length).toBeGreaterThan(1);
    const { block } = index.ref(index.entry(1)!);
    const other = blocks.find((b) => b !== block)!;
    const { Item: otherItem } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: documentBlockKey(other) }),
    );
    await change(documentBlockKey(block), (item) => ({ ...item, z: otherItem!.z }));

    expect(await answer('offers', '/api/v1/earn/1')).toEqual(internalError);
  });
});

describe('a served document is the one its index entry names', () => {
  it("an offer entry whose id is not its document's is a 500", async () => {
    const { version, data } = await served('earn');
    const entry = (data as OfferIndex['data']).ids.indexOf(1);
    (data as OfferIndex['data']).ids[entry] = 999_999;
    const [segment] = encodeIndex(version, data);
    await change(indexSegmentKey(version, 0), () => segment);

    expect(await answer('offers', '/api/v1/earn/999999')).toEqual(internalError);
  });

  it("a platform entry whose slug is not its document's is a 500", async () => {
    const { version, data } = await served('exchanges');
    if (data.kind !== 'catalog') throw new Error('not a catalog index');
    data.slugs[data.slugs.indexOf('binance')] = 'not-binance';
    const [segment] = encodeIndex(version, data);
    await change(indexSegmentKey(version, 0), () => segment);

    expect(await answer('platforms', '/api/v1/exchanges/not-binance')).toEqual(internalError);
  });
});

describe('a replaced version', () => {
  it('whose index does not decode is a 500 for `snapshot` and `since`, never a 410', async () => {
    await change(indexSegmentKey(earn[0], 0), (item) => ({ ...item, z: gzipSync('{"kind":"offers"}') }));

    expect(await answer('offers', `/api/v1/earn?snapshot=${earn[0]}`)).toEqual(internalError);
    expect(await answer('offers', `/api/v1/earn/changes?since=${earn[0]}`)).toEqual(internalError);
  });

  it('whose index is gone (deleted after its retention) is a 410 snapshot_expired naming the parameter', async () => {
    await change(indexSegmentKey(earn[0], 0), () => undefined);

    for (const [path, parameter] of [
      [`/api/v1/earn?snapshot=${earn[0]}`, 'snapshot'],
      [`/api/v1/earn/changes?since=${earn[0]}`, 'since'],
    ]) {
      const res = await answer('offers', path);
      expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
        410,
        'snapshot_expired',
        { parameter },
      ]);
    }
  });

  it('reads as usual when nothing is changed', async () => {
    const res = await answer('offers', `/api/v1/earn?snapshot=${earn[0]}&limit=1`);
    expect([res.status, res.body.pagination.snapshot]).toEqual([200, earn[0]]);
  });
});

/**
 * Issue 45 (H2): an index that still decodes but is not what the pointer names (its content hash)
 * is never served: a cold instance answers 500, a warm one that holds the index answers it as
 * published; none answers a wrong 200 (a delta: test/integration/family-index.test.ts).
 */
describe('an index is checked against the hash the pointer names', () => {
  /** The served earn answer of `min_apy=7`: offer 1 (7.5 %) among it, as published. */
  const MIN_APY = '/api/v1/earn?min_apy=7&sort=apy_desc&limit=50';
  const idsOf = (res: { body: { data: { id: number }[] } }) => res.body.data.map((o) => o.id);

  it('an index whose order is moved (still a permutation) is a 500 on a cold instance; a warm one answers as published', async () => {
    const published = await answer('offers', MIN_APY);
    expect(idsOf(published)).toContain(1);
    const warm = table.api({ clock: () => NOW });
    expect(await answer('offers', MIN_APY, warm)).toEqual(published);
    const { version, data: stored } = await served('earn');
    const data = structuredClone(stored) as OfferIndex['data'];
    // The last entry of apy_desc moved to its head: the list would count an offer that does not pass.
    const order = Array.from(data.orders.apy_desc!);
    data.orders.apy_desc = [order[order.length - 1], ...order.slice(0, -1)] as never;
    const [segment] = encodeIndex(version, data);
    await change(indexSegmentKey(version, 0), (item) => ({ ...item, z: segment.z }));

    expect(await answer('offers', MIN_APY)).toEqual(internalError);
    expect(logLines.join('\n')).toMatch(/does not match the hash the pointer names/);
    expect(await answer('offers', MIN_APY, warm)).toEqual(published);
  });
});

describe('changes: `since` newer than the newer end', () => {
  it.each([
    ['the served version since a replaced one pinned by snapshot', 2, 1, 'snapshot'],
    ['a replaced version since an older replaced one', 1, 0, 'snapshot'],
  ])('%s is a validation_error naming since', async (_case, since, snapshot, end) => {
    const res = await answer('offers', `/api/v1/earn/changes?since=${earn[since]}&snapshot=${earn[snapshot]}`);

    expect(res).toEqual({
      status: 400,
      body: {
        error: {
          code: 'validation_error',
          message: expect.any(String),
          details: { message: [`since must not name a version newer than ${end}`] },
        },
      },
    });
  });

  it('the older end as since (or both the same) answers the difference', async () => {
    const forward = await answer('offers', `/api/v1/earn/changes?since=${earn[0]}&snapshot=${earn[1]}`);
    expect([forward.status, forward.body.data.map((d: { id: number; change: string }) => [d.id, d.change])]).toEqual([
      200,
      [[1, 'changed']],
    ]);
    const same = await answer('offers', `/api/v1/earn/changes?since=${earn[2]}`);
    expect([same.status, same.body.data]).toEqual([200, []]);
  });
});
