/**
 * The ingest function's factory with S3 and DynamoDB mocked: which objects it reads, writes and
 * deletes for a published, a refused and a failed file, what its reports hold, and which messages
 * it lets SQS deliver again (test/integration/ingest.test.ts runs the same path on a real local
 * S3 and the embedded DynamoDB).
 */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectVersionsCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { ingestHandler } from '../../../../functions/ingest/ingest-handler';
import { ImportBusyError } from '../../../../shared/data/import-lease';
import { setLogSink } from '../../../../shared/platform/logger';
import { IMPORT_METRICS } from '../../../../shared/platform/metric-names';

/** Where a test sends no upload: the dead-letter queue must not be reached. */
const noDeadLetter = async (): Promise<void> => {
  throw new Error('unexpected dead letter');
};

const NOW = new Date('2026-11-20T10:00:00.000Z');
const BUCKET = 'ingest-bucket';

const s3Mock = mockClient(S3Client);
const ddbMock = mockClient(DynamoDBDocumentClient);
const s3 = new S3Client({ region: 'eu-west-1' });
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const ingest = ingestHandler({
  s3,
  client,
  tableName: 'unit-table',
  snapshotCacheMs: 5_000,
  clock: () => NOW,
  recordHistory: false,
  deadLetter: noDeadLetter,
});

/** The SQS message of the EventBridge event S3 sends for one put (the key as it is, unlike a notification's). */
function sqsEvent(key: string, detailType = 'Object Created', versionId?: string, source = 'aws.s3'): SQSEvent {
  const event = {
    source,
    'detail-type': detailType,
    detail: { bucket: { name: BUCKET }, object: { key, ...(versionId ? { 'version-id': versionId } : {}) } },
  };
  return { Records: [{ messageId: 'm1', body: JSON.stringify(event) }] } as unknown as SQSEvent;
}

/** The part of GetObject's streaming body the function reads. */
const objectBody = (text: string) =>
  ({ transformToByteArray: async () => new Uint8Array(Buffer.from(text, 'utf8')) }) as never;

let lines: Record<string, unknown>[];
const importMetrics = () =>
  lines
    .filter((line) => '_aws' in line)
    .map((line) => Object.fromEntries(Object.keys(IMPORT_METRICS).map((name) => [name, line[name]])));
const puts = () => s3Mock.commandCalls(PutObjectCommand).map((call) => call.args[0].input);
const deletes = () => s3Mock.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input);

beforeEach(() => {
  s3Mock.reset();
  ddbMock.reset();
  lines = [];
  setLogSink((line) => lines.push(JSON.parse(line)));
  s3Mock.on(PutObjectCommand).resolves({});
  s3Mock.on(DeleteObjectCommand).resolves({});
});

afterAll(() => setLogSink(() => undefined));

it('publishes a valid file and moves it to imported/ beside a result report', async () => {
  s3Mock
    .on(GetObjectCommand, { Bucket: BUCKET, Key: 'incoming/daily 1.json' })
    .resolves({ Body: objectBody('{"exchanges": []}'), VersionId: 'v-read' });
  // An empty table: no pointer, every write accepted.
  ddbMock.onAnyCommand().resolves({});

  const done = await ingest(sqsEvent('incoming/daily 1.json'));

  expect(done).toEqual([
    {
      bucket: BUCKET,
      key: 'incoming/daily 1.json',
      versionId: 'v-read',
      outcome: 'published',
      moved: { file: 'imported/daily 1.json', report: 'imported/daily 1.json.report.json' },
    },
  ]);
  expect(puts().map((put) => put.Key)).toEqual(['imported/daily 1.json', 'imported/daily 1.json.report.json']);
  expect(Buffer.from(puts()[0].Body as Uint8Array).toString('utf8')).toBe('{"exchanges": []}');
  const report = JSON.parse(String(puts()[1].Body));
  expect(report).toMatchObject({
    file: 'incoming/daily 1.json',
    outcome: 'published',
    checkedAt: NOW.toISOString(),
    result: expect.any(Object),
  });
  // The version that was read is deleted, not whatever is current under the name by then.
  expect(deletes()).toEqual([{ Bucket: BUCKET, Key: 'incoming/daily 1.json', VersionId: 'v-read' }]);
  expect(importMetrics()).toEqual([{ ImportsPublished: 1, ImportsRefused: 0, ImportsFailed: 0 }]);
});

