/**
 * History is all or nothing with its import (CONTRACT §8; docs/data-model.md, "History"), on the
 * embedded DynamoDB through the real handlers (no pointer cache, so every answer reads the pointer
 * as it is stored):
 * - an import with history that fails at its publish, or is killed midway through its history,
 *   changes no answer: neither its new observations nor its corrections of stored ones are served;
 * - the next import, with or without history, reverts what it wrote (the stored history is again
 *   exactly what it was) and drops its journal, even when that next import is itself killed while
 *   reverting (the one after it finishes the job);
 * - a history-only file becomes visible with its publish, not before (a reader asks between the
 *   last history write and the pointer's);
 * - the observations an import records of its offers (CONTRACT §12) likewise: killed at its
 *   publish, none is served, the next import reverts them, and the hour is recorded by the next
 *   import that carries the family.
 *
 * The failures are real: a document client on the same table whose calls of one kind start failing
 * like a dropped connection after a number of them.
 */
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { putItems } from '../../shared/data/batch-writer';
import { HistoryWriter } from '../../shared/data/history-writer';
import { decodeHistory, servedBuckets } from '../../shared/data/items/history';
import { encodeJournal } from '../../shared/data/items/history-journal';
import { HISTORY_PREFIX, historyJournalKey } from '../../shared/data/keys';
import { importDataset, readPointer } from '../../shared/import/importer';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable } from '../helpers/embedded';
import { type FlakyClient, flakyClient as flakyOn } from '../helpers/faults';

let table: TestTable;
let api: TestApi;
let now = NOW.getTime();
const clock = () => new Date(now);

const KEY = { keyId: 'k-history', perMinute: 1_000_000, perMonth: 100_000_000 };
const PATHS = [
  '/api/v1/borrow/1/history?period=24h',
  '/api/v1/borrow/1/history?period=1m',
  '/api/v1/borrow/1/history?period=all',
  '/api/v1/earn/1/history?period=24h',
  '/api/v1/earn/1/history?period=1w',
];

/** The history answers a client gets (without `to`, and `from` of a window, which follow the request time). */
async function served(): Promise<Record<string, unknown>> {
  const view: Record<string, unknown> = {};
  for (const path of PATHS) {
    const res = await invoke(api.history, apiEvent(path, KEY));
    const { to: _to, from, ...body } = res.body;
    view[path] = { status: res.status, body: path.endsWith('=all') ? { from, ...body } : body };
  }
  return view;
}

const historyItems = async () =>
  (await table.items())
    .filter((i) => (i.PK as string).startsWith(HISTORY_PREFIX))
    .sort((a, b) => `${a.PK}${a.SK}`.localeCompare(`${b.PK}${b.SK}`));

/**
 * What the stored history serves, bucket by bucket of each item (its buckets as the pointer
 * publishes them), and the buckets still written under an unpublished number.
 */
async function storedHistory() {
  const published = (await readPointer(table.client, table.tableName))?.historySeq ?? 0;
  const items = (await historyItems()).map(decodeHistory);
  return {
    served: items.flatMap((s) =>
      [...servedBuckets(s, published)].map(([start, value]) => ({
        ...s.key,
        start,
        apy: value.apy,
        tvl: value.tvl,
        at: value.at,
        expiresAt: s.expiresAt,
      })),
    ),
    unpublished: items.reduce((n, s) => n + ((s.pending?.seq ?? 0) > published ? s.pending!.buckets.size : 0), 0),
  };
}
const journalHead = async () =>
  (await table.items()).find((i) => i.PK === historyJournalKey(0, 0).PK && i.SK === historyJournalKey(0, 0).SK);

/** A client on the same table whose calls of `kind` fail after `healthy` of them (test/helpers/faults.ts). */
const flakyClient = (
  kind: typeof BatchWriteCommand | typeof PutCommand,
  healthy: number,
  beforeFailing?: () => Promise<void>,
) => flakyOn(table.endpoint, kind, healthy, beforeFailing);

async function failingImport(dataset: unknown, flaky: FlakyClient, recordHistory = false) {
  try {
    now += 1_000;
    await expect(
      importDataset(dataset, { client: flaky.client, tableName: table.tableName, now: clock, recordHistory }),
    ).rejects.toThrow(/ECONNRESET/);
    await flaky.settled();
  } finally {
    flaky.close();
  }
}

const importAt = (dataset: unknown) => {
  now += 1_000;
  return importDataset(dataset, { client: table.client, tableName: table.tableName, now: clock });
};

/**
 * New observations for both families, and corrections of stored ones (same instant, another value);
 * `hours` more observations of borrow offer 1 (more items than one batch write holds).
 */
