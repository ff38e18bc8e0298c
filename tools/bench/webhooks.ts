/**
 * What webhooks cost (issue 42, "Measured"; CONTRACT §14; docs/adr/0028-webhook-delivery.md), on a
 * table holding the dataset's catalog and earn offers:
 *
 * - matching: a 5 % earn refresh (tools/bench/imports.ts `refreshed`) published by the real import and
 *   matched by `matchPublished` against `subscriptions` active earn subscriptions of mixed filters and
 *   conditions (`benchSubscription`), at three points (a tenth of them; all; all with 1 % changed), each
 *   point two publishes of the same shape: one timed on a plain client (wall time against the embedded
 *   DynamoDB, which serves one request at a time: an upper bound of the function's time; its messages
 *   through the deployed queue's code to a client without network, `sqsWithoutNetwork`), one counted
 *   (write-units.ts: read units as reported, write units by DynamoDB's item-size rules, by item kind).
 *   Then a publish of a family with no subscription (borrow), its read units;
 * - writes per publish: the reference APYs and the delivery log of the counted publish, and what the
 *   same bodies would cost stored as items (the design before the bodies moved into the messages);
 *   the largest message against SQS's 256 KiB;
 * - time to first attempt: the local stack's webhooks as `npm start` runs them (the pointer read every
 *   second, the in-process queue, the real sending handler) with `loopback` subscriptions to a receiver
 *   on 127.0.0.1, `publishes` 5 % refreshes, from the end of each import to the arrival of each
 *   delivery's first POST (performance.now()).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startLocalWebhooks } from '../../local/webhooks';
import type { OfferFamily } from '../../shared/data/keys';
import { createStores } from '../../shared/data/stores';
import { type SubscriptionItem, WebhookStore } from '../../shared/data/webhook-store';
import { importDataset, readPointer } from '../../shared/import/importer';
import { systemClock } from '../../shared/platform/clock';
import { createDocumentClient } from '../../shared/platform/dynamodb';
import { subscriptionItem } from '../../shared/webhooks/manage';
import { type FamilyPublished, matchPublished } from '../../shared/webhooks/matching';
import { familiesPublished } from '../../shared/webhooks/published';
import {
  type DeliveryMessage,
  type DeliveryQueue,
  encodeDeliveryMessage,
  MESSAGE_MAX_BYTES,
} from '../../shared/webhooks/queue';
import { SqsDeliveryQueue } from '../../shared/webhooks/sqs-queue';
import { type SubscriptionInput, validateSubscription } from '../../shared/webhooks/subscription';
import type { GeneratedDataset } from '../sample-data/generate';
import { refreshed } from './imports';
import { modelledDynamoTime } from './latency-model';
import { cpuMsSince, latencyOf, round } from './stats';
import { countingClient, itemSize, unitsOf } from './write-units';

type EarnOffer = GeneratedDataset['earn_offers'][number];

/** One point of matching: `id` names it in the results (docs quote `webhooks.matching.<id>.…`). */
interface MatchPoint {
  id: 'reference' | 'tenth_subscriptions' | 'one_percent_changed';
  subscriptions: number;
  changed_offers: number;
  /** Wall time of the timed publish's matching against the embedded DynamoDB (which serves one call at a time). */
  ms: number;
  /** The function's time: its own CPU (`cpu_ms`, the timed publish) and DynamoDB's under the latency model (`dynamodb_ms`). */
  function_ms: number;
  cpu_ms: number;
  /** The counted publish's calls under tools/bench/latency-model.ts (`modelledDynamoTime`): concurrent calls overlapping as issued. */
  dynamodb_ms: number;
  dynamodb_calls: number;
  /** The same calls' drawn times summed as if each waited for the one before (an upper bound). */
  dynamodb_serial_ms: number;
  /** Of the counted publish: */
  read_units: number;
  write_units: number;
  events: number;
  deliveries: number;
  references_written: number;
}

export interface WebhookBench {
  dataset: string;
  earn_offers: number;
  matching: MatchPoint[];
  /** A publish of a family with no subscription: its read units and calls. */
  no_subscription: { read_units: number; items_read: number };
  /** What the reference point's counted publish wrote. */
  writes: {
    deliveries: number;
    events: number;
    delivery_log_units: number;
    reference_units: number;
    total_units: number;
    /** What its bodies would have cost stored as one item each (before they moved into the messages). */
    bodies_if_stored_units: number;
    message_bytes_max: number;
    message_bytes_limit: number;
    /** The largest event (as JSON) and a part of 100 of it: over the limit, a part holds fewer events. */
    event_bytes_max: number;
    hundred_largest_events_bytes: number;
    parts_under_100_events_by_bytes: number;
  };
  first_attempt: {
    subscriptions: number;
    publishes: number;
    deliveries: number;
    poll_ms: number;
    ms: { p50: number | null; p99: number | null; max: number | null };
  };
}