it('holds the import lease at least as long as the invocation may still run (a longer timeout than the default lease)', async () => {
  s3Mock
    .on(GetObjectCommand, { Bucket: BUCKET, Key: 'incoming/long.json' })
    .resolves({ Body: objectBody('{"exchanges": []}'), VersionId: 'v-long' });
  ddbMock.onAnyCommand().resolves({});
  const leaseUntil = () =>
    ddbMock
      .commandCalls(UpdateCommand)
      .map((call) => call.args[0].input.ExpressionAttributeValues ?? {})
      .map((values) => (values[':lease'] as { until?: number } | undefined)?.until ?? values[':until'])
      .find((until) => typeof until === 'number') as number;

  await ingest(sqsEvent('incoming/long.json'), { getRemainingTimeInMillis: () => 14 * 60_000 });
  expect(leaseUntil() - NOW.getTime()).toBe(14 * 60_000 + 30_000);

  // A short invocation still gets the default lease (5 minutes).
  ddbMock.resetHistory();
  await ingest(sqsEvent('incoming/long.json'), { getRemainingTimeInMillis: () => 60_000 });
  expect(leaseUntil() - NOW.getTime()).toBe(5 * 60_000);
});

it("reads the version its event names, not the current one, listing the name's versions page by page, and deletes that version only", async () => {
  const event = sqsEvent('incoming/x.json', 'Object Created', 'v1');
  // Newest first, over two pages; another key that shares the prefix is not a version of this one.
  s3Mock
    .on(ListObjectVersionsCommand)
    .resolvesOnce({
      IsTruncated: true,
      NextKeyMarker: 'incoming/x.json',
      NextVersionIdMarker: 'v2',
      Versions: [{ Key: 'incoming/x.json', VersionId: 'v2' }],
    })
    .resolvesOnce({
      IsTruncated: false,
      Versions: [
        { Key: 'incoming/x.json', VersionId: 'v1' },
        { Key: 'incoming/x.json.bak', VersionId: 'v0' },
      ],
    });
  s3Mock.on(GetObjectCommand).resolves({ Body: objectBody('{"exchanges": []}'), VersionId: 'v1' });
  ddbMock.onAnyCommand().resolves({});

  const done = await ingest(event);

  expect(done.map((d) => [d.versionId, d.outcome])).toEqual([['v1', 'published']]);
  expect(s3Mock.commandCalls(ListObjectVersionsCommand).map((call) => call.args[0].input)).toEqual([
    { Bucket: BUCKET, Prefix: 'incoming/x.json' },
    { Bucket: BUCKET, Prefix: 'incoming/x.json', KeyMarker: 'incoming/x.json', VersionIdMarker: 'v2' },
  ]);
  expect(s3Mock.commandCalls(GetObjectCommand).map((call) => call.args[0].input)).toEqual([
    { Bucket: BUCKET, Key: 'incoming/x.json', VersionId: 'v1' },
  ]);
  expect(puts()[0].Metadata).toEqual({ 'source-version-id': 'v1' });
  expect(deletes()).toEqual([{ Bucket: BUCKET, Key: 'incoming/x.json', VersionId: 'v1' }]);
});

it('refuses an invalid file without a write to the table, its report listing every error by place', async () => {
  const file = JSON.stringify({ exchanges: [{ slug: 'Bad Slug' }], unknown_family: [] });
  s3Mock.on(GetObjectCommand).resolves({ Body: objectBody(file) });

  const done = await ingest(sqsEvent('incoming/bad.json'));

  expect(done[0]).toMatchObject({
    outcome: 'refused',
    moved: { file: 'refused/bad.json', report: 'refused/bad.json.report.json' },
  });
  expect(ddbMock.calls()).toHaveLength(0);
  expect(puts().map((put) => put.Key)).toEqual(['refused/bad.json', 'refused/bad.json.report.json']);
  const report = JSON.parse(String(puts()[1].Body));
  expect(report).toMatchObject({ file: 'incoming/bad.json', outcome: 'refused', checkedAt: NOW.toISOString() });
  expect(report.errorCount).toBe(report.errors.length);
  expect(report.errors).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^unknown_family: /),
      expect.stringMatching(/^exchanges\[0\]\.slug: /),
      expect.stringMatching(/^exchanges\[0\]\.name: /),
    ]),
  );
  expect(deletes()).toEqual([{ Bucket: BUCKET, Key: 'incoming/bad.json', VersionId: undefined }]);
  expect(importMetrics()).toEqual([{ ImportsPublished: 0, ImportsRefused: 1, ImportsFailed: 0 }]);
});

it('refuses a file that is not JSON, by place', async () => {
  s3Mock.on(GetObjectCommand).resolves({ Body: objectBody('{"exchanges": [') });

  await ingest(sqsEvent('incoming/truncated.json'));

  const report = JSON.parse(String(puts()[1].Body));
  expect(report.outcome).toBe('refused');
  expect(report.errors.length).toBeGreaterThan(0);
});

