/**
 * Delivery on the local stack (CONTRACT §14 "Signed", "Delivered at least once", "Locally") with a
 * real HTTP receiver on loopback and the test's clock: an accounts file's subscription, an import
 * that publishes, the POST signed as the `standardwebhooks` package verifies it, a retry with the
 * same `webhook-id` on the schedule, a redirect not followed, a slow receiver counted as a failure,
 * the subscription disabled after 24 h without success and sent nothing after.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createReceiver } from '../../examples/webhook-receiver';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { importDataset } from '../../shared/import/importer';
import { RETRY_SCHEDULE_MS } from '../../shared/webhooks/delivery';
import { get } from '../helpers/client';
import { earnRecord, type RecordOf } from '../helpers/records';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const HOUR = 3_600_000;
const SECRET = `whsec_${Buffer.from('a-test-secret-of-thirty-two-bytes!!').toString('base64')}`;
const WEBHOOK_ID = 'wh_0123456789abcdef0123';
const KEY = 'webhooks_key_0123456789abcdefghijklmnop';
const OTHER_KEY = 'webhooks_other_0123456789abcdefghijklm';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers, per request: a status, optionally after a wait or with a Location. */
let answer: (path: string) => { status: number; waitMs?: number; location?: string };
let received: Received[];
let receiver: Server;
let port: number;
const clock = { now: T0 };
let stack: LocalStack;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      const { status, waitMs, location } = answer(req.url ?? '');
      setTimeout(() => res.writeHead(status, location ? { location } : {}).end(), waitMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));

beforeEach(async () => {
  received = [];
  answer = () => ({ status: 204 });
  clock.now = T0;
  stack = await startStack(
    [earnRecord(1, '4'), earnRecord(2, '5')],
    [hook(`http://127.0.0.1:${port}/hooks`, { conditions: { apy_above: '6' } })],
    { intervalMs: 0, timeoutMs: 300 },
    [{ id: 'u2', premium: true, keys: [{ key: OTHER_KEY }] }],
  );
});
afterEach(() => stack.close());

/** The local stack of these tests on the test's clock: user u1 (KEY) with `webhooks`, and `others`. */
const startStack = (
  offers: RecordOf[],
  webhooks: Record<string, unknown>[],
  options: { intervalMs: number; timeoutMs?: number },
  others: Record<string, unknown>[] = [],
) =>
  startLocalStack({
    dataset: { earn_offers: offers },
    accounts: { users: [{ id: 'u1', premium: true, keys: [{ key: KEY }], webhooks }, ...others] },
    clock: () => new Date(clock.now),
    webhooks: options,
  });

/** A subscription of u1's to earn, WEBHOOK_ID signed with SECRET unless `fields` say otherwise. */
const hook = (url: string, fields: Record<string, unknown> = {}) => ({
  id: WEBHOOK_ID,
  url,
  family: 'earn',
  secret: SECRET,
  ...fields,
});

/** Imports offers at `at` (the clock moves there), then lets the stack match and send. */
async function publishAt(at: number, offers: RecordOf[]) {
  clock.now = at;
  await importDataset(
    { earn_offers: offers },
    { client: stack.clients.client, tableName: stack.tableName, now: () => new Date(at) },
  );
  await stack.webhooks.poll();
}

async function at(instant: number) {
  clock.now = instant;
  await stack.webhooks.poll();
}

/** Verified by the package, as a receiver whose clock reads `instant` verifies it. */
function verified(request: Received, instant: number): unknown {
  const now = jest.spyOn(Date, 'now').mockReturnValue(instant);
  try {
    return new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>);
  } finally {
    now.mockRestore();
  }
}

const deliveries = () => stack.webhooks.webhooks.deliveriesSince(WEBHOOK_ID, 'msg_');

