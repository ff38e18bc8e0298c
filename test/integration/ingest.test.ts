/**
 * The deployed ingest path, locally and for real (README, "How data gets in"): a local S3
 * (s3rver, in process) and the embedded DynamoDB. A file is put with the S3 client; s3rver's event
 * notification goes through the stack's filter (objects created under `incoming/`, the prefix
 * lib/constructs/ingest.ts subscribes) and is wrapped in an SQS message as the queue would
 * deliver it; the ingest function's factory handles it. Then the data is served by the real
 * handlers, and a refused file gets its report, every error by place, with nothing published.
 * No mock: the same S3 calls and the same import as the deployed function.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { S3Event, S3EventRecord, SQSEvent } from 'aws-lambda';
import S3rver from 's3rver';
import { type IngestedObject, ingestHandler } from '../../functions/ingest/ingest-handler';
import { INGEST_PREFIXES } from '../../shared/import/ingest-layout';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestTable } from '../helpers/embedded';
import { versionedBucket } from '../helpers/versioned-s3';

/* eslint-disable @typescript-eslint/no-explicit-any */

const BUCKET = 'market-data-ingest-test';

let dir: string;
let server: S3rver;
let s3: S3Client;
let table: TestTable;
let ingest: (event: SQSEvent) => Promise<IngestedObject[]>;
/** Every notification s3rver sent, and those the stack's filter lets through to the queue. */
const notified: S3EventRecord[] = [];
const queued: S3EventRecord[] = [];
const waiting = new Map<string, (record: S3EventRecord) => void>();
let messages = 0;

/** The deployed notification: objects created under `incoming/`, nothing else. */
const passesFilter = (record: S3EventRecord) =>
  record.eventName.startsWith('ObjectCreated:') && record.s3.object.key.startsWith(INGEST_PREFIXES.incoming);

function onNotification(event: S3Event) {
  for (const record of event.Records) {
    notified.push(record);
    if (!passesFilter(record)) continue;
    queued.push(record);
    waiting.get(record.s3.object.key)?.(record);
  }
}

