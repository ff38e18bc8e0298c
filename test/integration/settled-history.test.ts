/**
 * Settling after the publish (docs/adr/0029-packed-history.md), on the embedded DynamoDB through
 * the real import, writer and history handler:
 *
 * - once published, an import folds what it corrected in items of ended spans into their
 *   committed buckets (no pending part left, its number kept as the settling one); what only adds
 *   buckets, and the items of current spans, stay pending, folded by the next import that writes them;
 * - a reader whose cached pointer predates the import never mixes it with the one before: a
 *   settled item makes it read the pointer again, so an answer over a settled and a pending item
 *   is the import's whole;
 * - a settle that fails (or an import killed before it) changes no answer and fails no import;
 * - a settle loses to an import that rewrote the item since it read it (its put is conditional).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { HistoryWriter } from '../../shared/data/history-writer';
import { decodeHistory, encodeHistory, type StoredHistory } from '../../shared/data/items/history';
import { HISTORY_PREFIX, historyKey } from '../../shared/data/keys';
import { importDataset, readPointer } from '../../shared/import/importer';
import { itemStart, SERIES_OF, type SeriesResolution } from '../../shared/model/history-series';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestTable } from '../helpers/embedded';
import { flakyClient } from '../helpers/faults';

const KEY = { keyId: 'k-settled', perMinute: 1_000_000, perMonth: 100_000_000 };
const WEEK_SPAN = SERIES_OF['1W'].bucketMs * SERIES_OF['1W'].perItem;
// An observation in a week whose item's span ended long before NOW, and one of NOW's day.
const OLD = Date.parse('2025-06-04T12:00:00.000Z');
const RECENT = Date.parse('2026-11-20T09:00:00.000Z'); // the fixture's last observation of earn offer 1 before NOW
const WINDOW = `/api/v1/earn/1/history?from=2025-05-01T00:00:00Z&to=${NOW.toISOString()}&interval=1w`;

let table: TestTable;
let now = NOW.getTime();
const clock = () => new Date(now);
const options = (client = table.client) => ({ client, tableName: table.tableName, now: clock });
const importAt = (file: unknown, client = table.client) => {
  now += 1_000;
  return importDataset(file, options(client));
};
/** Earn offer 1's observations: `[time, apy]`. */
const earn1 = (points: [number, string][]) => ({
  earn_history: [{ offer_id: 1, points: points.map(([t, apy]) => ({ timestamp: new Date(t).toISOString(), apy })) }],
});
const itemAt = async (ms: number, resolution: SeriesResolution = '1W'): Promise<StoredHistory> => {
  const { Item } = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: historyKey('earn', 1, resolution, ms), ConsistentRead: true }),
  );
  return decodeHistory(Item!);
};
/** The number that settled an item; undefined while it has a pending part. */
const settledBy = (item: StoredHistory) => (item.pending ? undefined : item.settled);
const historySeq = async () => (await readPointer(table.client, table.tableName))!.historySeq;
const apys = (body: { data: { apy: string }[] }) => body.data.map((p) => p.apy);

beforeAll(async () => {
  setLogSink(() => undefined);
  table = await startTestTable();
  await importAt(fixtureDataset());
}, 60_000);
afterAll(() => table.close());

it("the two observations' week items: one of an ended span, one of NOW's (the tests would prove nothing otherwise)", () => {
  expect(itemStart('1W', OLD) + WEEK_SPAN).toBeLessThan(NOW.getTime());
  expect(itemStart('1H', RECENT) + SERIES_OF['1H'].bucketMs * SERIES_OF['1H'].perItem).toBeGreaterThan(NOW.getTime());
});

it('an import that only adds buckets settles nothing: its items read as many bytes as settled ones would', async () => {
  const items = (await table.items()).filter((i) => String(i.PK).startsWith(HISTORY_PREFIX)).map(decodeHistory);
  expect(items.length).toBeGreaterThan(0);
  for (const item of items) expect(item.pending?.seq).toBe(1);
  const result = await importAt(earn1([[OLD, '60.5']]));
  expect(result.settled).toBe(0);
  expect((await itemAt(OLD)).pending?.seq).toBe(await historySeq());
});

