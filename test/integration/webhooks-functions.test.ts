/**
 * The deployed webhook functions' handlers on the embedded DynamoDB: the matching function given a
 * stream record of the pointer item (both images, as DynamoDB Streams marshals them) queues the
 * publish's deliveries; the sending function given the SQS records sends them, drops a record that
 * names no delivery and reports one whose handling throws as a partial failure; the secret is in no
 * log line.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { matchHandler } from '../../functions/webhooks-match/match-handler';
import { sendHandler } from '../../functions/webhooks-send/send-handler';
import { KeyStore } from '../../shared/accounts/key-store';
import { createStores } from '../../shared/data/stores';
import { WebhookStore } from '../../shared/data/webhook-store';
import { importDataset, readPointer } from '../../shared/import/importer';
import { setLogSink } from '../../shared/platform/logger';
import { loadAccounts } from '../../shared/webhooks/manage';
import { type DeliveryMessage, type DeliveryQueue, encodeDeliveryMessage } from '../../shared/webhooks/queue';
import { startTestTable, type TestTable } from '../helpers/embedded';
import { earnRecord } from '../helpers/records';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const ID = 'wh_00000000000000000001';

let table: TestTable;
let receiver: Server;
let received: string[];
let logs: string[];
let queued: DeliveryMessage[];
const queue: DeliveryQueue = { maxDelaySeconds: 900, send: async (m) => void queued.push(...m) };

beforeEach(async () => {
  table = await startTestTable();
  received = [];
  queued = [];
  logs = [];
  setLogSink((line) => void logs.push(line));
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['webhook-id']));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  setLogSink(() => undefined);
  await new Promise((resolve) => receiver.close(resolve));
  await table.close();
});

const record = (body: string, messageId: string) => ({ body, messageId }) as SQSEvent['Records'][number];

it('matches a pointer write from the stream and sends what it queued', async () => {
  const { client, tableName } = table;
  const webhooks = new WebhookStore(client, tableName);
  await importDataset({ earn_offers: [earnRecord(1, '4')] }, { client, tableName, now: () => new Date(T0) });
  const port = (receiver.address() as AddressInfo).port;
  await loadAccounts(
    { keys: new KeyStore(client, tableName, 'pepper', () => new Date(T0)), webhooks },
    {
      users: [
        {
          id: 'u1',
          premium: true,
          keys: [],
          webhooks: [
            { id: ID, url: `http://127.0.0.1:${port}/`, family: 'earn', secret: SECRET, events: ['offer.added'] },
          ],
        },
      ],
    },
    { rule: 'local', now: new Date(T0) },
  );
  const before = await readPointer(client, tableName);
  await importDataset(
    { earn_offers: [earnRecord(1, '4'), earnRecord(2, '5')] },
    { client, tableName, now: () => new Date(T0 + 60_000) },
  );
  const after = await readPointer(client, tableName);
  const image = (pointer: unknown) => marshall(pointer, { removeUndefinedValues: true }) as never;
  const stream: DynamoDBStreamEvent = {
    Records: [
      { dynamodb: { OldImage: image(before), NewImage: image(after) } },
      { dynamodb: { NewImage: image(after) } },
    ],
  };
  const clock = () => new Date(T0 + 61_000);
  const stores = createStores(client, { tableName, snapshotCacheMs: 0, readCacheMb: 0, memoryMb: 512 }, () => T0);
  await matchHandler({ stores, webhooks, queue, clock })(stream);
  // The second record (no old image) replays the publish from nothing: the stream's at-least-once.
  expect(queued.length).toBeGreaterThanOrEqual(1);
  // The same records handled again (the stream retries a batch whose handler threw): the same ids and bodies.
  const first = queued.splice(0);
  await matchHandler({ stores, webhooks, queue, clock: () => new Date(T0 + 120_000) })(stream);
  expect(queued).toEqual(first);

  const send = sendHandler({ webhooks, queue, clock, rule: 'local' });
  const broken = sendHandler({ webhooks: new WebhookStore(client, 'no-such-table'), queue, clock, rule: 'local' });
  const out = await send({
    Records: [record(encodeDeliveryMessage(queued[0]), 'm1'), record('garbage', 'm2')],
  } as SQSEvent);
  expect(out).toEqual({ batchItemFailures: [] });
  expect(received).toEqual([queued[0].deliveryId]);
  expect(await broken({ Records: [record(encodeDeliveryMessage(queued[0]), 'm3')] } as SQSEvent)).toEqual({
    batchItemFailures: [{ itemIdentifier: 'm3' }],
  });
  expect(logs.some((line) => line.includes('"delivered":1'))).toBe(true);
  expect(logs.join('\n')).not.toContain(SECRET.slice(6));
});
