/**
 * History packed by span (docs/adr/0029-packed-history.md), on the embedded DynamoDB through the
 * real writer, the import's plan and the history function:
 *
 * - the observations' series keeps every observation of an hour (an equal time corrects one), and
 *   a window whose `to` falls inside such an hour answers the last one at or before `to` (1h and
 *   coarser intervals); recording keeps to one an hour; a day holds at most MAX_DAY_OBSERVATIONS
 *   an offer, a denser file is refused naming its place (alone, or with what is stored);
 * - pending buckets across several items: served from the publish of their number, folded into
 *   the committed ones by the next import, reverted item by item from the journal;
 * - each item expires with the last bucket of its span; a bucket past its retention is not written;
 * - an item that does not check (unreadable, a bucket outside its span or its time outside its
 *   bucket) answers 500 `internal_error`, never a 200, for one offer and for several.
 */
import { deflateRawSync } from 'node:zlib';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { HistoryStore } from '../../shared/data/history-store';
import { HistoryWriter } from '../../shared/data/history-writer';
import { decodeHistory, servedBuckets } from '../../shared/data/items/history';
import { HISTORY_PREFIX, historyKey } from '../../shared/data/keys';
import { RETENTION_MS, SERIES } from '../../shared/domain/buckets';
import { DataFileError } from '../../shared/import/dataset';
import {
  appendHistory,
  type HistoryAppend,
  journalOf,
  MAX_DAY_OBSERVATIONS,
  recordingOf,
  recordObservations,
  revertHistory,
} from '../../shared/import/history-plan';
import { importDataset } from '../../shared/import/importer';
import { itemStart } from '../../shared/model/history-series';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestTable } from '../helpers/embedded';

const HOUR = 3_600_000;
const T = (iso: string) => Date.parse(`2026-11-${iso}Z`);
const iso = (ms: number) => new Date(ms).toISOString();

let table: TestTable;
let writer: HistoryWriter;
let store: HistoryStore;

beforeAll(async () => {
  setLogSink(() => undefined);
  table = await startTestTable();
  writer = new HistoryWriter(table.client, table.tableName);
  store = new HistoryStore(table.client, table.tableName);
}, 60_000);
afterAll(() => table.close());

/** One borrow series of offer `id`: `[time, apy]` pairs. */
const borrow = (id: number, points: [string, string][]): HistoryAppend[] => [
  { family: 'borrow', series: [{ offer_id: id, points: points.map(([t, apy]) => ({ timestamp: iso(T(t)), apy })) }] },
];
const published = (seq: number) => ({ seq: async () => seq, reread: async () => seq });
/** The observations the hours' series serves for offer `id` under `seq`, as `time=apy`. */
const hours = async (id: number, seq: number, from = T('01T00:00:00'), to = T('30T00:00:00')) =>
  (await store.series('borrow', id, '1H', from, to, published(seq))).map(([, apy, , at]) => `${iso(at)}=${apy}`);
const itemsOf = async (id: number) =>
  (await table.items()).filter((i) => i.PK === `${HISTORY_PREFIX}BORROW#${id}`).map((i) => decodeHistory(i));

