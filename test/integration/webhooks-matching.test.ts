/**
 * Matching at publish on the embedded DynamoDB (CONTRACT §14 "When", "What"): real imports, the
 * publish seen as the pointer's change, subscriptions of the store; every event kind, the reference
 * APY across three publishes, parts past 100 events, nothing for a family without subscriptions.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createStores } from '../../shared/data/stores';
import { WebhookStore } from '../../shared/data/webhook-store';
import { importDataset, readPointer } from '../../shared/import/importer';
import { subscriptionItem } from '../../shared/webhooks/manage';
import { type FamilyPublished, matchPublished } from '../../shared/webhooks/matching';
import { familiesPublished } from '../../shared/webhooks/published';
import {
  type DeliveryMessage,
  type DeliveryQueue,
  encodeDeliveryMessage,
  MESSAGE_MAX_BYTES,
} from '../../shared/webhooks/queue';
import { generateWebhookId, type SubscriptionInput, validateSubscription } from '../../shared/webhooks/subscription';
import { startTestTable, type TestTable } from '../helpers/embedded';
import { ASSETS, earnRecord, type RecordOf } from '../helpers/records';

/** A logged delivery's attributes: its keys and the owner's view's fields (CONTRACT §14), with the retries' and the TTL's. */
/** A pending delivery's log item (its null fields left out: they decode as null). */
const DELIVERY_ATTRIBUTES = [
  'PK',
  'SK',
  'attempts',
  'events',
  'expiresAt',
  'nextAttemptAt',
  'part',
  'parts',
  'previousSnapshot',
  'snapshot',
  'status',
];

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const HOUR = 3_600_000;

let table: TestTable;
let webhooks: WebhookStore;
let sent: DeliveryMessage[];
const queue: DeliveryQueue = { maxDelaySeconds: 900, send: async (messages) => void sent.push(...messages) };

beforeEach(async () => {
  table = await startTestTable();
  webhooks = new WebhookStore(table.client, table.tableName);
  sent = [];
});
afterEach(() => table.close());

const stores = () =>
  createStores(
    table.client,
    { tableName: table.tableName, snapshotCacheMs: 0, readCacheMb: 0, memoryMb: 512 },
    () => T0,
  );

/** Imports the offers at `at` and matches what the pointer says it published. */
async function publish(offers: RecordOf[], at: number): Promise<{ published: FamilyPublished[]; bodies: any[] }> {
  const before = await readPointer(table.client, table.tableName);
  await importDataset(
    { earn_offers: offers },
    { client: table.client, tableName: table.tableName, now: () => new Date(at) },
  );
  const after = await readPointer(table.client, table.tableName);
  const published = familiesPublished(before?.families, after?.families);
  const first = sent.length;
  for (const p of published)
    await matchPublished({ stores: stores(), webhooks, queue, clock: () => new Date(at + 1000) }, p);
  const bodies = sent.slice(first).map((m) => JSON.parse(m.body));
  return { published, bodies: bodies.sort((a, b) => a.part - b.part) };
}