function historyFile(hours = 0) {
  const stored: any = fixtureDataset();
  const lastBorrow = stored.borrow_history[0].points.at(-1);
  const lastEarn = stored.earn_history[0].points.at(-2); // the last one is in the future of NOW
  return {
    borrow_history: [
      {
        offer_id: 1,
        points: [
          { timestamp: lastBorrow.timestamp, apy: '55.5' },
          { timestamp: new Date(NOW.getTime() - 60_000).toISOString(), apy: '66.6' },
          ...Array.from({ length: hours }, (_, i) => ({
            timestamp: new Date(NOW.getTime() - (i + 2) * 3_600_000).toISOString(),
            apy: '44.4',
          })),
        ],
      },
    ],
    earn_history: [
      {
        offer_id: 1,
        points: [
          { timestamp: lastEarn.timestamp, apy: '77.7', tvl: '1' },
          { timestamp: new Date(NOW.getTime() - 120_000).toISOString(), apy: '88.8', tvl: '2' },
        ],
      },
    ],
  };
}

/** A catalog change without history: an exchange renamed. */
function catalogFile(name: string) {
  const d: any = fixtureDataset();
  d.exchanges[0].name = name;
  return { exchanges: d.exchanges };
}

let before: Record<string, unknown>;
let storedBefore: Awaited<ReturnType<typeof storedHistory>>;

beforeAll(async () => {
  setLogSink(() => undefined);
  table = await startTestTable();
  api = table.api({ clock, env: { SNAPSHOT_CACHE_MS: '0', READ_CACHE_MB: '0' } });
  await importAt(fixtureDataset());
  before = await served();
  storedBefore = await storedHistory();
}, 60_000);
afterAll(() => table.close());

it('the file changes what is served once it is imported (the test would prove nothing otherwise)', () => {
  const text = JSON.stringify(before);
  for (const value of ['55.5', '66.6', '77.7', '88.8']) expect(text).not.toContain(`"${value}"`);
  expect((before[PATHS[2]] as any).body.point_count).toBeGreaterThan(0);
});

it('an import with history that fails at its publish changes no answer', async () => {
  await failingImport(historyFile(), flakyClient(PutCommand, 0));
  expect(await served()).toEqual(before);
  // It did write: its observations and corrections wait under its unpublished number, named by its journal.
  expect((await storedHistory()).unpublished).toBeGreaterThanOrEqual(8);
  expect((await journalHead())?.seq).toBe(((await readPointer(table.client, table.tableName))?.historySeq ?? 0) + 1);
});

it('the next import, without history, reverts it: the stored history is exactly what it was, and the journal is gone', async () => {
  const result = await importAt(catalogFile('Renamed once'));
  expect(result.published).toContain('exchanges');
  expect(result.itemsDeleted).toBeGreaterThanOrEqual(8);
  expect(await storedHistory()).toEqual(storedBefore);
  expect(await journalHead()).toBeUndefined();
  expect(await served()).toEqual(before);
});

it('an import killed midway through its history changes no answer; the next one, killed while reverting, leaves the journal; the one after finishes', async () => {
  // Healthy batch writes: the journal (one), then one of the history's (of 25 items each): killed after.
  await failingImport(historyFile(48), flakyClient(BatchWriteCommand, 2));
  expect(await served()).toEqual(before);
  expect((await storedHistory()).unpublished).toBeGreaterThan(0);

  // Reverting puts back the changed items and deletes the added ones: killed at its first batch write.
  await failingImport(catalogFile('Renamed twice'), flakyClient(BatchWriteCommand, 0));
  expect(await journalHead()).toBeDefined();
  expect(await served()).toEqual(before);

  await importAt(catalogFile('Renamed three times'));
  expect(await storedHistory()).toEqual(storedBefore);
  expect(await journalHead()).toBeUndefined();
});

it('a history-only file is served with its publish, not before', async () => {
  let beforePublish: Record<string, unknown> | undefined;
  // Every write succeeds up to the pointer's put; a reader asks just before it, then the put is sent again.
  const flaky = flakyClient(PutCommand, 0, async () => {
    beforePublish = await served();
  });
  await failingImport(historyFile(), flaky);
  expect(beforePublish).toEqual(before);

  const result = await importAt(historyFile());
  expect(result.history.itemsWritten).toBeGreaterThan(0);
  const after = await served();
  const text = JSON.stringify(after);
  for (const value of ['55.5', '66.6', '77.7', '88.8']) expect(text).toContain(`"${value}"`);
  // The next import finds its journal published: nothing to revert, history as served.
  await importAt(catalogFile('Renamed four times'));
  expect(await served()).toEqual(after);
});

