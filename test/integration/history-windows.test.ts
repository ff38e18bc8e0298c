/**
 * Custom windows and several offers at once (CONTRACT §12) through the real handler on the
 * embedded DynamoDB with an injected clock, against the oracle of test/helpers/history-oracle.ts
 * over the fixture's raw points: bucket edges, UTC alignment, a window that ends in the past (its
 * last bucket completed from the shorter series), batch order and absence, one budget unit.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { importDataset } from '../../shared/import/importer';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, scanAll, startTestTable, type TestApi, type TestTable } from '../helpers/embedded';
import { historyOracle, retainedPoints, type WindowQuery } from '../helpers/history-oracle';

let table: TestTable;
let history: TestApi['history'];
const data = fixtureDataset();
const earnPoints = data.earn_history[0].points;
const borrowPoints = data.borrow_history[0].points;

beforeAll(async () => {
  table = await startTestTable();
  await importDataset(data, { client: table.client, tableName: table.tableName, now: () => NOW });
  history = table.api({ clock: () => NOW }).history;
});
afterAll(() => table.close());

const query = (q: WindowQuery) => new URLSearchParams(q as Record<string, string>).toString();

describe('custom windows', () => {
  it.each([
    // `from` on a 4h edge, and a millisecond before it (the 00:00 bucket's last observation, 03:00, is then outside).
    { from: '2026-11-19T04:00:00Z', interval: '4h' },
    { from: '2026-11-19T03:59:59.999Z', interval: '4h' },
    { from: '2026-11-19T03:00:00.000Z', interval: '4h' },
    // Default intervals: 24 h → 1h, 3 days → 1h, 20 days → 4h, 200 days → 1d, two years → 1w.
    { from: '2026-11-19T10:30:00Z' },
    { from: '2026-11-17T00:00:00Z' },
    { from: '2026-10-31T10:30:00Z' },
    { from: '2026-05-04T10:30:00Z' },
    { from: '2024-11-20T10:30:00Z' },
    // An offset written +00:00 is the same instant.
    { from: '2026-11-19T04:00:00+00:00' },
    // Windows that end in the past, inside a bucket: its value is the last observation at or before `to`.
    { from: '2026-11-15T00:00:00Z', to: '2026-11-18T13:30:00Z', interval: '1d' },
    { from: '2026-11-14T00:00:00Z', to: '2026-11-18T13:30:00Z', interval: '1w' },
    { from: '2026-11-18T02:00:00Z', to: '2026-11-18T13:30:00Z', interval: '1w' },
    { from: '2026-11-18T09:15:00Z', to: '2026-11-18T13:30:00Z', interval: '4h' },
    // `to` on a day edge: the bucket of `to` holds one observation, the one at `to` itself.
    { from: '2026-11-17T00:00:00Z', to: '2026-11-19T00:00:00Z', interval: '1d' },
    { from: '2026-11-17T00:00:00Z', to: '2026-11-19T00:00:00Z', interval: '1w' },
    // `to` after NOW: the observation at 11:00 counts only up to `to`.
    { from: '2026-11-20T00:00:00Z', to: '2026-11-20T10:59:59.999Z', interval: '4h' },
    { from: '2026-11-20T00:00:00Z', to: '2026-11-20T11:00:00Z', interval: '4h' },
    // `interval` with `period`.
    { period: '1w', interval: '1d' },
    { period: '24h', interval: '1w' },
  ] as WindowQuery[])('earn %j matches the oracle', async (q) => {
    const res = await invoke(history, apiEvent(`/api/v1/earn/1/history?${query(q)}`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(historyOracle(earnPoints, q, NOW, true));
  });

  it.each([
    { from: '2026-11-12T00:00:00Z', to: '2026-11-16T06:00:00Z', interval: '1d' },
    { from: '2026-01-01T00:00:00Z', interval: '1w' },
    { from: '2026-01-01T00:00:00Z' },
  ] as WindowQuery[])('borrow %j matches the oracle', async (q) => {
    const res = await invoke(history, apiEvent(`/api/v1/borrow/1/history?${query(q)}`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(historyOracle(borrowPoints, q, NOW, false));
  });

  it.each([
    ['period=1w&from=2026-11-19T00:00:00Z', ['period', 'from']],
    ['to=2026-11-19T00:00:00Z', ['to', 'from']],
    ['from=2026-11-19T00:00:00Z&to=2026-11-18T00:00:00Z', ['from', 'to']],
    ['from=2026-11-20T09:00:00Z&to=2027-12-01T00:00:00Z&interval=1h', ['interval', '5000']],
    ['period=1y&interval=1h', ['interval', '8761']],
    ['from=yesterday', ['from']],
    ['from=2026-02-30T00:00:00Z', ['from']],
    ['interval=2h', ['interval']],
    ['from=', ['from']],
  ])('%s is a validation_error naming %j', async (q, names) => {
    const res = await invoke(history, apiEvent(`/api/v1/earn/1/history?${q}`));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    const message = res.body.error.details.message.join(' ');
    for (const name of names) expect(message).toContain(name);
  });
});

describe('windows that reach past what their series keep (docs/api.md, "Retention")', () => {
  // The import at NOW wrote no item already past its retention: older buckets of a finer interval are absent.
  it.each([
    ['earn', { period: '3m', interval: '1h' }],
    ['earn', { from: '2026-11-01T00:00:00Z', interval: '1h' }],
    ['borrow', { period: 'all', interval: '1d' }],
    ['borrow', { from: '2025-01-01T00:00:00Z', interval: '4h' }],
  ] as [string, WindowQuery][])('%s %j answers the oracle over the points still kept', async (family, q) => {
    const points = family === 'earn' ? earnPoints : borrowPoints;
    const res = await invoke(history, apiEvent(`/api/v1/${family}/1/history?${query(q)}`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      historyOracle(retainedPoints(points, q.interval as string, NOW), q, NOW, family === 'earn'),
    );
    // Something is left out, and something is answered.
    expect(res.body.point_count).toBeLessThan(historyOracle(points, q, NOW, family === 'earn').point_count);
    expect(res.body.point_count).toBeGreaterThan(0);
  });

  it.each([
    // 7 days and 21 hours ago: the raw observations of its 4-hour bucket are still kept.
    { from: '2026-11-05T00:00:00Z', to: '2026-11-12T13:30:00Z', interval: '1d' },
    // 17 days ago: the raw ones are gone, but the last observation of its 4-hour bucket (15:00) is before `to`.
    { from: '2026-11-01T00:00:00Z', to: '2026-11-03T15:30:00Z', interval: '1d' },
  ] as WindowQuery[])('answers the bucket of a past `to` exactly while a kept series holds it: %j', async (q) => {
    const res = await invoke(history, apiEvent(`/api/v1/earn/1/history?${query(q)}`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(historyOracle(earnPoints, q, NOW, true));
  });

  it('answers the bucket of an older `to` with the last observation of its last whole 4-hour bucket (the raw ones are gone)', async () => {
    const q: WindowQuery = { from: '2026-11-01T00:00:00Z', to: '2026-11-03T13:30:00Z', interval: '1d' };
    const res = await invoke(history, apiEvent(`/api/v1/earn/1/history?${query(q)}`));
    expect(res.status).toBe(200);
    const exact = historyOracle(earnPoints, q, NOW, true);
    // 11:00, the last observation of 08:00–12:00, where the contract's value is that of 13:00.
    const kept = historyOracle(earnPoints, { ...q, to: '2026-11-03T11:59:59.999Z' }, NOW, true);
    expect(res.body).toEqual({ ...exact, data: kept.data });
    expect(res.body.data.at(-1)).not.toEqual(exact.data.at(-1));
  });

  it('leaves out the bucket of `to` when no series still records an observation of it at or before `to`', async () => {
    // 2026-10-01: its daily bucket's last observation (23:00) is after `to`, its 4-hour and raw items are gone.
    const q: WindowQuery = { from: '2026-09-28T00:00:00Z', to: '2026-10-01T13:30:00Z', interval: '1d' };
    const res = await invoke(history, apiEvent(`/api/v1/earn/1/history?${query(q)}`));
    expect(res.status).toBe(200);
    const exact = historyOracle(earnPoints, q, NOW, true);
    expect(res.body).toEqual({ ...exact, point_count: exact.point_count - 1, data: exact.data.slice(0, -1) });
  });
});

describe('several offers at once', () => {
  const earnOf = (id: number) => (id === 1 ? earnPoints : []);

  it('answers one entry per published id, in the order of ids, each as its own window', async () => {
    // 8 is unpublished, 999 unknown; 2 and 4 are published without history.
    const q: WindowQuery = { from: '2026-11-18T02:00:00Z', to: '2026-11-18T13:30:00Z', interval: '1d' };
    const res = await invoke(history, apiEvent(`/api/v1/earn/history?ids=4,999,1,8,2&${query(q)}`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [4, 1, 2].map((id) => ({ id, ...historyOracle(earnOf(id), q, NOW, true) })),
    });
    for (const entry of res.body.data) {
      const single = await invoke(history, apiEvent(`/api/v1/earn/${entry.id}/history?${query(q)}`));
      expect({ id: entry.id, ...single.body }).toEqual(entry);
    }
  });

  it('takes a period (default 1m) and serves borrow too; no published id answers an empty list', async () => {
    const borrow = await invoke(history, apiEvent('/api/v1/borrow/history?ids=1&period=all'));
    expect(borrow.body).toEqual({ data: [{ id: 1, ...historyOracle(borrowPoints, { period: 'all' }, NOW, false) }] });
    const earn = await invoke(history, apiEvent('/api/v1/earn/history?ids=1'));
    expect(earn.body.data[0]).toEqual({ id: 1, ...historyOracle(earnPoints, {}, NOW, true) });
    const none = await invoke(history, apiEvent('/api/v1/earn/history?ids=8,999'));
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ data: [] });
  });

  it('takes one unit of budget, like one offer', async () => {
    const key = { keyId: 'history-batch-budget', perMinute: 10 };
    const ids = Array.from({ length: 50 }, (_, i) => i + 1).join(',');
    const first = await invoke(history, apiEvent(`/api/v1/earn/history?ids=${ids}`, key));
    const second = await invoke(history, apiEvent('/api/v1/earn/1/history', key));
    expect(first.status).toBe(200);
    expect(Number(first.headers['x-ratelimit-remaining'])).toBe(9);
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(8);
  });

  it('answers 50,000 buckets in all and refuses more, naming ids and interval with the count (CONTRACT §12)', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => i + 1).join(',');
    // 50 ids × 1,000 daily buckets: the bound exactly (the buckets of `from` and of `to` both count).
    const to = new Date(NOW.getTime() - 24 * 3_600_000).toISOString();
    const atBound = `from=${new Date(Date.parse(to) - 999 * 24 * 3_600_000).toISOString()}&to=${to}&interval=1d`;
    const allowed = await invoke(history, apiEvent(`/api/v1/earn/history?ids=${fifty}&${atBound}`));
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.length).toBeGreaterThan(0);
    const fromOneDayEarlier = atBound.replace(
      /from=[^&]+/,
      `from=${new Date(Date.parse(to) - 1000 * 24 * 3_600_000).toISOString()}`,
    );
    const over = await invoke(history, apiEvent(`/api/v1/earn/history?ids=${fifty}&${fromOneDayEarlier}`));
    expect(over.status).toBe(400);
    expect(over.body.error.details.message).toEqual([
      'ids and interval give 50050 buckets in all (50 ids × 1001 buckets of 1d): at most 50000 (fewer ids, a longer interval or a shorter window)',
    ]);
    // `all` counts from the earliest bucket: 50 weekly windows since 1970 are past the bound, one is not.
    const all = await invoke(history, apiEvent(`/api/v1/earn/history?ids=${fifty}&period=all`));
    expect(all.status).toBe(400);
    expect(all.body.error.details.message[0]).toMatch(
      /^ids and interval give \d+ buckets in all \(50 ids × \d+ buckets of 1w\)/,
    );
    expect((await invoke(history, apiEvent('/api/v1/earn/history?ids=1&period=all'))).status).toBe(200);
  });

  it.each([
    ['/api/v1/earn/history', 400, 'ids is required'],
    ['/api/v1/earn/history?ids=', 400, 'ids must not be empty'],
    [
      `/api/v1/earn/history?ids=${Array.from({ length: 51 }, (_, i) => i).join(',')}`,
      400,
      'ids must not have more than 50 values',
    ],
    ['/api/v1/earn/history?ids=1,01', 400, 'ids must not contain 01 twice'],
    ['/api/v1/earn/history?ids=1,x', 400, 'ids must be a comma-separated list of integers'],
    [
      '/api/v1/earn/history?ids=1&period=1w&from=2026-11-19T00:00:00Z',
      400,
      'period and from must not be given together: give period, or from (and to)',
    ],
    ['/api/v1/borrow/history?ids=1&sort=apy_desc', 400, 'property sort should not exist'],
    ['/api/v1/collateral/history?ids=1', 404, undefined],
    ['/api/v1/collateral/history', 404, undefined],
  ])('%s answers %i', async (path, status, message) => {
    const res = await invoke(history, apiEvent(path));
    expect(res.status).toBe(status);
    if (message !== undefined) expect(res.body.error.details.message).toContain(message);
    else expect(res.body.error.code).toBe('not_found');
  });
});

describe('a window that ends in the past, once expired items are gone', () => {
  // Sparse: the last observation before `to` in its week is four days older than `to`.
  const sparse = [
    { timestamp: '2026-11-16T00:00:00.000Z', apy: '1.5' },
    { timestamp: '2026-11-21T00:00:00.000Z', apy: '1.7' },
  ];
  const later = new Date('2026-11-27T00:00:00.000Z');

  beforeAll(async () => {
    await importDataset(
      { borrow_history: [{ offer_id: 2, points: sparse }] },
      { client: table.client, tableName: table.tableName, now: () => NOW },
    );
    // What DynamoDB's TTL may have removed by `later`.
    for (const item of await scanAll(table.client, table.tableName))
      if (typeof item.expiresAt === 'number' && item.expiresAt * 1000 <= later.getTime())
        await table.client.send(new DeleteCommand({ TableName: table.tableName, Key: { PK: item.PK, SK: item.SK } }));
  });

  it('completes the bucket of `to` from the series still kept (the daily bucket, not the expired raw observation)', async () => {
    const q: WindowQuery = { from: '2026-11-01T00:00:00Z', to: '2026-11-20T06:00:00Z', interval: '1w' };
    const res = await invoke(
      table.api({ clock: () => later }).history,
      apiEvent(`/api/v1/borrow/2/history?${query(q)}`),
    );
    expect(res.body).toEqual(historyOracle(sparse, q, later, false));
    expect(res.body.data).toEqual([{ timestamp: '2026-11-16T00:00:00.000Z', apy: '1.5' }]);
  });
});