it('tries a failing import once more, then moves the file to failed/ beside a report and sends its event to the dead-letter queue, the message done', async () => {
  s3Mock.on(GetObjectCommand).resolves({ Body: objectBody('{"exchanges": []}'), VersionId: 'v1' });
  ddbMock.onAnyCommand().rejects(new Error('connection reset'));
  const sent: unknown[] = [];
  const ingestOnce = ingestHandler({
    s3,
    client,
    tableName: 'unit-table',
    snapshotCacheMs: 5_000,
    clock: () => NOW,
    recordHistory: false,
    deadLetter: async (failed) => {
      sent.push(failed);
    },
  });
  const message = sqsEvent('incoming/daily.json');

  const done = await ingestOnce(message);

  expect(done).toEqual([
    {
      bucket: BUCKET,
      key: 'incoming/daily.json',
      versionId: 'v1',
      outcome: 'failed',
      moved: { file: 'failed/daily.json', report: 'failed/daily.json.report.json' },
    },
  ]);
  // Twice: a first failure is tried again while the invocation has time.
  expect(s3Mock.commandCalls(GetObjectCommand)).toHaveLength(1);
  expect(lines.filter((line) => line.message === 'ingest: import failed, trying once more')).toHaveLength(1);
  expect(puts().map((put) => put.Key)).toEqual(['failed/daily.json', 'failed/daily.json.report.json']);
  const report = JSON.parse(String(puts()[1].Body));
  expect(report).toMatchObject({ file: 'incoming/daily.json', versionId: 'v1', outcome: 'failed' });
  expect(report.error).toMatch(/connection reset/);
  expect(deletes()).toEqual([{ Bucket: BUCKET, Key: 'incoming/daily.json', VersionId: 'v1' }]);
  expect(sent).toEqual([
    {
      body: message.Records[0].body,
      bucket: BUCKET,
      key: 'incoming/daily.json',
      versionId: 'v1',
      moved: { file: 'failed/daily.json', report: 'failed/daily.json.report.json' },
    },
  ]);
  expect(importMetrics()).toEqual([{ ImportsPublished: 0, ImportsRefused: 0, ImportsFailed: 1 }]);
});

it('does not try a failing import again when the invocation has no time left for it', async () => {
  s3Mock.on(GetObjectCommand).resolves({ Body: objectBody('{"exchanges": []}'), VersionId: 'v1' });
  ddbMock.onAnyCommand().rejects(new Error('connection reset'));
  const sent: unknown[] = [];
  const ingestOnce = ingestHandler({
    s3,
    client,
    tableName: 'unit-table',
    snapshotCacheMs: 5_000,
    clock: () => NOW,
    recordHistory: false,
    deadLetter: async (failed) => {
      sent.push(failed);
    },
  });

  const [done] = await ingestOnce(sqsEvent('incoming/daily.json'), { getRemainingTimeInMillis: () => 1_000 });

  expect(done.outcome).toBe('failed');
  expect(lines.filter((line) => line.message === 'ingest: import failed, trying once more')).toEqual([]);
  expect(sent).toHaveLength(1);
});

it('leaves a file waiting while another import holds the lease: delivered again, not a failure', async () => {
  s3Mock.on(GetObjectCommand).resolves({ Body: objectBody('{"exchanges": []}') });
  ddbMock.on(GetCommand).resolves({});
  // The lease is on the pointer item: the conditional update is refused, then the pointer says until when.
  ddbMock
    .on(UpdateCommand)
    .rejects(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' }));

  await expect(ingest(sqsEvent('incoming/daily.json'))).rejects.toBeInstanceOf(ImportBusyError);
  expect(puts()).toEqual([]);
  expect(deletes()).toEqual([]);
  expect(importMetrics()).toEqual([]);
});

it('counts a failure to read the object as a failed import and propagates it', async () => {
  s3Mock.on(GetObjectCommand).rejects(new Error('AccessDenied'));

  await expect(ingest(sqsEvent('incoming/daily.json'))).rejects.toThrow('AccessDenied');
  expect(importMetrics()).toEqual([{ ImportsPublished: 0, ImportsRefused: 0, ImportsFailed: 1 }]);
});

it('skips a message delivered again after its file was moved', async () => {
  s3Mock.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'gone', $metadata: {} }));

  expect(await ingest(sqsEvent('incoming/daily.json'))).toEqual([
    { bucket: BUCKET, key: 'incoming/daily.json', outcome: 'skipped' },
  ]);
  expect(puts()).toEqual([]);
  expect(importMetrics()).toEqual([]);
});

it('ignores events of other sources, keys outside incoming/, folder placeholders and removals', async () => {
  for (const event of [
    sqsEvent('incoming/x.json', 'Object Created', undefined, 'aws.events'),
    sqsEvent('refused/x.json.report.json'),
    sqsEvent('incoming/'),
    sqsEvent('incoming/x.json', 'Object Deleted'),
  ]) {
    expect((await ingest(event)).map((d) => d.outcome)).toEqual(['skipped']);
  }
  expect(s3Mock.calls()).toHaveLength(0);
});
