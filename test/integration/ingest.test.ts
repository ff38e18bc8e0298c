/**
 * The deployed ingest path, locally and for real (README, "How data gets in"): a local S3
 * (s3rver, in process) and the embedded DynamoDB. A file is put with the S3 client; s3rver's event
 * notification goes through the stack's rule (objects created under `incoming/`, the prefix
 * lib/constructs/ingest.ts sends to the queue), becomes the EventBridge event S3 sends and is
 * wrapped in an SQS message as the FIFO queue would deliver it, one at a time, in order; the
 * ingest function's factory handles it. Then the data is served by the real
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
import { type IngestDeps, type IngestedObject, ingestHandler } from '../../functions/ingest/ingest-handler';
import { readPointer, retireAfter } from '../../shared/import/importer';
import { INGEST_PREFIXES } from '../../shared/import/ingest-layout';
import { DEFAULTS } from '../../shared/platform/config';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestTable } from '../helpers/embedded';
import { objectCreated, sqsMessage, versionedBucket } from '../helpers/versioned-s3';

/** Where a test sends no upload: the dead-letter queue must not be reached. */
const noDeadLetter = async (): Promise<void> => {
  throw new Error('unexpected dead letter');
};

const BUCKET = 'market-data-ingest-test';
/** The stage's pointer cache, as the deployed function reads it. */
const CACHE_MS = DEFAULTS.snapshotCacheMs;

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

/** The deployed rule: objects created under `incoming/`, nothing else. */
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

/** Put a file and return the SQS message its event becomes (s3rver's notification, as EventBridge has it). */
async function upload(key: string, body: Buffer): Promise<SQSEvent> {
  const notification = new Promise<S3EventRecord>((resolve) => waiting.set(key, resolve));
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
  const record = await notification;
  waiting.delete(key);
  // A notification's key is URL-encoded (`+` for a space); EventBridge's event has the key itself.
  const objectKey = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
  return sqsMessage(objectCreated(record.s3.bucket.name, objectKey), `message-${++messages}`);
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
    snapshotCacheMs: CACHE_MS,
    clock: () => NOW,
    recordHistory: true,
    deadLetter: noDeadLetter,
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
      snapshotCacheMs: CACHE_MS,
      clock: () => NOW,
      recordHistory: false,
      deadLetter: noDeadLetter,
    });
    const first = await bucket.put(KEY, withKraken('Kraken One'));
    const second = await bucket.put(KEY, withKraken('Kraken Two'));

    const done1 = await ingestVersioned(bucket.message(first));
    expect(done1.map((d) => [d.versionId, d.outcome])).toEqual([[first.detail.object['version-id'], 'published']]);
    expect(await krakenName()).toBe('Kraken One');
    expect(bucket.versions(KEY)).toEqual([withKraken('Kraken Two')]);
    expect(bucket.current(KEY)).toBe(withKraken('Kraken Two'));

    const done2 = await ingestVersioned(bucket.message(second));
    expect(done2.map((d) => [d.versionId, d.outcome])).toEqual([[second.detail.object['version-id'], 'published']]);
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
      snapshotCacheMs: CACHE_MS,
      clock: () => NOW,
      recordHistory: false,
      deadLetter: noDeadLetter,
    });
    const first = await bucket.put(KEY, withKraken('Kraken Three'));
    const second = await bucket.put(KEY, withKraken('Kraken Four'));

    const done = await ingestVersioned(bucket.message(second));
    expect(done.map((d) => [d.versionId, d.outcome])).toEqual([
      [first.detail.object['version-id'], 'published'],
      [second.detail.object['version-id'], 'published'],
    ]);
    expect(await krakenName()).toBe('Kraken Four');

    expect((await ingestVersioned(bucket.message(first))).map((d) => d.outcome)).toEqual(['skipped']);
    expect(await krakenName()).toBe('Kraken Four');
    expect(bucket.versions(KEY)).toEqual([]);
    expect(bucket.current('imported/daily.json')).toBe(withKraken('Kraken Four'));
    const report = JSON.parse(bucket.current('imported/daily.json.report.json')!);
    expect(report).toMatchObject({ file: KEY, versionId: second.detail.object['version-id'], outcome: 'published' });
  });
});