it('a reader whose cached pointer predates two history imports never mixes them: an item of the later one makes it read the pointer again', async () => {
  // Another instance, with the deployed pointer cache (5 s): it caches the pointer as it is now.
  const cached = table.api({ clock, env: { SNAPSHOT_CACHE_MS: '5000', READ_CACHE_MB: '0' } });
  const path = '/api/v1/borrow/1/history?period=24h';
  const day = async () => (await invoke(cached.history, apiEvent(path, KEY))).body.data as { apy: string }[];
  const first = await day();

  // Import 2 (published): two new observations in two hours. Import 3 (failed at its publish)
  // corrects the first of them: that item now holds import 2's value as committed.
  const a = new Date(NOW.getTime() - 3 * 3_600_000).toISOString();
  const b = new Date(NOW.getTime() - 2 * 3_600_000).toISOString();
  await importAt({
    borrow_history: [
      {
        offer_id: 1,
        points: [
          { timestamp: a, apy: '12.1' },
          { timestamp: b, apy: '12.2' },
        ],
      },
    ],
  });
  await failingImport(
    { borrow_history: [{ offer_id: 1, points: [{ timestamp: a, apy: '13.1' }] }] },
    flakyClient(PutCommand, 0),
  );

  // Within the cache: the answer is import 2's whole (both observations), never one without the other.
  const second = (await day()).map((p) => p.apy);
  expect(second).toEqual(expect.arrayContaining(['12.1', '12.2']));
  expect(second).not.toContain('13.1');
  expect(first.map((p) => p.apy)).not.toContain('12.2');
});

it('an import killed while writing a large journal (parts, no head yet) leaves the published journal whole: later imports go on', async () => {
  await importAt(catalogFile('Renamed before')); // reverts what the test before left
  const servedBefore = await served();
  const writer = new HistoryWriter(table.client, table.tableName);
  const published = (await readPointer(table.client, table.tableName))!.historySeq;
  let x = 7;
  const random = () => {
    x = (x * 48_271) % 2_147_483_647;
    return x;
  };
  /** A journal of irregular times, several parts long. */
  const journal = (seq: number) => ({
    seq,
    series: Array.from({ length: 12_000 }, (_, i) => ({
      family: 'earn',
      id: i + 1,
      times: Array.from({ length: 8 }, () => 1_700_000_000_000 + random() * 1000),
    })),
  });
  // The published import's journal was that large; the next import wrote its parts and was killed before its head.
  await writer.writeJournal(journal(published));
  const head = await writer.readJournalHead();
  expect(head).toEqual({ seq: published, parts: expect.any(Number) });
  expect(head!.parts).toBeGreaterThan(1);
  const parts = encodeJournal(journal(published + 1)).slice(1);
  expect(parts.length).toBeGreaterThan(0);
  await putItems(parts, { client: table.client, tableName: table.tableName });

  const result = await importAt(catalogFile('Renamed five times'));
  expect(result.published).toContain('exchanges');
  expect(await writer.readJournalHead()).toEqual(head);
  expect(await served()).toEqual(servedBefore);
});

it('an import killed at its publish serves none of the observations it recorded; the next reverts them, and the hour is recorded by the next import of the family', async () => {
  // A new hour: the import records every published offer, then fails at the pointer's put.
  now = NOW.getTime() + 3_600_000;
  await importAt(catalogFile('Renamed after the large journal'));
  const servedBefore = await served();
  const stored = await storedHistory();
  const offers = (apy: string) => {
    const d: any = fixtureDataset();
    return {
      earn_offers: d.earn_offers.map((o: any) => ({ ...o, apy })),
      borrow_offers: d.borrow_offers.map((o: any) => ({ ...o, net_borrow_apy: apy })),
    };
  };
  await failingImport(offers('31.5'), flakyClient(PutCommand, 0), true);
  expect(await served()).toEqual(servedBefore);
  // 11 offers, a bucket of each of the 4 series each (earn offer 1 has the fixture's 11:00 observation in this hour: none recorded).
  expect((await storedHistory()).unpublished).toBe(4 * 11);

  // The next import, carrying no offers, reverts them: the stored history is exactly what it was.
  await importAt(catalogFile('Renamed after the killed recording'));
  expect(await storedHistory()).toEqual(stored);
  expect(await journalHead()).toBeUndefined();

  // The killed import recorded nothing of the hour: the next one that carries the offers records it.
  now += 1_000;
  const result = await importDataset(offers('32.5'), {
    client: table.client,
    tableName: table.tableName,
    now: clock,
    recordHistory: true,
  });
  expect(result.recorded.observations).toBe(11);
  const text = JSON.stringify(await served());
  expect(text).toContain('"32.5"');
  expect(text).not.toContain('"31.5"');
});