export interface WebhookBenchOptions {
  dataset: string;
  endpoint: string;
  tableName: string;
  /** The earn offers as last published. */
  offers: EarnOffer[];
  subscriptions: number;
  loopback: number;
  publishes: number;
}

/** How often the local stack reads the pointer (scripts/local.ts, `npm start`). */
const POLL_MS = 1000;
const SECRET = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;
const PER_USER = 25;

/**
 * The `i`-th subscription of the mix, in a hundred: mostly narrow (an asset, an asset on a chain, a
 * few offers by id, a platform or a chain above an APY), some broad (every offer above 6 %, every
 * offer, a 30-day figure's filter, which looks at every offer), every condition among them.
 */
function benchSubscription(i: number, offers: readonly EarnOffer[]): SubscriptionInput {
  // The slugs of an offer that has all three (the generator leaves some null).
  let k = i * 7919;
  while (!(offers[k % offers.length].asset && offers[k % offers.length].chain && offers[k % offers.length].platform))
    k++;
  const o = offers[k % offers.length] as EarnOffer & {
    asset: { slug: string };
    chain: { slug: string };
    platform: { slug: string };
  };
  const ids = Array.from({ length: 5 }, (_, j) => offers[(i * 31 + j * 997) % offers.length].id).join(',');
  const share = i % 100;
  if (share < 35) return { filter: `asset=${o.asset.slug}`, conditions: { apy_change: '0.5', availability: true } };
  if (share < 55) return { filter: `asset=${o.asset.slug}&chain=${o.chain.slug}`, conditions: { apy_above: '5' } };
  if (share < 70) return { filter: `ids=${ids}`, conditions: { apy_change: '0.1' } };
  if (share < 80) return { filter: `platform=${o.platform.slug}&min_apy=2`, conditions: { apy_below: '3' } };
  if (share < 90) return { filter: `chain=${o.chain.slug}&min_apy=4`, events: ['offer.added', 'offer.removed'] };
  if (share < 97) return { filter: 'available=true&min_apy=6', conditions: { apy_above: '8', apy_below: '5' } };
  if (share < 99) return { filter: '', conditions: { apy_change: '1' } };
  return { filter: 'min_apy_mean_30d=2', conditions: { apy_change: '0.5' } };
}

const itemOf = (input: SubscriptionInput, i: number, url: string, createdAt: string): SubscriptionItem =>
  subscriptionItem(
    `wh_${i.toString(16).padStart(20, '0')}`,
    `bench-user-${Math.floor(i / PER_USER)}`,
    validateSubscription({ url, family: 'earn', ...input }, url.startsWith('https:') ? 'public' : 'local'),
    createdAt,
  );