describe('the observations, every one of each hour', () => {
  it('keep every observation in time order; an equal time corrects one; the 4-hour bucket holds the last', async () => {
    const now = T('20T12:00:00');
    await appendHistory(
      writer,
      borrow(1, [
        ['20T10:10:00', '1'],
        ['20T10:50:00', '2'],
        ['20T11:20:00', '3'],
      ]),
      now,
      { published: 0, seq: 1 },
    );
    expect(await hours(1, 1)).toEqual([
      '2026-11-20T10:10:00.000Z=1',
      '2026-11-20T10:50:00.000Z=2',
      '2026-11-20T11:20:00.000Z=3',
    ]);
    // An earlier observation of the hour is kept (only the hours' item changes: the coarser buckets keep their last).
    const earlier = await appendHistory(writer, borrow(1, [['20T10:05:00', '9']]), now, { published: 1, seq: 2 });
    expect(earlier.itemsWritten).toBe(1);
    await appendHistory(writer, borrow(1, [['20T10:50:00', '2.5']]), now, { published: 1, seq: 2 });
    expect(await hours(1, 2)).toEqual([
      '2026-11-20T10:05:00.000Z=9',
      '2026-11-20T10:10:00.000Z=1',
      '2026-11-20T10:50:00.000Z=2.5',
      '2026-11-20T11:20:00.000Z=3',
    ]);
    await appendHistory(writer, borrow(1, [['20T10:55:00', '4']]), now, { published: 2, seq: 3 });
    expect((await hours(1, 3)).slice(-2)).toEqual(['2026-11-20T10:55:00.000Z=4', '2026-11-20T11:20:00.000Z=3']);
    // Re-sending what is stored writes nothing.
    const again = await appendHistory(writer, borrow(1, [['20T10:10:00', '1']]), now, { published: 3, seq: 4 });
    expect(again.itemsWritten).toBe(0);
    // The 4-hour bucket holds the last observation of its hours.
    const fourHours = await store.series('borrow', 1, '4H', T('20T08:00:00'), T('20T12:00:00'), published(3));
    expect(fourHours).toEqual([[T('20T08:00:00'), '3', null, T('20T11:20:00')]]);
  });

  it('a recording skips an offer with an observation in the hour, whatever its time in it', async () => {
    const at = T('20T10:30:00');
    const recording = recordingOf(
      'borrow',
      [
        { id: 1, net_borrow_apy: '8' },
        { id: 2, net_borrow_apy: '8' },
      ],
      [],
      at,
    );
    const result = await recordObservations(writer, [recording], at, { published: 3, seq: 4 });
    // Offer 1 has 10:55 (after the recording's time, in its hour): only offer 2 is recorded.
    expect(result.observations).toBe(1);
    expect(await hours(2, 4)).toEqual(['2026-11-20T10:30:00.000Z=8']);
    expect((await hours(1, 4)).slice(-2)).toEqual(['2026-11-20T10:55:00.000Z=4', '2026-11-20T11:20:00.000Z=3']);
  });
});

describe('a window whose `to` falls inside an hour of several imported observations', () => {
  let served: TestTable;
  let api: ReturnType<TestTable['api']>;
  const options = () => ({ client: served.client, tableName: served.tableName, now: () => NOW });
  const earn4 = (points: [string, string][]) => ({
    earn_history: [
      { offer_id: 4, points: points.map(([t, apy]) => ({ timestamp: `2026-11-19T${t}Z`, apy, tvl: '7' })) },
    ],
  });
  const ask = (path: string) => invoke(api.history, apiEvent(path, { perMinute: 1000, perMonth: 100_000 }));
  /** The points of offer 4 in [from, to] (times of 2026-11-19) at `interval`, as `timestamp=apy`. */
  const window = async (from: string, to: string, interval: string) => {
    const res = await ask(`/api/v1/earn/4/history?from=2026-11-19T${from}Z&to=2026-11-19T${to}Z&interval=${interval}`);
    expect(res.status).toBe(200);
    return (res.body as { data: { timestamp: string; apy: string }[] }).data.map((p) => `${p.timestamp}=${p.apy}`);
  };

  beforeAll(async () => {
    served = await startTestTable();
    await importDataset(fixtureDataset(), options());
    await importDataset(
      earn4([
        ['14:05:00', '1'],
        ['14:20:00', '2'],
        ['14:40:00', '3'],
      ]),
      options(),
    );
    api = served.api({ clock: () => NOW, env: { SNAPSHOT_CACHE_MS: '0' } });
  }, 60_000);
  afterAll(() => served.close());

  it("answers the last observation at or before `to` (1h, 4h, 1d), and the hour's last past it", async () => {
    expect(await window('13:00:00', '14:30:00', '1h')).toEqual(['2026-11-19T14:00:00.000Z=2']);
    expect(await window('13:00:00', '14:10:00', '1h')).toEqual(['2026-11-19T14:00:00.000Z=1']);
    expect(await window('13:00:00', '14:30:00', '4h')).toEqual(['2026-11-19T12:00:00.000Z=2']);
    expect(await window('06:00:00', '14:05:00', '1d')).toEqual(['2026-11-19T00:00:00.000Z=1']);
    // `from` inside the hour: only the observations from it count.
    expect(await window('14:15:00', '14:30:00', '1h')).toEqual(['2026-11-19T14:00:00.000Z=2']);
    // Past the hour: its last observation.
    expect(await window('13:00:00', '16:00:00', '1h')).toEqual(['2026-11-19T14:00:00.000Z=3']);
    expect(await window('12:00:00', '16:00:00', '4h')).toEqual(['2026-11-19T12:00:00.000Z=3']);
  });

  it('a correction at an equal time replaces that observation', async () => {
    await importDataset(earn4([['14:20:00', '2.5']]), options());
    expect(await window('13:00:00', '14:30:00', '1h')).toEqual(['2026-11-19T14:00:00.000Z=2.5']);
    expect(await window('13:00:00', '14:30:00', '4h')).toEqual(['2026-11-19T12:00:00.000Z=2.5']);
    expect(await window('13:00:00', '16:00:00', '1h')).toEqual(['2026-11-19T14:00:00.000Z=3']);
  });

  /** The refusal of importing `file`: its errors, and nothing of it served. */
  const refusal = async (file: unknown): Promise<string[]> => {
    const before = await window('00:00:00', '23:59:59', '1h');
    const error = await importDataset(file, options()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataFileError);
    expect(await window('00:00:00', '23:59:59', '1h')).toEqual(before);
    return (error as DataFileError).errors;
  };
  /** `count` observations of offer 4 on 2026-11-19 from `first` seconds after midnight, one a second. */
  const dense = (count: number, first = 0) =>
    earn4(
      Array.from({ length: count }, (_, i) => [
        new Date((first + i) * 1000).toISOString().slice(11, 19),
        String(i),
      ]) as [string, string][],
    );

  it('refuses a file with more than MAX_DAY_OBSERVATIONS observations of an offer in a UTC day, naming the place', async () => {
    const file = dense(MAX_DAY_OBSERVATIONS + 1);
    file.earn_history.unshift({ offer_id: 1, points: [] });
    expect(await refusal(file)).toEqual([
      `earn_history[1].points: offer 4 has ${MAX_DAY_OBSERVATIONS + 1} observations on 2026-11-19 (UTC): at most ${MAX_DAY_OBSERVATIONS} an offer in a UTC day`,
    ]);
  });

  it('refuses a file that would bring the stored day past it, naming the place', async () => {
    // Three are stored (14:05, 14:20 corrected, 14:40): the day takes MAX_DAY_OBSERVATIONS - 3 more, not one beyond.
    await importDataset(dense(MAX_DAY_OBSERVATIONS - 3), options());
    expect(await window('00:00:00', '00:59:59', '1h')).toEqual(['2026-11-19T00:00:00.000Z=1436']);
    expect(await refusal(dense(1, 3_600))).toEqual([
      `earn_history[0].points: offer 4 would hold ${MAX_DAY_OBSERVATIONS + 1} observations on 2026-11-19 (UTC) with those stored: at most ${MAX_DAY_OBSERVATIONS} an offer in a UTC day`,
    ]);
    // A correction of a stored observation adds none: accepted.
    await importDataset(earn4([['14:40:00', '3.5']]), options());
    expect(await window('13:00:00', '16:00:00', '1h')).toEqual(['2026-11-19T14:00:00.000Z=3.5']);
  });
});

