/**
 * History windows, intervals and last-value buckets (docs/api.md, "History buckets") through the real handler on the
 * embedded DynamoDB with an injected clock, against an oracle over the raw fixture points.
 */
import { importDataset } from '../../shared/import/importer';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable } from '../helpers/embedded';
import { historyOracle, type OraclePoint, PERIOD_TABLE } from '../helpers/history-oracle';

let table: TestTable;
let handlerAt: (now: Date) => TestApi['history'];
const data = fixtureDataset();

beforeAll(async () => {
  table = await startTestTable();
  await importDataset(data, { client: table.client, tableName: table.tableName, now: () => NOW });
  handlerAt = (now) => table.api({ clock: () => now }).history;
});
afterAll(() => table.close());

const oracle = (points: OraclePoint[], period: string, now: Date, earn: boolean) =>
  historyOracle(points, { period }, now, earn);

const earnPoints = data.earn_history[0].points;
const borrowPoints = data.borrow_history[0].points;

describe.each(Object.keys(PERIOD_TABLE))('period=%s', (period) => {
  it.each([
    ['earn', earnPoints],
    ['borrow', borrowPoints],
  ] as const)('%s history matches the oracle', async (family, points) => {
    const res = await invoke(handlerAt(NOW), apiEvent(`/api/v1/${family}/1/history?period=${period}`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(oracle(points, period, NOW, family === 'earn'));
  });
});

describe('history rules', () => {
  it('defaults to period=1m with 4h buckets', async () => {
    const res = await invoke(handlerAt(NOW), apiEvent('/api/v1/earn/1/history'));
    expect(res.body).toMatchObject({ period: '1m', interval: '4h' });
    expect(res.body.point_count).toBe(oracle(earnPoints, '1m', NOW, true).point_count);
  });

  it('excludes an observation after the request time from the bucket that contains it', async () => {
    // NOW is 10:30; the fixture has a point at 11:00 with apy 99, inside the 08:00-12:00 bucket.
    const res = await invoke(handlerAt(NOW), apiEvent('/api/v1/earn/1/history?period=1m'));
    const last = res.body.data[res.body.data.length - 1];
    expect(last.timestamp).toBe('2026-11-20T08:00:00.000Z');
    expect(last.apy).not.toBe('99');
    expect(last.apy).toBe(earnPoints.find((p) => p.timestamp === '2026-11-20T09:00:00.000Z')!.apy);
  });

  it('includes that observation once the request time passes it', async () => {
    const later = new Date('2026-11-20T11:30:00.000Z');
    const res = await invoke(handlerAt(later), apiEvent('/api/v1/earn/1/history?period=24h'));
    expect(res.body.data[res.body.data.length - 1]).toEqual({
      timestamp: '2026-11-20T11:00:00.000Z',
      apy: '99',
      tvl: null,
    });
  });

  it('answers point_count 0 for an offer without history, and for period=all from = to', async () => {
    const res = await invoke(handlerAt(NOW), apiEvent('/api/v1/earn/2/history?period=all'));
    expect(res.body).toEqual({
      period: 'all',
      interval: '1w',
      from: NOW.toISOString(),
      to: NOW.toISOString(),
      point_count: 0,
      data: [],
    });
  });

  it.each([
    ['/api/v1/earn/8/history', 404, 'not_found'],
    ['/api/v1/borrow/77/history', 404, 'not_found'],
    ['/api/v1/earn/x/history', 400, 'validation_error'],
    ['/api/v1/earn/1/history?period=2d', 400, 'validation_error'],
    ['/api/v1/earn/1/history?period=1m&period=1y', 400, 'validation_error'],
    ['/api/v1/earn/1/history?limit=5', 400, 'validation_error'],
    ['/api/v1/collateral/1/history', 404, 'not_found'],
    ['/api/v1/collateral/abc/history?period=zzz', 404, 'not_found'],
  ])('%s answers %i %s', async (path, status, code) => {
    const res = await invoke(handlerAt(NOW), apiEvent(path));
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  });
});

describe('history before 1970-01-05: the week of Monday 1969-12-29', () => {
  beforeAll(async () => {
    const points = [
      { timestamp: '1970-01-01T00:00:00.000Z', apy: '1.1', tvl: '10' },
      { timestamp: '1970-01-04T23:59:59.999Z', apy: '1.2', tvl: null },
      { timestamp: '1970-01-05T00:00:00.000Z', apy: '1.3', tvl: '30' },
      { timestamp: '2026-11-17T00:00:00.000Z', apy: '1.4', tvl: '40' },
    ];
    await importDataset(
      { earn_history: [{ offer_id: 3, points }] },
      { client: table.client, tableName: table.tableName, now: () => NOW },
    );
  });

  it('is stored and served in its weekly bucket, before the later ones', async () => {
    const res = await invoke(handlerAt(NOW), apiEvent('/api/v1/earn/3/history?period=all'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      period: 'all',
      interval: '1w',
      from: '1969-12-29T00:00:00.000Z',
      to: NOW.toISOString(),
      point_count: 3,
      data: [
        { timestamp: '1969-12-29T00:00:00.000Z', apy: '1.2', tvl: null },
        { timestamp: '1970-01-05T00:00:00.000Z', apy: '1.3', tvl: '30' },
        { timestamp: '2026-11-16T00:00:00.000Z', apy: '1.4', tvl: '40' },
      ],
    });
  });

  it('packs the weeks of 1969-12-29 and 1970-01-05 into the weekly item that starts on that Monday, keyed before every later one', async () => {
    const items = (await table.items()).filter((item) => item.PK === 'HIST#EARN#3').map((item) => String(item.SK));
    // Hours, 4-hour and daily buckets of 1970 are past their retention and never written; weekly ones are kept for ever.
    expect(items.filter((sk) => !sk.startsWith('1W.'))).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/#0000000/)]),
    );
    // Before 1970: '-' sorts before every digit, and 10^15 + ms keeps the order of negative times.
    expect(items).toEqual(expect.arrayContaining(['1W.52#-999999740800000', '1W.52#001792368000000']));
    expect(items.filter((sk) => sk.startsWith('1W.')).sort()).toEqual([
      '1W.52#-999999740800000',
      '1W.52#001792368000000',
    ]);
  });
});