export async function measureWebhooks(
  options: WebhookBenchOptions,
  log: (line: string) => void,
): Promise<WebhookBench> {
  const { endpoint, tableName } = options;
  const client = createDocumentClient({ endpoint, maxAttempts: 10, requestTimeoutMs: 30_000 });
  const counting = countingClient(endpoint);
  const modelled = modelledDynamoTime(counting.client);
  const webhooks = new WebhookStore(client, tableName);
  let offers = options.offers;
  let n = 0;
  /** Publishes a refresh of every `every`-th earn offer; what the pointer says it published, and when the import ended. */
  const publish = async (every: number): Promise<FamilyPublished & { ended: number }> => {
    n++;
    const before = await readPointer(client, tableName);
    const at = systemClock();
    offers = refreshed(offers, every, at.toISOString(), `bench-webhooks-${n}`);
    await importDataset({ earn_offers: offers }, { client, tableName, now: () => at });
    const ended = performance.now();
    const after = await readPointer(client, tableName);
    const [earn] = familiesPublished(before?.families, after?.families).filter((p) => p.family === 'earn');
    return { ...earn, ended };
  };
  const match = async (on: DynamoDBDocumentClient, published: FamilyPublished, queue: DeliveryQueue) =>
    matchPublished(
      {
        stores: createStores(on, { tableName, snapshotCacheMs: 0, readCacheMb: 0, memoryMb: 1024 }, () =>
          systemClock().getTime(),
        ),
        webhooks: new WebhookStore(on, tableName),
        queue,
        clock: systemClock,
      },
      published,
    );

  try {
    const firstAttempt = await measureFirstAttempt(options, client, webhooks, publish, log);

    const createdAt = systemClock().toISOString();
    const load = async (from: number, to: number) => {
      const items = Array.from({ length: to - from }, (_, k) =>
        itemOf(benchSubscription(from + k, offers), from + k, `https://hooks.example.com/h/${from + k}`, createdAt),
      );
      for (let i = 0; i < items.length; i += 1000)
        await webhooks.load(items.slice(i, i + 1000).map((item) => ({ item, secret: SECRET })));
    };
    const tenth = Math.max(1, Math.floor(options.subscriptions / 10));
    let references: { messages: DeliveryMessage[]; byKind: Record<string, number>; total: number } | undefined;
    const point = async (id: MatchPoint['id'], subscriptions: number, every: number): Promise<MatchPoint> => {
      const timed = await publish(every);
      const started = performance.now();
      const cpuAtStart = process.cpuUsage();
      await match(client, timed, sqsWithoutNetwork());
      const cpuMs = Math.round(cpuMsSince(cpuAtStart));
      const ms = Math.round(performance.now() - started);
      const counted = await publish(every);
      const messages: DeliveryMessage[] = [];
      counting.reset();
      modelled.reset();
      const result = await match(counting.client, counted, kept(messages));
      const modelledTimes = modelled.totals();
      const dynamoMs = Math.round(modelledTimes.ms);
      const units = counting.counts.writeUnits + counting.counts.deleteUnits;
      if (id === 'reference') references = { messages, byKind: { ...counting.counts.byKind }, total: units };
      const changed = Math.ceil(offers.length / every);
      log(
        `  webhooks ${id}: ${subscriptions} subscriptions, ${changed} offers changed: function ${cpuMs + dynamoMs} ms (CPU ${cpuMs} + DynamoDB ${dynamoMs} modelled, ${modelledTimes.calls} calls, ${Math.round(modelledTimes.serialMs)} ms one after the other), wall ${ms} ms on the embedded DynamoDB, ${counting.counts.readUnits} RU, ${units} WU, ${result.deliveries} deliveries`,
      );
      return {
        id,
        subscriptions,
        changed_offers: changed,
        ms,
        function_ms: cpuMs + dynamoMs,
        cpu_ms: cpuMs,
        dynamodb_ms: dynamoMs,
        dynamodb_calls: modelledTimes.calls,
        dynamodb_serial_ms: Math.round(modelledTimes.serialMs),
        read_units: round(counting.counts.readUnits, 1) ?? 0,
        write_units: units,
        events: result.events,
        deliveries: result.deliveries,
        references_written: result.referencesWritten,
      };
    };

    await load(0, tenth);
    const matching = [await point('tenth_subscriptions', tenth, 20)];
    await load(tenth, options.subscriptions);
    matching.push(await point('reference', options.subscriptions, 20));
    matching.push(await point('one_percent_changed', options.subscriptions, 100));

    // A family with no subscription: what the publish of borrow reads.
    const pointer = await readPointer(client, tableName);
    const borrow = pointer?.families.borrow_offers;
    counting.reset();
    await match(
      counting.client,
      {
        family: 'borrow' as OfferFamily,
        previous: borrow?.version ?? 'none',
        snapshot: borrow?.version ?? 'none',
        publishedAt: borrow?.publishedAt ?? systemClock().toISOString(),
      },
      kept([]),
    );
    const noSubscription = { read_units: counting.counts.readUnits, items_read: counting.counts.itemsRead };

    return {
      dataset: options.dataset,
      earn_offers: offers.length,
      matching,
      no_subscription: noSubscription,
      writes: writesOf(references!),
      first_attempt: firstAttempt,
    };
  } finally {
    client.destroy();
    counting.client.destroy();
  }
}

/** A queue that keeps what it is sent (the counted publish's messages, measured after it). */
const kept = (messages: DeliveryMessage[]): DeliveryQueue => ({
  maxDelaySeconds: 900,
  send: async (sent) => void messages.push(...sent),
});

/**
 * The deployed queue (shared/webhooks/sqs-queue.ts: each message encoded, measured and batched as
 * SQS takes them) on a client that accepts every batch without a network: the timed publish's CPU
 * includes what our code does to send, not the SDK's serialization or SQS's time, and nothing
 * holds the messages once sent (the deployed function does not).
 */
const sqsWithoutNetwork = (): DeliveryQueue =>
  new SqsDeliveryQueue({ send: async () => ({ Failed: [] }) } as unknown as SQSClient, 'bench');

