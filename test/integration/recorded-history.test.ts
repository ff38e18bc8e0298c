/**
 * History recorded from imports (CONTRACT §12; docs/adr/0012-recorded-history.md), on the embedded
 * DynamoDB through the real import and history handler, against an oracle written from §12's text:
 * every import carrying earn or borrow adds, for each offer it publishes, an observation at its
 * refresh time, unless the family's hour is already recorded or the offer already has an
 * observation in that UTC hour (the file's own, or stored); the file's history arrays add theirs
 * as before. After each import of a day of imports within and across hours, the stored served
 * observations are exactly the oracle's, and the history route serves them.
 */

import { decodeHistory, servedBuckets } from '../../shared/data/items/history';
import { HISTORY_PREFIX, type HistoryFamily } from '../../shared/data/keys';
import { bucketStart, PERIOD_SPEC, RAW_SERIES, SERIES } from '../../shared/domain/buckets';
import { type ImportResult, importDataset, readPointer } from '../../shared/import/importer';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable } from '../helpers/embedded';

const HOUR = 3_600_000;
const KEY = { keyId: 'k-recorded', perMinute: 1_000_000, perMonth: 100_000_000 };
/** Only observations from here on are compared (the fixture's older ones are past the raw series' retention). */
const SINCE = NOW.getTime() - 2 * HOUR;

type Value = { apy: string; tvl?: string | null };

/** §12, as a model: observations per offer, and the hour each family was last recorded in. */
class Oracle {
  readonly observations = new Map<string, Map<number, Value>>();
  private readonly recordedHour = new Map<HistoryFamily, number>();

  private series(family: HistoryFamily, id: number) {
    const key = `${family}:${id}`;
    if (!this.observations.has(key)) this.observations.set(key, new Map());
    return this.observations.get(key)!;
  }

  import(file: any, at: number, recordHistory: boolean): void {
    for (const family of ['earn', 'borrow'] as const)
      for (const s of file[`${family}_history`] ?? [])
        for (const p of s.points)
          this.series(family, s.offer_id).set(
            Date.parse(p.timestamp),
            family === 'earn' ? { apy: p.apy, tvl: p.tvl ?? null } : { apy: p.apy },
          );
    if (!recordHistory) return;
    const hour = Math.floor(at / HOUR) * HOUR;
    for (const family of ['earn', 'borrow'] as const) {
      const offers = file[`${family}_offers`];
      // An import within an hour already recorded writes no history.
      if (!offers || this.recordedHour.get(family) === hour) continue;
      this.recordedHour.set(family, hour);
      for (const offer of offers) {
        if (offer.published === false) continue;
        const series = this.series(family, offer.id);
        if ([...series.keys()].some((ms) => ms >= hour && ms < hour + HOUR)) continue;
        series.set(at, family === 'earn' ? { apy: offer.apy, tvl: offer.tvl } : { apy: offer.net_borrow_apy });
      }
    }
  }

  /** Per series, its observations since SINCE, as `ms=value` strings. */
  view(): Record<string, string[]> {
    const view: Record<string, string[]> = {};
    for (const [key, series] of this.observations) {
      const points = [...series]
        .filter(([ms]) => ms >= SINCE)
        .sort(([a], [b]) => a - b)
        .map(([ms, v]) => `${new Date(ms).toISOString()}=${v.apy}/${v.tvl === undefined ? '-' : v.tvl}`);
      if (points.length > 0) view[key] = points;
    }
    return view;
  }

  /**
   * A window's points of a series at `to` (§5: the period's window in buckets of its interval, as
   * the series declaration sizes them, each its last observation).
   */
  window(family: HistoryFamily, id: number, to: number, period: '24h' | '1m' = '24h') {
    const { interval, windowMs: span } = PERIOD_SPEC[period];
    const size = SERIES[interval].bucketMs;
    const buckets = new Map<number, [number, Value]>();
    for (const [ms, v] of this.series(family, id))
      if (ms >= to - span && ms <= to) {
        const start = Math.floor(ms / size) * size;
        if (!buckets.has(start) || buckets.get(start)![0] < ms) buckets.set(start, [ms, v]);
      }
    return [...buckets]
      .sort(([a], [b]) => a - b)
      .map(([start, [, v]]) => ({
        timestamp: new Date(start).toISOString(),
        apy: v.apy,
        ...(family === 'earn' ? { tvl: v.tvl ?? null } : {}),
      }));
  }
}