describe('webhook delivery on the local stack', () => {
  it('POSTs the events of a publish, signed as Standard Webhooks verifies', async () => {
    await publishAt(T0 + HOUR, [earnRecord(1, '7'), earnRecord(2, '5'), earnRecord(3, '1')]);
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request.path).toBe('/hooks');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-timestamp']).toBe(String((T0 + HOUR) / 1000));
    const body = verified(request, T0 + HOUR) as any;
    expect(body.events.map((e: any) => [e.type, e.offer_id, e.reasons])).toEqual([
      ['offer.changed', 1, ['apy_above']],
      ['offer.added', 3, []],
    ]);
    // Another secret does not verify it.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request.body, request.headers as any),
    ).toThrow();
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, lastStatus: 204, events: 2 });
  });

  it('retries a failed attempt on the schedule with the same webhook-id, then delivers', async () => {
    answer = () => ({ status: 500 });
    await publishAt(T0 + HOUR, [earnRecord(1, '7'), earnRecord(2, '5')]);
    expect(received).toHaveLength(1);
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 500 });
    await at(T0 + HOUR + RETRY_SCHEDULE_MS[0] - 1000);
    expect(received).toHaveLength(1);
    answer = () => ({ status: 200 });
    await at(T0 + HOUR + RETRY_SCHEDULE_MS[0]);
    expect(received).toHaveLength(2);
    expect(received[1].headers['webhook-id']).toBe(received[0].headers['webhook-id']);
    expect(received[1].body).toBe(received[0].body);
    verified(received[1], T0 + HOUR + RETRY_SCHEDULE_MS[0]);
    expect((await deliveries())[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('follows no redirect and counts a slow receiver as a failure', async () => {
    answer = (path) => (path === '/hooks' ? { status: 302, location: '/elsewhere' } : { status: 200 });
    await publishAt(T0 + HOUR, [earnRecord(1, '7'), earnRecord(2, '5')]);
    expect(received.map((r) => r.path)).toEqual(['/hooks']);
    expect((await deliveries())[0]).toMatchObject({ status: 'pending', lastStatus: 302, lastError: 'HTTP 302' });

    answer = () => ({ status: 200, waitMs: 1000 });
    await at(T0 + HOUR + RETRY_SCHEDULE_MS[0]);
    expect((await deliveries())[0]).toMatchObject({
      status: 'pending',
      attempts: 2,
      lastStatus: null,
      lastError: 'timeout',
    });
  });

  it('disables a subscription after 24 hours without a success and sends it nothing more', async () => {
    answer = () => ({ status: 503 });
    await publishAt(T0 + HOUR, [earnRecord(1, '7'), earnRecord(2, '5')]);
    for (const retry of RETRY_SCHEDULE_MS) await at(T0 + HOUR + retry);
    expect(received).toHaveLength(1 + RETRY_SCHEDULE_MS.length);
    expect((await deliveries())[0]).toMatchObject({ status: 'failed', attempts: 7 });
    // Still active after 10 h of failures; another publish, whose retries pass the 24 h.
    await publishAt(T0 + 20 * HOUR, [earnRecord(1, '5'), earnRecord(2, '5')]);
    await publishAt(T0 + 21 * HOUR, [earnRecord(1, '8'), earnRecord(2, '5')]);
    const before = received.length;
    for (const retry of RETRY_SCHEDULE_MS) await at(T0 + 21 * HOUR + retry);
    const subscription = await stack.webhooks.webhooks.getSubscription('earn', WEBHOOK_ID);
    expect(subscription).toMatchObject({ status: 'disabled' });
    expect(subscription?.disabledReason).toMatch(/24 hours/);
    const sentAfter = received.length;
    expect(sentAfter).toBeGreaterThan(before);
    answer = () => ({ status: 200 });
    await publishAt(T0 + 40 * HOUR, [earnRecord(1, '5'), earnRecord(2, '5')]);
    await publishAt(T0 + 41 * HOUR, [earnRecord(1, '9'), earnRecord(2, '5')]);
    expect(received.length).toBe(sentAfter);
  });
});

describe("the owner's view", () => {
  it('lists the key user’s subscriptions and their deliveries, never a secret; another user gets 404', async () => {
    answer = () => ({ status: 500 });
    await publishAt(T0 + HOUR, [earnRecord(1, '7'), earnRecord(2, '5')]);
    const list = await get(stack.url, '/api/v1/webhooks', { key: KEY });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      data: [
        {
          id: WEBHOOK_ID,
          url: `http://127.0.0.1:${port}/hooks`,
          family: 'earn',
          filter: '',
          events: ['offer.added', 'offer.removed', 'offer.changed'],
          conditions: { apy_above: '6' },
          status: 'active',
          disabled_reason: null,
          created_at: new Date(T0).toISOString(),
          last_success_at: null,
          last_failure_at: new Date(T0 + HOUR).toISOString(),
        },
      ],
      pagination: { total: 1, offset: 0, limit: 50, has_more: false },
    });
    const deliveries = await get(stack.url, `/api/v1/webhooks/${WEBHOOK_ID}/deliveries?limit=5`, { key: KEY });
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data).toEqual([
      expect.objectContaining({
        status: 'pending',
        attempts: 1,
        events: 1,
        last_status: 500,
        last_error: 'HTTP 500',
        next_attempt_at: new Date(T0 + HOUR + RETRY_SCHEDULE_MS[0]).toISOString(),
        delivered_at: null,
      }),
    ]);
    expect(JSON.stringify([list.body, deliveries.body])).not.toContain(SECRET.slice(6, 30));
    const other = await get(stack.url, `/api/v1/webhooks/${WEBHOOK_ID}/deliveries`, { key: OTHER_KEY });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
    expect((await get(stack.url, '/api/v1/webhooks', { key: OTHER_KEY })).body.data).toEqual([]);
    const malformed = await get(stack.url, '/api/v1/webhooks/nope/deliveries', { key: KEY });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.details.message[0]).toMatch(/^id /);
  });
});