/**
 * The deployed queue is FIFO with one message group (lib/constructs/ingest.ts): SQS hands the
 * function one message, and the next only once that one is done, in the order they arrived. A
 * burst of uploads, some of one name, goes through such a queue here; a message whose handler
 * throws would be received again (a delivery spent).
 */
describe('a burst of uploads through the FIFO queue', () => {
  it('is imported in upload order, each message on its first delivery', async () => {
    const bucket = versionedBucket('market-data-ingest-burst');
    const ingestBurst = ingestHandler({
      s3: bucket.s3,
      client: table.client,
      tableName: table.tableName,
      snapshotCacheMs: CACHE_MS,
      clock: () => NOW,
      recordHistory: true,
      deadLetter: noDeadLetter,
    });
    const names = ['Kraken A1', 'Kraken B1', 'Kraken A2', 'Kraken C1', 'Kraken A3'];
    const keys = ['incoming/a.json', 'incoming/b.json', 'incoming/a.json', 'incoming/c.json', 'incoming/a.json'];
    const queue: { message: SQSEvent; receives: number }[] = [];
    for (const [i, key] of keys.entries()) {
      const dataset: any = fixtureDataset();
      dataset.exchanges.find((e: any) => e.slug === 'kraken').name = names[i];
      queue.push({ message: bucket.message(await bucket.put(key, JSON.stringify(dataset))), receives: 0 });
    }

    const served: string[] = [];
    const outcomes: string[] = [];
    for (const entry of queue) {
      for (;;) {
        entry.receives += 1;
        const done = await ingestBurst(entry.message, { getRemainingTimeInMillis: () => 300_000 }).catch(
          () => undefined,
        );
        if (done) {
          outcomes.push(...done.map((d) => d.outcome));
          break;
        }
        if (entry.receives === 5) throw new Error('moved to the dead-letter queue');
      }
      served.push((await get('/api/v1/exchanges/kraken')).body.name);
    }

    expect(queue.map((entry) => entry.receives)).toEqual([1, 1, 1, 1, 1]);
    expect(outcomes).toEqual(['published', 'published', 'published', 'published', 'published']);
    expect(served).toEqual(names);
    expect(
      bucket
        .versions('imported/a.json')
        .map((body) => JSON.parse(body).exchanges.find((e: any) => e.slug === 'kraken').name),
    ).toEqual(['Kraken A1', 'Kraken A2', 'Kraken A3']);
    expect(bucket.versions('incoming/a.json')).toEqual([]);
  });
});

