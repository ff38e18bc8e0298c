/**
 * Per-key budgets on the embedded DynamoDB (docs/api.md, "Quotas and headers"): exact under
 * concurrency, fixed UTC windows with an injected clock, a 429 costs no monthly budget, and the
 * usage headers and refusal details.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { QUOTA_ATTRIBUTES, quotaKey } from '../../shared/data/keys';
import { importDataset } from '../../shared/import/importer';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestTable } from '../helpers/embedded';
import { injectFaults } from '../helpers/faults';

let table: TestTable;

beforeAll(async () => {
  table = await startTestTable();
  await importDataset(fixtureDataset(), { client: table.client, tableName: table.tableName, now: () => NOW });
});
afterAll(() => table.close());

const at = (iso: string) => {
  const clock = { now: new Date(iso) };
  return { clock, handler: table.api({ clock: () => clock.now }).platforms };
};

/** A stored count: the month's, or a minute's (the item holds the count of its latest minute only). */
async function counter(keyId: string, window: 'MIN' | 'MON', id: string): Promise<number | undefined> {
  const out = await table.client.send(
    new GetCommand({ TableName: table.tableName, Key: quotaKey(keyId, id.slice(0, 6)) }),
  );
  const item = out.Item ?? {};
  if (window === 'MON') return item[QUOTA_ATTRIBUTES.monthCount] as number | undefined;
  return item[QUOTA_ATTRIBUTES.minute] === Number(id) ? (item[QUOTA_ATTRIBUTES.minuteCount] as number) : undefined;
}

it('lets exactly 25 of 100 concurrent requests through on a key limited to 25 per minute', async () => {
  const { handler } = at('2026-11-20T10:00:10.000Z');
  const event = () => apiEvent('/api/v1/exchanges?limit=1', { keyId: 'k-concurrent', perMinute: 25, perMonth: 1000 });

  const results = await Promise.all(Array.from({ length: 100 }, () => invoke(handler, event())));

  const statuses = results.map((r) => r.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(25);
  expect(statuses.filter((s) => s === 429)).toHaveLength(75);
  expect(await counter('k-concurrent', 'MIN', '202611201000')).toBe(25);
  // Refused requests took no monthly unit.
  expect(await counter('k-concurrent', 'MON', '202611')).toBe(25);
});

it('refuses with rate_limit_exceeded, its details, Retry-After and usage headers', async () => {
  const { handler } = at('2026-11-20T10:05:50.250Z');
  const event = () => apiEvent('/api/v1/wallets', { keyId: 'k-refused', perMinute: 2, perMonth: 10 });
  await invoke(handler, event());
  const second = await invoke(handler, event());
  const third = await invoke(handler, event());

  expect(second.status).toBe(200);
  expect(second.headers).toMatchObject({
    'x-ratelimit-limit': '2',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(Date.parse('2026-11-20T10:06:00.000Z') / 1000),
    'x-quota-limit': '10',
    'x-quota-remaining': '8',
    'x-quota-reset': String(Date.parse('2026-12-01T00:00:00.000Z') / 1000),
  });
  expect(third.status).toBe(429);
  expect(third.body.error).toEqual({
    code: 'rate_limit_exceeded',
    message: expect.any(String),
    details: { reset_at: '2026-11-20T10:06:00.000Z', limit: 2 },
  });
  expect(third.headers['retry-after']).toBe('10');
  expect(third.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'x-quota-remaining': '8' });
  // The standard fields (draft-ietf-httpapi-ratelimit-headers-11) say the same: 10 s and 914,049.75 s to the resets.
  expect(third.headers['ratelimit-policy']).toBe('"minute";q=2;w=60, "month";q=10');
  expect(third.headers.ratelimit).toBe('"minute";r=0;t=10, "month";r=8;t=914050');
  expect(second.headers.ratelimit).toBe('"minute";r=0;t=10, "month";r=8;t=914050');
});

it('starts a new budget in the next UTC minute', async () => {
  const { clock, handler } = at('2026-11-20T10:07:59.900Z');
  const event = () => apiEvent('/api/v1/wallets', { keyId: 'k-rollover', perMinute: 1, perMonth: 100 });
  expect((await invoke(handler, event())).status).toBe(200);
  expect((await invoke(handler, event())).status).toBe(429);

  clock.now = new Date('2026-11-20T10:08:00.000Z');
  const next = await invoke(handler, event());
  expect(next.status).toBe(200);
  expect(next.headers['x-ratelimit-remaining']).toBe('0');
  expect(next.headers['x-quota-remaining']).toBe('98');
});