let table: TestTable;
let api: TestApi;
let now = NOW.getTime();
const oracle = new Oracle();

/** The observations the stored history serves (the hours' series, each bucket as the pointer publishes it), as the oracle's view. */
async function storedView(): Promise<Record<string, string[]>> {
  const published = (await readPointer(table.client, table.tableName))?.historySeq ?? 0;
  const view: Record<string, string[]> = {};
  for (const item of (await table.items()).filter((i) => (i.PK as string).startsWith(HISTORY_PREFIX))) {
    const stored = decodeHistory(item);
    if (stored.resolution !== RAW_SERIES) continue;
    const [, family, id] = stored.key.PK.split('#');
    const key = `${family!.toLowerCase()}:${id}`;
    for (const value of servedBuckets(stored, published).values())
      if (value.at >= SINCE)
        (view[key] ??= []).push(
          `${new Date(value.at).toISOString()}=${value.apy}/${value.tvl === undefined ? '-' : value.tvl}`,
        );
  }
  for (const points of Object.values(view)) points.sort();
  return view;
}

/** Import `file` at `at` (and into the oracle), then compare what is stored with the oracle. */
async function importAt(file: unknown, at: number, recordHistory = true): Promise<ImportResult> {
  now = at;
  const result = await importDataset(file, {
    client: table.client,
    tableName: table.tableName,
    now: () => new Date(now),
    recordHistory,
  });
  oracle.import(file, at, recordHistory);
  expect(await storedView()).toEqual(oracle.view());
  return result;
}

/** The offers of the fixture and earn offer 10, every APY moved by `step` (a refresh that changes every offer). */
function offers(step: number) {
  const d: any = fixtureDataset();
  const move = (value: string) => (Number(value) + step).toFixed(2);
  const earn = [...d.earn_offers, { ...d.earn_offers[0], id: 10, compositeKey: 'earn:10' }];
  return {
    earn_offers: earn.map((o: any) => ({ ...o, apy: move(o.apy), tvl: o.tvl === null ? null : `${step}` })),
    borrow_offers: d.borrow_offers.map((o: any) => ({ ...o, net_borrow_apy: move(o.net_borrow_apy) })),
  };
}

const T = (hhmm: string) => Date.parse(`2026-11-20T${hhmm}:00.000Z`);
const day = async (family: HistoryFamily, id: number, period: '24h' | '1m' = '24h') => {
  const res = await invoke(api.history, apiEvent(`/api/v1/${family}/${id}/history?period=${period}`, KEY));
  expect([res.status, res.status === 200 || res.body]).toEqual([200, true]);
  return res.body.data;
};

beforeAll(async () => {
  setLogSink(() => undefined);
  table = await startTestTable();
  api = table.api({ clock: () => new Date(now), env: { SNAPSHOT_CACHE_MS: '0', READ_CACHE_MB: '0' } });
}, 60_000);
afterAll(() => table.close());

