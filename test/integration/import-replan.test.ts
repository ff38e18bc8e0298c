/**
 * An import that another import overtakes between its first plan and its lease (docs/adr/0006-live-data.md):
 * under the lease it plans again against what is now served, records the versions of that plan
 * on the lease before writing them, and publishes them. If it is then interrupted, the next
 * import deletes what it wrote, because the lease named it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { pointerKey, SNAPSHOT_PREFIX } from '../../shared/data/keys';
import { importDataset, readPointer } from '../../shared/import/importer';
import { createDocumentClient } from '../../shared/platform/dynamodb';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable, versionOfPartition } from '../helpers/embedded';

let table: TestTable;
let api: TestApi;
/** The overtaken import's own client, where the test hooks in. */
let overtaken: DynamoDBDocumentClient;
let now = NOW.getTime();
const clock = () => new Date(now);
const importWith = (client: DynamoDBDocumentClient, dataset: unknown) =>
  importDataset(dataset, { client, tableName: table.tableName, now: clock });

beforeAll(async () => {
  table = await startTestTable();
  api = table.api({ clock, env: { SNAPSHOT_CACHE_MS: '0', READ_CACHE_MB: '0' } });
  overtaken = createDocumentClient({ endpoint: table.endpoint });
  await importWith(table.client, fixtureDataset());
});
afterAll(async () => {
  overtaken.destroy();
  await table.close();
});

/** An earn refresh: offer 3's APY changed. */
function earnRefresh(apy: string) {
  const earn = fixtureDataset().earn_offers.map((o: any) => (o.id === 3 ? { ...o, apy } : o));
  return { earn_offers: earn };
}

/** An exchanges file that renames kraken, which earn offer 3 renders. */
function krakenRenamed(name: string) {
  const exchanges = fixtureDataset().exchanges.map((e: any) => (e.slug === 'kraken' ? { ...e, name } : e));
  return { exchanges };
}

/**
 * Run `first` just before `client` asks for the import lease (once): its first write of the
 * pointer item, which an import makes to take the lease before writing anything else. With
 * `fail`, let the import's first batch write through and fail the ones after it.
 */
function overtakeAtLease(client: DynamoDBDocumentClient, first: () => Promise<unknown>, fail?: Error): () => void {
  let done = false;
  let batches = 0;
  const name = 'overtake-at-lease';
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const { Key, Item } = args.input as { Key?: Record<string, unknown>; Item?: Record<string, unknown> };
      const target = Key ?? Item;
      const isLease =
        ['UpdateItemCommand', 'PutItemCommand'].includes(context.commandName ?? '') &&
        target?.PK === pointerKey().PK &&
        target?.SK === pointerKey().SK;
      if (isLease && !done) {
        done = true;
        await first();
      }
      if (fail && done && context.commandName === 'BatchWriteItemCommand' && ++batches > 1) throw fail;
      return next(args);
    },
    { step: 'initialize', name, override: true },
  );
  return () => client.middlewareStack.remove(name);
}

const storedVersions = async () =>
  new Set(
    (await table.items()).flatMap((i) =>
      (i.PK as string).startsWith(SNAPSHOT_PREFIX) ? [versionOfPartition(i.PK as string)!] : [],
    ),
  );
const earn3 = async () =>
  (await invoke(api.offers, apiEvent('/api/v1/earn/3', { keyId: 'k-replan', perMinute: 1e6, perMonth: 1e9 }))).body;

it('plans again under the lease and publishes what renders the platforms now served', async () => {
  now += 60_000;
  const off = overtakeAtLease(overtaken, () => importWith(table.client, krakenRenamed('Kraken B')));
  try {
    const result = await importWith(overtaken, earnRefresh('7.77'));
    expect(result.published).toEqual(['earn']);
  } finally {
    off();
  }
  // The first plan rendered kraken as it was; the one made under the lease renders the rename.
  expect(await earn3()).toMatchObject({ apy: '7.77', platform: { name: 'Kraken B' } });
  expect((await readPointer(table.client, table.tableName))?.lease).toBeUndefined();
});

it('an overtaken import interrupted while writing leaves its new plan on the lease, and the next import deletes it', async () => {
  now += 60_000;
  const servedBefore = await readPointer(table.client, table.tableName);
  const off = overtakeAtLease(
    overtaken,
    () => importWith(table.client, krakenRenamed('Kraken C')),
    Object.assign(new Error('connection reset'), { name: 'TimeoutError' }),
  );
  try {
    await expect(importWith(overtaken, earnRefresh('8.88'))).rejects.toThrow('connection reset');
  } finally {
    off();
  }
  const pointer = await readPointer(table.client, table.tableName);
  const storedNow = await storedVersions();
  // The overtaking import published exchanges and the offers rendering them; the earn refresh did not.
  expect(pointer?.families.exchanges?.version).not.toBe(servedBefore?.families.exchanges?.version);
  expect(await earn3()).toMatchObject({ platform: { name: 'Kraken C' } });
  expect((await earn3()).apy).not.toBe('8.88');
  // Its lease ended listing the versions of both its plans (the first never written), which no pointer serves.
  const listed = pointer?.lease?.writing ?? [];
  expect(listed).not.toContain(pointer?.families.earn?.version);
  // Partly written: the first batch of the plan made under the lease is stored.
  const abandoned = listed.filter((v) => storedNow.has(v));
  expect(abandoned.length).toBe(1);

  // The next import deletes them (nothing of them may be left).
  now += 60_000;
  await importWith(table.client, earnRefresh('9.99'));
  expect((await storedVersions()).has(abandoned[0])).toBe(false);
  expect(await earn3()).toMatchObject({ apy: '9.99', platform: { name: 'Kraken C' } });
});