it('refuses with monthly_quota_exceeded until the 1st of the next month, keeping the minute unit', async () => {
  const { clock, handler } = at('2026-11-30T23:58:00.000Z');
  const event = () => apiEvent('/api/v1/exchanges', { keyId: 'k-month', perMinute: 100, perMonth: 2 });
  await invoke(handler, event());
  await invoke(handler, event());
  const refused = await invoke(handler, event());

  expect(refused.status).toBe(429);
  expect(refused.body.error).toEqual({
    code: 'monthly_quota_exceeded',
    message: expect.any(String),
    details: { reset_at: '2026-12-01T00:00:00.000Z', limit: 2 },
  });
  expect(refused.headers['retry-after']).toBe('120');
  expect(refused.headers).toMatchObject({ 'x-quota-remaining': '0', 'x-ratelimit-remaining': '97' });
  expect(await counter('k-month', 'MIN', '202611302358')).toBe(3);

  clock.now = new Date('2026-12-01T00:00:00.000Z');
  const december = await invoke(handler, event());
  expect(december.status).toBe(200);
  expect(december.headers['x-quota-remaining']).toBe('1');
});

it('gives rate_limit_exceeded when both budgets are spent', async () => {
  const { handler } = at('2026-11-20T11:00:00.000Z');
  const event = () => apiEvent('/api/v1/exchanges', { keyId: 'k-both', perMinute: 1, perMonth: 1 });
  await invoke(handler, event());
  const refused = await invoke(handler, event());
  expect(refused.body.error.code).toBe('rate_limit_exceeded');
  expect(refused.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'x-quota-remaining': '0' });
});

it('charges 301, 400 and 404 answers like any other', async () => {
  const { handler } = at('2026-11-20T12:00:00.000Z');
  const event = (path: string) => apiEvent(path, { keyId: 'k-charged', perMinute: 10, perMonth: 10 });
  const answers = [
    await invoke(handler, event('/api/v1/exchanges/bybit-old')),
    await invoke(handler, event('/api/v1/exchanges?limit=0')),
    await invoke(handler, event('/api/v1/exchanges/nope')),
  ];
  expect(answers.map((a) => a.status)).toEqual([301, 400, 404]);
  expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['9', '8', '7']);
  expect(await counter('k-charged', 'MON', '202611')).toBe(3);
});

it('uses the configured defaults for a key without its own limits', async () => {
  const { handler } = at('2026-11-20T13:00:00.000Z');
  const res = await invoke(handler, apiEvent('/api/v1/exchanges', { keyId: 'k-default' }));
  expect(res.headers).toMatchObject({
    'x-ratelimit-limit': '60',
    'x-quota-limit': '100000',
    'x-ratelimit-remaining': '59',
  });
});

it('answers a key that keeps calling after its refusal without reading any data', async () => {
  const { handler } = at('2026-11-20T14:00:05.000Z');
  const event = () => apiEvent('/api/v1/exchanges?limit=200', { keyId: 'k-no-read', perMinute: 3, perMonth: 1000 });
  // Every call on the data client: the counters have their own client.
  const reads: string[] = [];
  const probe = injectFaults([table.client], (call) => void reads.push(call.command));

  const statuses: number[] = [];
  const readsOf: number[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const before = reads.length;
      statuses.push((await invoke(handler, event())).status);
      readsOf.push(reads.length - before);
    }
  } finally {
    probe.remove();
  }

  expect(statuses).toEqual([200, 200, 200, 429, 429]);
  for (const served of readsOf.slice(0, 3)) expect(served).toBeGreaterThan(0);
  expect(readsOf.slice(3)).toEqual([0, 0]);
  expect(await counter('k-no-read', 'MIN', '202611201400')).toBe(3);
  expect(await counter('k-no-read', 'MON', '202611')).toBe(3);
});

it('reads nothing for the refusals of a burst and still admits exactly the limit', async () => {
  const { handler } = at('2026-11-20T14:10:05.000Z');
  const event = () => apiEvent('/api/v1/exchanges?limit=1', { keyId: 'k-burst-reads', perMinute: 5, perMonth: 1000 });
  const reads: string[] = [];
  const probe = injectFaults([table.client], (call) => void reads.push(call.command));
  let results;
  try {
    results = await Promise.all(Array.from({ length: 60 }, () => invoke(handler, event())));
  } finally {
    probe.remove();
  }
  expect(results.filter((r) => r.status === 200)).toHaveLength(5);
  // Only the first request of the burst reads beside its charge; the others are charged first and
  // read only when admitted: one page Query each for at most 6 requests, none for the 55 refused.
  expect(reads.filter((c) => c === 'QueryCommand').length).toBeLessThanOrEqual(6);
  expect(reads.length).toBeLessThan(60);
  expect(await counter('k-burst-reads', 'MIN', '202611201410')).toBe(5);
  expect(await counter('k-burst-reads', 'MON', '202611')).toBe(5);
});