it('a published correction of an old week is settled: one value a bucket, the number that settled it kept', async () => {
  const result = await importAt(earn1([[OLD, '61.5']]));
  const seq = await historySeq();
  expect(result.settled).toBe(1);
  expect(settledBy(await itemAt(OLD))).toBe(seq);
  expect([...(await itemAt(OLD)).committed.values()].map((v) => v.apy)).toEqual(['61.5']);
});

it('a reader whose cached pointer predates the import answers it whole: the settled item makes it read the pointer again', async () => {
  const cached = table.api({ clock, env: { SNAPSHOT_CACHE_MS: '600000', READ_CACHE_MB: '0' } });
  const ask = async () => (await invoke(cached.history, apiEvent(WINDOW, KEY))).body;
  const before = apys(await ask());
  expect(before).toContain('61.5');

  // One import corrects both weeks: the old one's item is settled, the current one's stays pending.
  const result = await importAt(
    earn1([
      [OLD, '71.5'],
      [RECENT, '72.5'],
    ]),
  );
  expect(result.settled).toBe(1);
  expect((await itemAt(RECENT, '1H')).pending?.seq).toBe(await historySeq());

  const after = apys(await ask());
  expect(after).toEqual(expect.arrayContaining(['71.5', '72.5']));
  expect(after).not.toContain('61.5');
  expect(after).toHaveLength(before.length);
});

it('a settle that fails changes no answer and fails no import; the next import of that span settles it', async () => {
  const served = table.api({ clock, env: { SNAPSHOT_CACHE_MS: '0', READ_CACHE_MB: '0' } });
  const ask = async () => apys((await invoke(served.history, apiEvent(WINDOW, KEY))).body);
  const warnings: string[] = [];
  setLogSink((line) => warnings.push(line));
  // The pointer's put (the publish) goes through; every put after it, the settle's, fails like a dropped connection.
  const flaky = flakyClient(table.endpoint, PutCommand, 1);
  try {
    const result = await importAt(earn1([[OLD, '81.5']]), flaky.client);
    await flaky.settled();
    expect(result.settled).toBe(0);
  } finally {
    flaky.close();
    setLogSink(() => undefined);
  }
  expect(warnings.join('\n')).toMatch(/settling after the publish failed/);
  const seq = await historySeq();
  expect((await itemAt(OLD)).pending?.seq).toBe(seq);
  expect(await ask()).toContain('81.5');

  // An import with no history leaves it pending and served; the next import of that week folds and settles it.
  await importAt({ exchanges: (fixtureDataset() as any).exchanges.map((e: any) => ({ ...e, name: `${e.name}!` })) });
  expect(await ask()).toContain('81.5');
  const result = await importAt(earn1([[OLD + 60_000, '91.5']]));
  expect(result.settled).toBe(1);
  expect(settledBy(await itemAt(OLD))).toBe(await historySeq());
  expect(await ask()).toContain('91.5');
});

it('a settle loses to an import that rewrote the item after the settle read it', async () => {
  // Import N publishes a pending correction of the old week (its settle failed); then, between the
  // settle's read and its put, import N + 1 rewrites the item (the lease is no longer held).
  const flaky = flakyClient(table.endpoint, PutCommand, 1);
  try {
    expect((await importAt(earn1([[OLD + 120_000, '101.5']]), flaky.client)).settled).toBe(0);
    await flaky.settled();
  } finally {
    flaky.close();
  }
  const seq = await historySeq();
  const read = await itemAt(OLD);
  expect(read.pending?.seq).toBe(seq);
  const rewritten = encodeHistory({
    ...read,
    committed: new Map([...read.committed, ...read.pending!.buckets]),
    pending: { seq: seq + 1, buckets: new Map() },
  });
  const racing = new HistoryWriter(table.client, table.tableName);
  const send = table.client.send.bind(table.client);
  const client = Object.assign(Object.create(table.client), {
    send: async (command: any) => {
      if (command instanceof PutCommand) await send(new PutCommand({ TableName: table.tableName, Item: rewritten }));
      return send(command);
    },
  });
  expect(await new HistoryWriter(client, table.tableName).settle([read.key], seq)).toBe(0);
  expect((await itemAt(OLD)).pending?.seq).toBe(seq + 1);
  // Without the race, the same settle folds it.
  await table.client.send(new PutCommand({ TableName: table.tableName, Item: encodeHistory(read) }));
  expect(await racing.settle([read.key], seq)).toBe(1);
  expect(settledBy(await itemAt(OLD))).toBe(seq);
});