describe('all or nothing across packed items', () => {
  const now = T('22T12:00:00');
  const first = borrow(3, [
    ['20T23:00:00', '1'],
    ['21T01:00:00', '2'],
  ]);
  const second = borrow(3, [
    ['20T23:00:00', '1.5'],
    ['21T02:00:00', '3'],
    ['22T05:00:00', '4'],
  ]);

  it('an import spanning two day items is served from its publish on, not before', async () => {
    await appendHistory(writer, first, now, { published: 0, seq: 1 });
    expect((await itemsOf(3)).filter((i) => i.resolution === '1H')).toHaveLength(2);
    expect(await hours(3, 0)).toEqual([]);
    expect(await hours(3, 1)).toEqual(['2026-11-20T23:00:00.000Z=1', '2026-11-21T01:00:00.000Z=2']);
  });

  it("the next import folds the published buckets into the committed ones and writes its own pending; reverting it brings back the first import's answer and deletes the items it added", async () => {
    const result = await appendHistory(writer, second, now, { published: 1, seq: 2 });
    expect(result.itemsWritten).toBeGreaterThan(0);
    const days = (await itemsOf(3)).filter((i) => i.resolution === '1H');
    expect(days).toHaveLength(3);
    for (const day of days) expect(day.pending?.seq).toBe(2);
    expect(days[0]!.committed.get(T('20T23:00:00'))).toEqual({ apy: '1', at: T('20T23:00:00') });
    expect(await hours(3, 1)).toEqual(['2026-11-20T23:00:00.000Z=1', '2026-11-21T01:00:00.000Z=2']);
    expect(await hours(3, 2)).toEqual([
      '2026-11-20T23:00:00.000Z=1.5',
      '2026-11-21T01:00:00.000Z=2',
      '2026-11-21T02:00:00.000Z=3',
      '2026-11-22T05:00:00.000Z=4',
    ]);

    // Import 2 was never published: the next import reverts it from its journal.
    const reverted = await revertHistory(writer, journalOf(second, 2));
    expect(reverted).toBe((await itemsOf(3)).length + 1); // every item it changed, and the 22nd's hours, only import 2's (deleted)
    expect(await hours(3, 2)).toEqual(['2026-11-20T23:00:00.000Z=1', '2026-11-21T01:00:00.000Z=2']);
    expect((await itemsOf(3)).filter((i) => i.resolution === '1H')).toHaveLength(2);
    // Their committed buckets hold import 1's: a reader whose pointer predates it reads the pointer again.
    for (const item of await itemsOf(3)) expect([item.pending, item.settled]).toEqual([undefined, 1]);
  });
});