/** Put a file and return the SQS message its notification becomes (one record, as S3 sends). */
async function upload(key: string, body: Buffer): Promise<SQSEvent> {
  const notification = new Promise<S3EventRecord>((resolve) => waiting.set(key, resolve));
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  const record = await notification;
  waiting.delete(key);
  const messageId = `message-${++messages}`;
  return {
    Records: [
      {
        messageId,
        receiptHandle: `receipt-${messageId}`,
        body: JSON.stringify({ Records: [record] }),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(NOW.getTime()),
          SenderId: 's3.amazonaws.com',
          ApproximateFirstReceiveTimestamp: String(NOW.getTime()),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:ingest',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

async function keysUnder(prefix: string): Promise<string[]> {
  const out = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (out.Contents ?? []).map((object) => object.Key!).sort();
}

async function readJson(key: string): Promise<any> {
  const out = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return JSON.parse(await out.Body!.transformToString('utf8'));
}

const get = (path: string) =>
  invoke(
    table.api({ clock: () => NOW }).platforms,
    apiEvent(path, { keyId: 'k-ingest', perMinute: 1e6, perMonth: 1e8 }),
  );
const getOffers = (path: string) =>
  invoke(table.api({ clock: () => NOW }).offers, apiEvent(path, { keyId: 'k-ingest', perMinute: 1e6, perMonth: 1e8 }));

/** Every item of the table but the quota counters the requests above write. */
async function dataItems(): Promise<unknown[]> {
  const items = await table.items();
  return items
    .filter((item) => !String(item.PK).startsWith('QUOTA#'))
    .sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}

beforeAll(async () => {
  setLogSink(() => undefined);
  dir = mkdtempSync(join(tmpdir(), 'ingest-s3-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
  const { port } = await server.run();
  server.on('event', onNotification);
  s3 = new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    forcePathStyle: true,
    region: 'us-east-1',
    // s3rver's own account: it checks request signatures like S3.
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  table = await startTestTable();
  // As deployed: the stage records history by default (CONTRACT §12).
  ingest = ingestHandler({
    s3,
    client: table.client,
    tableName: table.tableName,
    clock: () => NOW,
    recordHistory: true,
  });
}, 120_000);

afterAll(async () => {
  s3?.destroy();
  await server?.close();
  await table?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a file put under incoming/', () => {
  let message: SQSEvent;
  let done: IngestedObject[];

  beforeAll(async () => {
    message = await upload('incoming/2026-11-20/daily.json', Buffer.from(JSON.stringify(fixtureDataset()), 'utf8'));
    done = await ingest(message);
  }, 120_000);

  it('is published and served', async () => {
    expect(done.map((d) => d.outcome)).toEqual(['published']);

    const kraken = await get('/api/v1/exchanges/kraken');
    expect(kraken.status).toBe(200);
    expect(kraken.body.name).toBe('Kraken');
    const exchanges = await get('/api/v1/exchanges');
    expect(exchanges.body.data.map((e: any) => e.slug)).toEqual(['binance', 'bybit', 'coinbase', 'kraken', 'okx']);
    expect((await getOffers('/api/v1/earn?limit=200')).body.data.length).toBeGreaterThan(0);
  });

  it('moves beside a result report, and nothing it writes is queued again', async () => {
    expect(await keysUnder(INGEST_PREFIXES.incoming)).toEqual([]);
    expect(await keysUnder(INGEST_PREFIXES.imported)).toEqual([
      'imported/2026-11-20/daily.json',
      'imported/2026-11-20/daily.json.report.json',
    ]);
    expect(await readJson('imported/2026-11-20/daily.json')).toEqual(fixtureDataset());
    const report = await readJson('imported/2026-11-20/daily.json.report.json');
    expect(report).toMatchObject({
      file: 'incoming/2026-11-20/daily.json',
      outcome: 'published',
      checkedAt: NOW.toISOString(),
    });
    expect(report.result).toEqual(expect.any(Object));
    // The published offers recorded at the import's refresh time: 8 earn, 4 borrow (CONTRACT §12).
    expect(report.result.recorded.observations).toBe(12);

    // s3rver notified the function's own writes too; the stack's filter lets only the upload through.
    expect(notified.map((r) => r.s3.object.key)).toEqual(
      expect.arrayContaining(['imported/2026-11-20/daily.json', 'imported/2026-11-20/daily.json.report.json']),
    );
    expect(queued.map((r) => r.s3.object.key)).toEqual(['incoming/2026-11-20/daily.json']);
  });

  it('is handled once: the same message delivered again finds the file moved and changes nothing', async () => {
    const before = await dataItems();

    expect((await ingest(message)).map((d) => d.outcome)).toEqual(['skipped']);
    expect(await dataItems()).toEqual(before);
    expect(await keysUnder(INGEST_PREFIXES.imported)).toHaveLength(2);
  });
});

describe('a refused file', () => {
  const places = ['exchanges[1].slug', 'exchanges[3].stats.weekly_visits', 'earn_offers[0].apy', 'wallets[2]'];
  let before: unknown[];
  let done: IngestedObject[];

  beforeAll(async () => {
    before = await dataItems();
    const dataset: any = fixtureDataset();
    // A change that would show if anything of the file were published.
    dataset.exchanges[0].name = 'Binance Renamed';
    dataset.exchanges[1].slug = 'Kraken!';
    dataset.exchanges[3].stats.weekly_visits = 'many';
    dataset.earn_offers[0].apy = 4.5;
    dataset.wallets[2].colour = 'blue';
    done = await ingest(await upload('incoming/bad.json', Buffer.from(JSON.stringify(dataset), 'utf8')));
  }, 120_000);

  it('is refused and publishes nothing', async () => {
    expect(done.map((d) => d.outcome)).toEqual(['refused']);

    expect(await dataItems()).toEqual(before);
    expect((await get('/api/v1/exchanges/binance')).body.name).toBe('Binance');
    expect((await get('/api/v1/exchanges/kraken')).status).toBe(200);
  });

  it('moves to refused/ beside a report naming every error by its place', async () => {
    expect(await keysUnder(INGEST_PREFIXES.incoming)).toEqual([]);
    expect(await keysUnder(INGEST_PREFIXES.refused)).toEqual(['refused/bad.json', 'refused/bad.json.report.json']);
    const report = await readJson('refused/bad.json.report.json');

    expect(report).toMatchObject({ file: 'incoming/bad.json', outcome: 'refused', checkedAt: NOW.toISOString() });
    expect(report.errorCount).toBe(report.errors.length);
    for (const place of places) {
      expect({ place, found: report.errors.some((e: string) => e.startsWith(place)) }).toEqual({ place, found: true });
    }
    // Every line names a place: `family[index].field…: problem`.
    for (const error of report.errors) expect(error).toMatch(/^[a-z_]+\[\d+\][^:]*: \S/);
    expect(queued.map((r) => r.s3.object.key)).toEqual(['incoming/2026-11-20/daily.json', 'incoming/bad.json']);
  });
});

describe('a file the bounds refuse (it failed at write time and retried into the dead-letter queue)', () => {
  let before: unknown[];
  let done: IngestedObject[];

  beforeAll(async () => {
    before = await dataItems();
    const dataset: any = fixtureDataset();
    dataset.earn_offers[1].product_name = 'p'.repeat(500_000);
    done = await ingest(await upload('incoming/huge.json', Buffer.from(JSON.stringify(dataset), 'utf8')));
  }, 120_000);

  it('is refused with a report naming the place, nothing published, the message not retried', async () => {
    expect(done.map((d) => d.outcome)).toEqual(['refused']);
    expect(await dataItems()).toEqual(before);
    expect(await keysUnder('incoming/huge')).toEqual([]);
    const report = await readJson('refused/huge.json.report.json');
    expect(report.errors).toEqual(
      expect.arrayContaining(['earn_offers[1].product_name: longer than 2,048 characters']),
    );
  });
});

/**
 * Two uploads of one name before the first message runs, on a bucket that keeps versions as the
 * deployed one does. s3rver has no versioning (it answers NotImplemented, and its events name no
 * version), so the bucket here is an in-memory one behind the S3 client (test/helpers/versioned-s3.ts);
 * the import, the table and the handlers that serve the data are the real ones.
 */
describe('a versioned bucket: each upload imported once, in upload order', () => {
  const BUCKET_V = 'market-data-ingest-versioned';
  const KEY = 'incoming/daily.json';
  const withKraken = (name: string) => {
    const dataset: any = fixtureDataset();
    dataset.exchanges.find((e: any) => e.slug === 'kraken').name = name;
    return JSON.stringify(dataset);
  };
  const krakenName = async () => (await get('/api/v1/exchanges/kraken')).body.name;

  it('in order: the message of upload 1 imports upload 1, and moving it leaves upload 2 in place', async () => {
    const bucket = versionedBucket(BUCKET_V);
    const ingestVersioned = ingestHandler({
      s3: bucket.s3,
      client: table.client,
      tableName: table.tableName,
      clock: () => NOW,
      recordHistory: false,
    });
    const first = await bucket.put(KEY, withKraken('Kraken One'));
    const second = await bucket.put(KEY, withKraken('Kraken Two'));

    const done1 = await ingestVersioned(bucket.message(first));
    expect(done1.map((d) => [d.versionId, d.outcome])).toEqual([[first.s3.object.versionId, 'published']]);
    expect(await krakenName()).toBe('Kraken One');
    expect(bucket.versions(KEY)).toEqual([withKraken('Kraken Two')]);
    expect(bucket.current(KEY)).toBe(withKraken('Kraken Two'));

    const done2 = await ingestVersioned(bucket.message(second));
    expect(done2.map((d) => [d.versionId, d.outcome])).toEqual([[second.s3.object.versionId, 'published']]);
    expect(await krakenName()).toBe('Kraken Two');
    expect(bucket.versions(KEY)).toEqual([]);
    expect(bucket.versions('imported/daily.json')).toEqual([withKraken('Kraken One'), withKraken('Kraken Two')]);

    // Delivered again: its version is gone, nothing changes.
    expect((await ingestVersioned(bucket.message(first))).map((d) => d.outcome)).toEqual(['skipped']);
    expect(await krakenName()).toBe('Kraken Two');
  });

  it('out of order: the later message imports the earlier upload first, and the earlier message then finds it handled', async () => {
    const bucket = versionedBucket(BUCKET_V);
    const ingestVersioned = ingestHandler({
      s3: bucket.s3,
      client: table.client,
      tableName: table.tableName,
      clock: () => NOW,
      recordHistory: false,
    });
    const first = await bucket.put(KEY, withKraken('Kraken Three'));
    const second = await bucket.put(KEY, withKraken('Kraken Four'));

    const done = await ingestVersioned(bucket.message(second));
    expect(done.map((d) => [d.versionId, d.outcome])).toEqual([
      [first.s3.object.versionId, 'published'],
      [second.s3.object.versionId, 'published'],
    ]);
    expect(await krakenName()).toBe('Kraken Four');

    expect((await ingestVersioned(bucket.message(first))).map((d) => d.outcome)).toEqual(['skipped']);
    expect(await krakenName()).toBe('Kraken Four');
    expect(bucket.versions(KEY)).toEqual([]);
    expect(bucket.current('imported/daily.json')).toBe(withKraken('Kraken Four'));
    const report = JSON.parse(bucket.current('imported/daily.json.report.json')!);
    expect(report).toMatchObject({ file: KEY, versionId: second.s3.object.versionId, outcome: 'published' });
  });
});