async function subscribe(input: SubscriptionInput, at: number, userId = 'u1') {
  const spec = validateSubscription({ url: 'https://hooks.example.com/h', family: 'earn', ...input }, 'public');
  const item = subscriptionItem(generateWebhookId(), userId, spec, new Date(at).toISOString());
  await webhooks.create(item, 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', 25);
  return item;
}

const summary = (body: any) =>
  body.events.map((e: any) => [e.type, e.offer_id, e.reasons, e.apy.from, e.apy.to] as const);

describe('matching at publish', () => {
  it('sends added, removed and changed events through the filter, with the served documents', async () => {
    await publish([earnRecord(1, '4'), earnRecord(2, '5'), earnRecord(3, '6', { available: false })], T0);
    const sub = await subscribe(
      { filter: 'min_apy=4.5', conditions: { apy_above: '7', availability: true } },
      T0 + 10 * 60_000,
    );
    const { published, bodies } = await publish(
      [
        earnRecord(1, '4.6'), // now in the filter: added
        earnRecord(2, '4.4'), // out of it: removed
        earnRecord(3, '7.5', { available: true }), // above 7 and available: changed
        earnRecord(4, '1'), // new but not in the filter: nothing
      ],
      T0 + HOUR,
    );
    expect(published.map((p) => p.family)).toEqual(['earn']);
    expect(bodies).toHaveLength(1);
    const [body] = bodies;
    expect(body).toMatchObject({
      type: 'offers.events',
      subscription: sub.id,
      family: 'earn',
      snapshot: published[0].snapshot,
      previous_snapshot: published[0].previous,
      part: 1,
      parts: 1,
    });
    expect(summary(body)).toEqual([
      // Both were served before and after: their APYs in each version (an offer new or gone has null there).
      ['offer.added', 1, [], '4', '4.6'],
      ['offer.removed', 2, [], '5', '4.4'],
      ['offer.changed', 3, ['apy_above', 'availability'], '6', '7.5'],
    ]);
    expect(body.events[2].available).toEqual({ from: false, to: true });
    // The removed offer as the version replaced served it; the others as the new one does.
    expect(body.events[1].offer).toMatchObject({ id: 2, apy: '5' });
    expect(body.events[0].offer).toMatchObject({ id: 1, apy: '4.6' });
  });

  it('catches a slow drift with the stored reference across three publishes', async () => {
    await publish([earnRecord(1, '4.0')], T0);
    await subscribe({ events: ['offer.changed'], conditions: { apy_change: '0.5' } }, T0 + 60_000);
    const steps = ['4.2', '4.4', '4.6'];
    const counts: number[] = [];
    for (const [i, apy] of steps.entries()) {
      const { bodies } = await publish([earnRecord(1, apy)], T0 + (i + 1) * HOUR);
      counts.push(bodies.length);
      if (bodies.length > 0) expect(summary(bodies[0])).toEqual([['offer.changed', 1, ['apy_change'], '4.4', '4.6']]);
    }
    expect(counts).toEqual([0, 0, 1]);
    // The event's APY is the reference now: 0.4 more is not enough.
    expect((await publish([earnRecord(1, '5.0')], T0 + 4 * HOUR)).bodies).toHaveLength(0);
    expect((await publish([earnRecord(1, '5.1')], T0 + 5 * HOUR)).bodies).toHaveLength(1);
  });

  it("adds a slow drift up among other subscriptions sharing the family's references", async () => {
    const other = { ...ASSETS[1] };
    await publish([earnRecord(1, '4.0'), earnRecord(2, '4.0', { asset: other })], T0);
    const watcher = await subscribe(
      { filter: `asset=${ASSETS[0].slug}`, events: ['offer.changed'], conditions: { apy_change: '0.5' } },
      T0 + 60_000,
    );
    // Others share the family's reference buckets: the other asset's, and a filter naming no offer.
    const others = [
      await subscribe({ filter: `asset=${other.slug}`, conditions: { apy_change: '0.5' } }, T0 + 60_000, 'u2'),
      await subscribe({ filter: 'ids=1,2', conditions: { apy_change: '0.3' } }, T0 + 60_000, 'u3'),
    ];
    const steps = ['4.2', '4.4', '4.6'];
    const sends: { subscription: string; id: string }[] = [];
    for (const [i, apy] of steps.entries()) {
      const at = T0 + (i + 1) * HOUR;
      const { bodies } = await publish([earnRecord(1, apy), earnRecord(2, apy, { asset: other })], at);
      const first = sent.splice(0);
      sends.push(...first.map((m) => ({ subscription: m.subscriptionId, id: m.deliveryId })));
      if (i < 2) expect(bodies.filter((b) => b.subscription === watcher.id)).toEqual([]);
      else
        expect(summary(bodies.find((b) => b.subscription === watcher.id))).toEqual([
          ['offer.changed', 1, ['apy_change'], '4.4', '4.6'],
        ]);
    }
    expect(sends.filter((s) => s.subscription === watcher.id)).toHaveLength(1);
    // `ids=1,2` with 0.3: 4.0 → 4.4 is its first event for each offer, 4.4 → 4.6 too little after it.
    expect(sends.filter((s) => s.subscription === others[1].id)).toHaveLength(1);
    expect(sends.filter((s) => s.subscription === others[0].id)).toHaveLength(1);
  });

  it('finds the same events under the same webhook-ids when matching failed before writing the references', async () => {
    await publish([earnRecord(1, '4.0')], T0);
    const sub = await subscribe({ events: ['offer.changed'], conditions: { apy_change: '0.5' } }, T0 + 60_000);
    await publish([earnRecord(1, '4.3')], T0 + HOUR);
    // The second drift's matching throws as it writes the references (the stream retries the record).
    const before = await readPointer(table.client, table.tableName);
    await importDataset(
      { earn_offers: [earnRecord(1, '4.6')] },
      { client: table.client, tableName: table.tableName, now: () => new Date(T0 + 2 * HOUR) },
    );
    const [p] = familiesPublished(before?.families, (await readPointer(table.client, table.tableName))?.families);
    const failing: WebhookStore = Object.create(webhooks, {
      writeReferences: { value: async () => Promise.reject(new Error('throttled')) },
    });
    const clock = () => new Date(T0 + 2 * HOUR + 1000);
    await expect(matchPublished({ stores: stores(), webhooks: failing, queue, clock }, p)).rejects.toThrow('throttled');
    const first = sent.splice(0);
    expect(first).toHaveLength(1);
    expect(summary(JSON.parse(first[0].body))).toEqual([['offer.changed', 1, ['apy_change'], '4.3', '4.6']]);
    // Retried: the references are the ones it started from, so the same delivery, the same webhook-id.
    await matchPublished({ stores: stores(), webhooks, queue, clock }, p);
    expect(sent.splice(0)).toEqual(first);
    // Written now: the event's APY is the reference, 0.3 more sends nothing.
    expect((await publish([earnRecord(1, '4.9')], T0 + 3 * HOUR)).bodies).toHaveLength(0);
    expect(sub.id).toBe(first[0].subscriptionId);
  });

  it('splits more than 100 events into parts, in offer-id order', async () => {
    await publish([], T0);
    await subscribe({ events: ['offer.added'] }, T0 + 60_000);
    const offers = Array.from({ length: 230 }, (_, i) => earnRecord(i + 1, '3'));
    const { bodies } = await publish(offers, T0 + HOUR);
    expect(bodies.map((b) => [b.part, b.parts, b.events.length])).toEqual([
      [1, 3, 100],
      [2, 3, 100],
      [3, 3, 30],
    ]);
    const ids = bodies.flatMap((b) => b.events.map((e: any) => e.offer_id));
    expect(ids).toEqual(offers.map((o) => o.id));
  });

  it('logs each delivery as its state alone (the body travels in the message), under an id derived from the publish', async () => {
    await publish([], T0);
    const sub = await subscribe({ events: ['offer.added'] }, T0 + 60_000);
    const offers = Array.from({ length: 150 }, (_, i) => earnRecord(i + 1, '3'));
    const { published } = await publish(offers, T0 + HOUR);
    const messages = sent.splice(0);
    expect(messages).toHaveLength(2);
    for (const message of messages)
      expect(Buffer.byteLength(encodeDeliveryMessage(message))).toBeLessThan(MESSAGE_MAX_BYTES);
    // The log: what the owner's view shows, no body; its keys name the subscription and the delivery.
    const logged = await webhooks.deliveriesSince(sub.id, 'msg_');
    expect(logged.map((d) => d.id).sort()).toEqual(messages.map((m) => m.deliveryId).sort());
    for (const delivery of logged)
      expect(delivery).toMatchObject({ status: 'pending', attempts: 0, firstAttemptAt: null, lastError: null });
    const { Items = [] } = await table.client.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: 'begins_with(PK, :p)',
        ExpressionAttributeValues: { ':p': 'WHDELIVERY#' },
      }),
    );
    expect(Items).toHaveLength(2);
    for (const item of Items) expect(Object.keys(item).sort()).toEqual(DELIVERY_ATTRIBUTES);
    // Matched again (a stream record retried, a later clock): the same ids and the same bodies.
    for (const p of published)
      await matchPublished({ stores: stores(), webhooks, queue, clock: () => new Date(T0 + 2 * HOUR) }, p);
    expect(sent).toEqual(messages);
  });

  it('sends nothing to a disabled subscription, one created after the publish, or for a publish with no event', async () => {
    await publish([earnRecord(1, '4')], T0);
    const later = await subscribe({ events: ['offer.added'] }, T0 + 2 * HOUR);
    const { bodies } = await publish([earnRecord(1, '4'), earnRecord(2, '4')], T0 + HOUR);
    expect(bodies).toHaveLength(0);
    expect(later.id).toMatch(/^wh_/);
    const quiet = await publish([earnRecord(1, '4'), earnRecord(2, '4.01')], T0 + 3 * HOUR);
    expect(quiet.bodies).toHaveLength(0);
  });

  it('reads nothing for a family without subscriptions', async () => {
    await publish([earnRecord(1, '4')], T0);
    const result = await matchPublished(
      { stores: stores(), webhooks, queue, clock: () => new Date(T0) },
      { family: 'borrow', previous: 'none', snapshot: 'none', publishedAt: new Date(T0).toISOString() },
    );
    expect(result).toEqual({ subscriptions: 0, events: 0, deliveries: 0, referencesWritten: 0 });
  });
});