const sumKinds = (byKind: Record<string, number>, suffix: string) =>
  Object.entries(byKind)
    .filter(([kind]) => kind.endsWith(suffix))
    .reduce((sum, [, units]) => sum + units, 0);

function writesOf(reference: {
  messages: DeliveryMessage[];
  byKind: Record<string, number>;
  total: number;
}): WebhookBench['writes'] {
  const { messages, byKind } = reference;
  let eventMax = 0;
  let events = 0;
  let cut = 0;
  for (const message of messages) {
    const body = JSON.parse(message.body) as { events: unknown[] };
    events += body.events.length;
    const { part, parts } = body as unknown as { part: number; parts: number };
    if (part < parts && body.events.length < 100) cut++;
    for (const event of body.events) eventMax = Math.max(eventMax, Buffer.byteLength(JSON.stringify(event)));
  }
  const bodiesIfStored = messages.reduce(
    (sum, m) =>
      sum + unitsOf(itemSize({ PK: `WHDELIVERY#${m.deliveryId}`, SK: 'BODY', body: m.body, expiresAt: 1_800_000_000 })),
    0,
  );
  return {
    deliveries: messages.length,
    events,
    delivery_log_units: sumKinds(byKind, 'WHDELIVERY#'),
    reference_units: sumKinds(byKind, 'WHREF#'),
    total_units: reference.total,
    bodies_if_stored_units: bodiesIfStored,
    message_bytes_max: Math.max(0, ...messages.map((m) => Buffer.byteLength(encodeDeliveryMessage(m)))),
    message_bytes_limit: MESSAGE_MAX_BYTES,
    event_bytes_max: eventMax,
    hundred_largest_events_bytes: 100 * eventMax + 99,
    parts_under_100_events_by_bytes: cut,
  };
}

/** Publish → first POST on the local stack's webhooks, as `npm start` runs them. */
async function measureFirstAttempt(
  options: WebhookBenchOptions,
  client: DynamoDBDocumentClient,
  webhooks: WebhookStore,
  publish: (every: number) => Promise<FamilyPublished & { ended: number }>,
  log: (line: string) => void,
): Promise<WebhookBench['first_attempt']> {
  const arrivals = new Map<string, number>();
  let waiting: (() => void) | undefined;
  let expected = 0;
  const receiver = createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    if (!arrivals.has(id)) arrivals.set(id, performance.now());
    req.resume();
    req.on('end', () => res.writeHead(200).end());
    if (arrivals.size >= expected) waiting?.();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  // Five offers a refresh changes (every 20th), each an event (an `apy_change` of 0): one delivery a subscription and publish.
  const ids = [0, 20, 40, 60, 80].map((i) => options.offers[i].id).join(',');
  const items = Array.from({ length: options.loopback }, (_, i) =>
    itemOf({ filter: `ids=${ids}`, conditions: { apy_change: '0' } }, 10_000_000 + i, url, systemClock().toISOString()),
  );
  await webhooks.load(items.map((item) => ({ item, secret: SECRET })));
  const stack = await startLocalWebhooks({
    client,
    tableName: options.tableName,
    clock: systemClock,
    intervalMs: POLL_MS,
  });
  const latencies: number[] = [];
  try {
    for (let p = 0; p < options.publishes; p++) {
      arrivals.clear();
      expected = options.loopback;
      const published = await publish(20);
      const at = published.ended;
      await new Promise<void>((resolve, reject) => {
        waiting = resolve;
        if (arrivals.size >= expected) resolve();
        setTimeout(
          () => reject(new Error(`webhooks: ${arrivals.size} of ${expected} deliveries in 60 s`)),
          60_000,
        ).unref();
      });
      for (const arrived of arrivals.values()) latencies.push(arrived - at);
    }
  } finally {
    await stack.stop();
    await new Promise((resolve) => receiver.close(resolve));
    for (const item of items) await webhooks.remove(item.userId, item.id);
  }
  const ms = latencyOf(latencies);
  log(`  webhooks first attempt: p50 ${ms.p50} ms, p99 ${ms.p99} ms over ${latencies.length} deliveries`);
  return {
    subscriptions: options.loopback,
    publishes: options.publishes,
    deliveries: latencies.length,
    poll_ms: POLL_MS,
    ms: { ...ms, max: round(Math.max(...latencies)) },
  };
}