describe('expiry', () => {
  it('each item expires with the last bucket of its span; the weeks never; a bucket past its retention is not written', async () => {
    const now = T('20T12:00:00');
    const result = await appendHistory(
      writer,
      borrow(5, [
        ['01T10:00:00', '1'], // past the hours' 8 days, within the 4-hour buckets' 31
        ['20T10:00:00', '2'],
      ]),
      now,
      { published: 0, seq: 1 },
    );
    expect(result.observations).toBe(2);
    const items = await itemsOf(5);
    const hoursItems = items.filter((i) => i.resolution === '1H');
    expect(hoursItems.map((i) => iso(i.start))).toEqual(['2026-11-20T00:00:00.000Z']);
    for (const item of items) {
      const interval = (['1h', '4h', '1d', '1w'] as const).find((i) => SERIES[i].stored === item.resolution)!;
      const { bucketMs, perItem } = SERIES[interval];
      const end = itemStart(item.resolution, item.start) + bucketMs * perItem;
      const last = item.resolution === '1H' ? end - 1 : end - bucketMs;
      const retention = RETENTION_MS[item.resolution];
      expect(item.expiresAt).toBe(retention === null ? undefined : Math.ceil((last + retention) / 1000));
    }
    expect(items.find((i) => i.resolution === '1W')!.expiresAt).toBeUndefined();
    const fourHours = items.filter((i) => i.resolution === '4H').map((i) => i.start);
    expect(fourHours).toContain(itemStart('4H', T('01T10:00:00')));
    expect(fourHours).toContain(itemStart('4H', T('20T10:00:00')));
  });
});

describe('an item that does not check is a 500, never a 200', () => {
  let served: TestTable;
  let api: ReturnType<TestTable['api']>;
  const key = historyKey('earn', 1, '1H', T('20T08:00:00'));

  beforeAll(async () => {
    served = await startTestTable();
    await importDataset(fixtureDataset(), { client: served.client, tableName: served.tableName, now: () => NOW });
    api = served.api({ clock: () => NOW, env: { SNAPSHOT_CACHE_MS: '0' } });
  }, 60_000);
  afterAll(() => served.close());

  const ask = (path: string) => invoke(api.history, apiEvent(path, { perMinute: 1000, perMonth: 100_000 }));
  const internalError = { error: { code: 'internal_error', message: expect.any(String), details: null } };

  it('reads as usual when nothing is changed', async () => {
    const { Item } = await served.client.send(new GetCommand({ TableName: served.tableName, Key: key }));
    expect(servedBuckets(decodeHistory(Item!), 1).size).toBeGreaterThan(0);
    expect((await ask('/api/v1/earn/1/history?period=24h')).status).toBe(200);
  });

  it.each<[string, Uint8Array]>([
    ['unreadable content', new Uint8Array([7, 7, 7, 7])],
    ['a bucket outside its span', deflateRawSync(JSON.stringify({ c: [[24, 0, '5', null]] }))],
    ['an observation outside its bucket', deflateRawSync(JSON.stringify({ c: [[8, HOUR, '5', null]] }))],
    ['a value that is not a decimal', deflateRawSync(JSON.stringify({ c: [[8, 0, '5%', null]] }))],
    [
      "an hour's observations out of order",
      deflateRawSync(
        JSON.stringify({
          c: [
            [8, 5, '5', null],
            [8, 0, '5', null],
          ],
        }),
      ),
    ],
  ])('an item with %s', async (_, z) => {
    const { Item } = await served.client.send(new GetCommand({ TableName: served.tableName, Key: key }));
    await served.client.send(new PutCommand({ TableName: served.tableName, Item: { ...Item, z } }));
    try {
      for (const path of ['/api/v1/earn/1/history?period=24h', '/api/v1/earn/history?ids=1,2&period=1w']) {
        const res = await ask(path);
        expect([res.status, res.body]).toEqual([500, internalError]);
      }
    } finally {
      await served.client.send(new PutCommand({ TableName: served.tableName, Item }));
    }
  });
});