describe('an upload whose import keeps failing (ADR 0023)', () => {
  it('goes to failed/ and the dead-letter queue on its first delivery; the uploads behind it, of its name and others, are imported', async () => {
    const bucket = versionedBucket('market-data-ingest-failing');
    const deadLetters: Parameters<IngestDeps['deadLetter']>[0][] = [];
    // DynamoDB refuses every write while the broken upload is imported (a fault, not a data error):
    // the ingest reads that version, and the writes that follow fail until it reads another.
    let brokenVersion: string | undefined;
    let failing = false;
    const s3Reads = {
      send: (command: { input: { VersionId?: string } }) => {
        if (command instanceof GetObjectCommand) failing = command.input.VersionId === brokenVersion;
        return bucket.s3.send(command as never);
      },
    } as unknown as S3Client;
    const ingestQueue = ingestHandler({
      s3: s3Reads,
      client: table.client,
      tableName: table.tableName,
      snapshotCacheMs: CACHE_MS,
      clock: () => NOW,
      recordHistory: false,
      deadLetter: async (failed) => {
        deadLetters.push(failed);
      },
    });
    const BROKEN = 'Kraken Broken';
    table.client.middlewareStack.add(
      (next, context) => async (args) => {
        if (failing && /Write|Put|Update|Delete/.test(String(context.commandName)))
          throw new Error('injected: the write fails every time');
        return next(args);
      },
      { step: 'initialize', name: 'failingUpload' },
    );
    try {
      const names = [BROKEN, 'Kraken Other', 'Kraken Later'];
      const keys = ['incoming/f.json', 'incoming/g.json', 'incoming/f.json'];
      const queue: { message: SQSEvent; receives: number }[] = [];
      for (const [i, key] of keys.entries()) {
        const dataset: any = fixtureDataset();
        dataset.exchanges.find((e: any) => e.slug === 'kraken').name = names[i];
        const upload = await bucket.put(key, JSON.stringify(dataset));
        if (names[i] === BROKEN) brokenVersion = upload.detail.object['version-id'];
        queue.push({ message: bucket.message(upload), receives: 0 });
      }
      const before = (await get('/api/v1/exchanges/kraken')).body.name;

      // The FIFO queue: the next message only once this one is done (a throw would hold it).
      const served: string[] = [];
      const outcomes: string[] = [];
      for (const entry of queue) {
        entry.receives += 1;
        const done = await ingestQueue(entry.message, { getRemainingTimeInMillis: () => 300_000 });
        outcomes.push(...done.map((d) => d.outcome));
        served.push((await get('/api/v1/exchanges/kraken')).body.name);
      }

      expect(queue.map((entry) => entry.receives)).toEqual([1, 1, 1]);
      expect(outcomes).toEqual(['failed', 'published', 'published']);
      // Nothing of the failed upload is served; the later upload of its name wins.
      expect(served).toEqual([before, 'Kraken Other', 'Kraken Later']);
      expect(deadLetters).toEqual([
        expect.objectContaining({
          body: queue[0].message.Records[0].body,
          key: 'incoming/f.json',
          moved: { file: 'failed/f.json', report: 'failed/f.json.report.json' },
        }),
      ]);
      const report = JSON.parse(bucket.current('failed/f.json.report.json')!);
      expect(report).toMatchObject({ file: 'incoming/f.json', outcome: 'failed' });
      expect(report.error).toMatch(/injected/);
      expect(bucket.versions('incoming/f.json')).toEqual([]);
      expect(bucket.versions('incoming/g.json')).toEqual([]);
    } finally {
      table.client.middlewareStack.remove('failingUpload');
    }
  });
});

describe("the stage's pointer cache", () => {
  it('keeps a replaced version that long past the hour, however long it is', async () => {
    const bucket = versionedBucket('market-data-ingest-retention');
    const cacheMs = 240_000;
    let now = NOW.getTime() + 24 * 3600_000;
    const ingestAt = ingestHandler({
      s3: bucket.s3,
      client: table.client,
      tableName: table.tableName,
      snapshotCacheMs: cacheMs,
      clock: () => new Date(now),
      recordHistory: true,
      deadLetter: noDeadLetter,
    });
    const importKraken = async (name: string) => {
      const dataset: any = fixtureDataset();
      dataset.exchanges.find((e: any) => e.slug === 'kraken').name = name;
      const [done] = await ingestAt(bucket.message(await bucket.put('incoming/r.json', JSON.stringify(dataset))));
      expect(done.outcome).toBe('published');
    };
    const retired = async () =>
      ((await readPointer(table.client, table.tableName))?.retired ?? []).map((r) => r.version);

    await importKraken('Kraken R1');
    const first = (await readPointer(table.client, table.tableName))!.families.exchanges!.version;
    await importKraken('Kraken R2');
    expect(await retired()).toContain(first);

    // Past what the default 5-second cache would keep, within this stage's 4 minutes: still kept.
    now += retireAfter(DEFAULTS.snapshotCacheMs) + 1;
    await importKraken('Kraken R3');
    expect(await retired()).toContain(first);

    now += retireAfter(cacheMs) - retireAfter(DEFAULTS.snapshotCacheMs);
    await importKraken('Kraken R4');
    expect(await retired()).not.toContain(first);
  });
});