/** The checks of issue 42's "Measured": at BENCH, 2 s and 2,000 read units; always, 0 reads without a subscription. */
export function webhookChecks(bench: WebhookBench, full: boolean): { check: string; pass: boolean; detail: string }[] {
  const reference = bench.matching.find((m) => m.id === 'reference')!;
  const checks = [
    {
      check: `webhooks: matching a 5 % earn refresh against ${reference.subscriptions} subscriptions (${bench.dataset}): ≤ 2,000 read units`,
      pass: reference.read_units <= 2000,
      detail: `${reference.read_units} read units, ${reference.deliveries} deliveries`,
    },
    {
      check: 'webhooks: a publish of a family with no subscription reads 0 units',
      pass: bench.no_subscription.read_units === 0,
      detail: `${bench.no_subscription.read_units} read units, ${bench.no_subscription.items_read} items`,
    },
    {
      check: "webhooks: every delivery message within SQS's 256 KiB",
      pass: bench.writes.message_bytes_max <= bench.writes.message_bytes_limit,
      detail: `largest ${bench.writes.message_bytes_max} bytes`,
    },
  ];
  if (!full) return checks;
  return [
    ...checks,
    {
      check: `webhooks: matching a 5 % earn refresh against ${reference.subscriptions} subscriptions (BENCH): ≤ 2 s of function time (CPU + DynamoDB under the latency model)`,
      pass: reference.function_ms <= 2000,
      detail: `${reference.function_ms} ms (CPU ${reference.cpu_ms} ms + DynamoDB ${reference.dynamodb_ms} ms over ${reference.dynamodb_calls} calls, ${reference.dynamodb_serial_ms} ms one after the other); wall ${reference.ms} ms on the embedded DynamoDB`,
    },
    {
      check: 'webhooks: publish → first POST on the local stack, p99 ≤ 10 s',
      pass: (bench.first_attempt.ms.p99 ?? Number.POSITIVE_INFINITY) <= 10_000,
      detail: `p50 ${bench.first_attempt.ms.p50} ms, p99 ${bench.first_attempt.ms.p99} ms over ${bench.first_attempt.deliveries} deliveries`,
    },
  ];
}

/** The section of the report. */
export function webhooksTable(bench: WebhookBench): string {
  const rows = bench.matching.map(
    (m) =>
      `| ${m.id} | ${m.subscriptions} | ${m.changed_offers} | ${m.function_ms} | ${m.cpu_ms} | ${m.dynamodb_ms} (${m.dynamodb_calls}; ${m.dynamodb_serial_ms} one after the other) | ${m.ms} | ${m.read_units} | ${m.write_units} | ${m.events} | ${m.deliveries} | ${m.references_written} |`,
  );
  const w = bench.writes;
  const f = bench.first_attempt;
  return [
    `Matching a refresh of the earn offers (${bench.earn_offers}, ${bench.dataset}) against active earn subscriptions of mixed filters and conditions (tools/bench/webhooks.ts): function ms = the matcher's CPU (\`process.cpuUsage\`) + DynamoDB's time under the latency model (tools/bench/latency-model.ts: each call's drawn time, calls in flight together overlapping as the code issued them; the calls, and their sum as if one after the other); wall ms = \`matchPublished\` against the embedded DynamoDB, which serves one call at a time; units counted on a second publish of the same shape.`,
    '',
    '| point | subscriptions | offers changed | function ms | CPU ms | DynamoDB ms (calls; serial ms) | wall ms | read units | write units | events | deliveries | references written |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `- A publish of a family with no subscription: ${bench.no_subscription.read_units} read units (${bench.no_subscription.items_read} items).`,
    `- Writes of the reference publish: ${w.total_units} units: the delivery log ${w.delivery_log_units} (${w.deliveries} deliveries, ${w.events} events), the reference APYs ${w.reference_units}. Its bodies stored as items would have cost ${w.bodies_if_stored_units} units more; they travel in the messages.`,
    `- Messages: the largest ${w.message_bytes_max} bytes of SQS's ${w.message_bytes_limit}; the largest event ${w.event_bytes_max} bytes (100 of it: ${w.hundred_largest_events_bytes}); parts cut under 100 events by bytes: ${w.parts_under_100_events_by_bytes}.`,
    `- Publish → first POST on the local stack (the pointer read every ${f.poll_ms} ms, as \`npm start\`), ${f.subscriptions} subscriptions to a receiver on 127.0.0.1, ${f.publishes} publishes, ${f.deliveries} deliveries: p50 ${f.ms.p50} ms, p99 ${f.ms.p99} ms, max ${f.ms.max} ms.`,
  ].join('\n');
}