it('reports the monthly budget without the refused units during a burst on a 10/minute key', async () => {
  const { handler } = at('2026-11-20T15:00:00.000Z');
  const event = () => apiEvent('/api/v1/exchanges?limit=1', { keyId: 'k-burst', perMinute: 10, perMonth: 100_000 });

  const results = await Promise.all(Array.from({ length: 200 }, () => invoke(handler, event())));

  const refused = results.filter((r) => r.status === 429);
  expect(results.filter((r) => r.status === 200)).toHaveLength(10);
  expect(refused).toHaveLength(190);
  expect(await counter('k-burst', 'MON', '202611')).toBe(10);
  // No refusal counts a refused request's unit as spent: at most the 10 admitted ones.
  const reported = refused.map((r) => Number(r.headers['x-quota-remaining']));
  expect(Math.min(...reported)).toBeGreaterThanOrEqual(100_000 - 10);
});

describe('two instances whose clocks straddle a minute boundary (CONTRACT §6)', () => {
  /** Every answer's status by the minute window its X-RateLimit-Reset names. */
  const byWindow = (answers: { status: number; headers: Record<string, string> }[]) => {
    const windows = new Map<string, { admitted: number; refused: number }>();
    for (const answer of answers) {
      const window = windows.get(answer.headers['x-ratelimit-reset']) ?? { admitted: 0, refused: 0 };
      if (answer.status === 429) window.refused += 1;
      else window.admitted += 1;
      windows.set(answer.headers['x-ratelimit-reset'], window);
    }
    return Object.fromEntries(windows);
  };
  const reset = (iso: string) => String(Date.parse(iso) / 1000);

  it('names the window a request was counted in: at most the limit admitted under each X-RateLimit-Reset', async () => {
    // Instance A's clock is still in 10:20; instance B's, two seconds ahead, is in 10:21.
    const behind = at('2026-11-20T10:20:59.500Z').handler;
    const ahead = at('2026-11-20T10:21:01.500Z').handler;
    const event = () => apiEvent('/api/v1/wallets', { keyId: 'k-straddle', perMinute: 5, perMonth: 1000 });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await invoke(behind, event()));
    answers.push(await invoke(ahead, event()));
    // A charges after B started 10:21: those requests are counted in 10:21 and must say so.
    for (let i = 0; i < 6; i++) answers.push(await invoke(behind, event()));
    for (let i = 0; i < 2; i++) answers.push(await invoke(ahead, event()));

    expect(byWindow(answers)).toEqual({
      [reset('2026-11-20T10:21:00Z')]: { admitted: 5, refused: 0 },
      [reset('2026-11-20T10:22:00Z')]: { admitted: 5, refused: 4 },
    });
    // A's refusals name 10:21's end: their Retry-After counts to it from A's clock.
    const late = answers.slice(6, 12);
    expect(late.map((a) => a.status)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(late[5].headers['retry-after']).toBe('61');
    expect(late[5].body.error.details.reset_at).toBe('2026-11-20T10:22:00.000Z');
    expect(await counter('k-straddle', 'MIN', '202611201021')).toBe(5);
    expect(await counter('k-straddle', 'MON', '202611')).toBe(10);
  });

  it('keeps that bound for concurrent requests of both instances', async () => {
    const behind = at('2026-11-20T10:30:59.000Z').handler;
    const ahead = at('2026-11-20T10:31:02.000Z').handler;
    const event = () => apiEvent('/api/v1/wallets', { keyId: 'k-straddle-burst', perMinute: 7, perMonth: 1000 });
    const first = await Promise.all(Array.from({ length: 5 }, () => invoke(behind, event())));
    const burst = await Promise.all(
      Array.from({ length: 40 }, (_, i) => invoke(i % 2 === 0 ? behind : ahead, event())),
    );

    const windows = byWindow([...first, ...burst]);
    for (const window of Object.values(windows)) expect(window.admitted).toBeLessThanOrEqual(7);
    // The later minute filled; every unit counted is an answer that names its window.
    expect(windows[reset('2026-11-20T10:32:00Z')].admitted).toBe(7);
    const admitted = Object.values(windows).reduce((sum, w) => sum + w.admitted, 0);
    expect(await counter('k-straddle-burst', 'MON', '202611')).toBe(admitted);
  });
});