describe('npm start: deliveries on a timer', () => {
  it('delivers a publish by itself, and a receiver that hangs holds up no later publish', async () => {
    await stack.close();
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: Promise<void>[] = [];
    const arrivals: (() => void)[] = [];
    for (let i = 0; i < 2; i++) seen.push(new Promise((resolve) => arrivals.push(resolve)));
    // The first POST hangs until released; the second is answered at once.
    let count = 0;
    const timed = createServer((req, res) => {
      req.resume();
      const n = count++;
      arrivals[n]?.();
      if (n === 0) void hanging.then(() => res.writeHead(200).end());
      else res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => timed.listen(0, '127.0.0.1', resolve));
    const timedPort = (timed.address() as AddressInfo).port;
    stack = await startStack(
      [earnRecord(1, '4')],
      [hook(`http://127.0.0.1:${timedPort}/`, { events: ['offer.added'] })],
      { intervalMs: 100, timeoutMs: 60_000 },
    );
    const importAt = (at: number, ids: number[]) =>
      importDataset(
        { earn_offers: ids.map((id) => earnRecord(id, '4')) },
        { client: stack.clients.client, tableName: stack.tableName, now: () => new Date(at) },
      );
    clock.now = T0 + HOUR;
    await importAt(T0 + HOUR, [1, 2]);
    await seen[0];
    // The first delivery still hangs: the next publish is matched and sent all the same.
    clock.now = T0 + 2 * HOUR;
    await importAt(T0 + 2 * HOUR, [1, 2, 3]);
    await seen[1];
    release();
    await stack.webhooks.stop();
    await new Promise((resolve) => timed.close(resolve));
    const states = (await deliveries()).map((d) => d.status);
    expect(states).toEqual(['delivered', 'delivered']);
  });
});

describe('examples/webhook-receiver.ts', () => {
  it('verifies a delivery with the package and prints its events; refuses another signature', async () => {
    const lines: string[] = [];
    const example = createReceiver(SECRET, (line) => void lines.push(line));
    await new Promise<void>((resolve) => example.listen(0, '127.0.0.1', resolve));
    const examplePort = (example.address() as AddressInfo).port;
    // The receiver checks the timestamp against its own clock: it reads the test's.
    const now = jest.spyOn(Date, 'now').mockImplementation(() => clock.now);
    try {
      await stack.close();
      stack = await startStack(
        [earnRecord(1, '4')],
        [
          hook(`http://127.0.0.1:${examplePort}/`, { conditions: { apy_change: '0.5' } }),
          hook(`http://127.0.0.1:${examplePort}/`, {
            id: 'wh_ffffffffffffffffffff',
            secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}`,
            events: ['offer.added'],
          }),
        ],
        { intervalMs: 0 },
      );
      await publishAt(T0 + HOUR, [earnRecord(1, '4.5'), earnRecord(2, '3')]);
    } finally {
      now.mockRestore();
      await new Promise((resolve) => example.close(resolve));
    }
    expect(lines.filter((l) => !l.startsWith('refused'))).toEqual([
      expect.stringMatching(/^msg_\d+\w+ earn 1\/1 offer\.changed offer 1 apy 4 → 4\.5 \(apy_change\)$/),
      expect.stringMatching(/^msg_\d+\w+ earn 1\/1 offer\.added offer 2 apy - → 3$/),
    ]);
    expect(lines.filter((l) => l.startsWith('refused'))).toEqual(['refused a delivery: No matching signature found']);
  });
});