describe('one recorded observation per offer and UTC hour, the first import of the hour', () => {
  it('the first import records every published offer at its refresh time (unpublished ones not)', async () => {
    const result = await importAt(fixtureDataset(), T('10:30'));
    // 8 published earn offers, 4 published borrow offers: earn 1 too (its stored 11:00 is another
    // hour, and stays its buckets' last: only its hours' item is written).
    expect(result.recorded.observations).toBe(12);
    expect(result.recorded.itemsWritten).toBe(11 * 4 + 1);
    expect(oracle.view()['earn:8']).toBeUndefined();
    expect(await day('borrow', 2)).toEqual(oracle.window('borrow', 2, now));
    expect((await day('earn', 3)).at(-1)).toEqual({
      timestamp: new Date(T('10:00')).toISOString(),
      apy: '12.25',
      tvl: '5000000',
    });
  });

  it('a second import in the same hour, every APY moved and one offer added, records nothing', async () => {
    const result = await importAt(offers(1), T('10:55'));
    expect(result.published).toEqual(expect.arrayContaining(['earn', 'borrow']));
    expect(result.recorded).toEqual({ observations: 0, itemsRead: 0, itemsWritten: 0 });
  });

  it("the next hour records again, except an offer that has an observation in it (a file's, stored before)", async () => {
    // Earn offer 1 has the fixture's observation at 11:00.
    const result = await importAt(offers(2), T('11:05'));
    expect(result.recorded.observations).toBe(12);
    expect(oracle.view()['earn:1']?.filter((p) => p.startsWith('2026-11-20T11:'))).toEqual([
      '2026-11-20T11:00:00.000Z=99/null',
    ]);
    expect(oracle.view()['earn:10']).toEqual(['2026-11-20T11:05:00.000Z=7.50/2']);
  });

  it("a file whose history observes some offers in the import's hour: theirs is the hour's, the others are recorded", async () => {
    const file: any = {
      ...offers(3),
      earn_history: [
        { offer_id: 3, points: [{ timestamp: new Date(T('12:10')).toISOString(), apy: '1.5', tvl: '7' }] },
      ],
      borrow_history: [{ offer_id: 2, points: [{ timestamp: new Date(T('12:40')).toISOString(), apy: '-2' }] }],
    };
    const result = await importAt(file, T('12:20'));
    expect(result.history.observations).toBe(2);
    expect(result.recorded.observations).toBe(11);
    expect(await day('earn', 3)).toEqual(oracle.window('earn', 3, now));
  });

  it('a history-only file observing an offer earlier in the hour: the catalog import after it records the others', async () => {
    await importAt(
      { borrow_history: [{ offer_id: 5, points: [{ timestamp: new Date(T('13:01')).toISOString(), apy: '0.5' }] }] },
      T('13:02'),
    );
    // Earn offer 9 also gets a file observation in a later hour of the same `1m` bucket: it stays the bucket's last.
    const file = {
      ...offers(4),
      earn_history: [
        { offer_id: 9, points: [{ timestamp: new Date(T('14:50')).toISOString(), apy: '8.5', tvl: '9' }] },
      ],
    };
    const result = await importAt(file, T('13:10'));
    expect(result.recorded.observations).toBe(12);
    expect(await day('borrow', 5)).toEqual(oracle.window('borrow', 5, now));
    now = T('14:59');
    expect((await day('earn', 9, '1m')).at(-1)).toEqual({
      timestamp: new Date(bucketStart(PERIOD_SPEC['1m'].interval, T('14:50'))).toISOString(),
      apy: '8.5',
      tvl: '9',
    });
    expect(await day('earn', 9, '1m')).toEqual(oracle.window('earn', 9, now, '1m'));
  });

  it('recordHistory off records nothing and leaves the hour open to the next import', async () => {
    const off = await importAt(offers(5), T('14:05'), false);
    expect(off.recorded.observations).toBe(0);
    const on = await importAt(offers(6), T('14:30'));
    // Earn offer 9 has the file's 14:50.
    expect(on.recorded.observations).toBe(12);
  });

  it('each family is recorded when an import carries it: borrow alone, then earn later in the hour', async () => {
    const { borrow_offers, earn_offers } = offers(7);
    const borrow = await importAt({ borrow_offers }, T('15:05'));
    expect(borrow.recorded.observations).toBe(4);
    const earn = await importAt({ earn_offers }, T('15:10'));
    expect(earn.recorded.observations).toBe(9);
    // An import of what is served, in an hour already recorded, writes nothing.
    const again = await importAt({ earn_offers }, T('15:20'));
    expect(again).toMatchObject({ unchanged: true, itemsWritten: 0 });
    for (const [family, id] of [
      ['earn', 1],
      ['earn', 10],
      ['borrow', 1],
    ] as const)
      expect(await day(family, id)).toEqual(oracle.window(family, id, now));
  });
});
