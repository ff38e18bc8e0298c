/**
 * An S3 bucket with versioning, in memory, behind one real `S3Client` (aws-sdk-client-mock on that
 * instance only): no S3-protocol server that runs here keeps versions (s3rver answers
 * `NotImplemented` to versioning and its events name no version). It keeps S3's rules for the
 * calls the ingest function makes: a put adds a version and its event names it; a get or delete
 * with a `VersionId` reads or removes that version only, without one the current object (a delete
 * then adds a delete marker); a listing gives each key's versions newest first; a version that is
 * gone is `NoSuchVersion`.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectVersionsCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type { UploadEvent } from '../../functions/ingest/ingest-handler';

interface Version {
  id: string;
  body?: Uint8Array;
  /** A delete marker: the key has no current object. */
  deleted?: boolean;
}

export interface VersionedBucket {
  s3: S3Client;
  /** Put an object as a client would; the EventBridge event S3 sends for it. */
  put(key: string, body: string | Uint8Array): Promise<Upload>;
  /** A key's versions (not delete markers), oldest first, as text. */
  versions(key: string): string[];
  /** The current object of a key, as text, or undefined. */
  current(key: string): string | undefined;
  /** The SQS message of an upload's event. */
  message(upload: Upload): SQSEvent;
}

/** An upload's EventBridge event, its version named. */
export type Upload = UploadEvent & { detail: { object: { 'version-id'?: string } } };

/** The event S3 sends to EventBridge for an object created (its key as it is: EventBridge does not encode it). */
export const objectCreated = (bucket: string, key: string, versionId?: string): Upload => ({
  source: 'aws.s3',
  'detail-type': 'Object Created',
  detail: { bucket: { name: bucket }, object: { key, ...(versionId ? { 'version-id': versionId } : {}) } },
});

/** The SQS message the ingest queue delivers for one event (one record: batch size 1). */
export const sqsMessage = (event: UploadEvent, messageId: string): SQSEvent =>
  ({ Records: [{ messageId, receiptHandle: messageId, body: JSON.stringify(event) }] }) as unknown as SQSEvent;

const noSuchVersion = () =>
  new S3ServiceException({
    name: 'NoSuchVersion',
    $fault: 'client',
    $metadata: { httpStatusCode: 404 },
    message: 'The specified version does not exist.',
  });

export function versionedBucket(bucket: string): VersionedBucket {
  const s3 = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const mock = mockClient(s3);
  const objects = new Map<string, Version[]>();
  let counter = 0;
  let messages = 0;
  const text = (body: Uint8Array | undefined) => Buffer.from(body ?? new Uint8Array()).toString('utf8');
  // A Buffer or Uint8Array (of any realm: jest runs tests in their own) or a string.
  const bytesOf = async (body: unknown): Promise<Uint8Array> =>
    ArrayBuffer.isView(body) ? Uint8Array.from(body as Uint8Array) : Buffer.from(String(body), 'utf8');

  const putVersion = (key: string, version: Version) => objects.set(key, [...(objects.get(key) ?? []), version]);
  const latest = (key: string) => objects.get(key)?.at(-1);

  mock.on(PutObjectCommand).callsFake(async (input) => {
    const id = `v${String(++counter).padStart(4, '0')}`;
    putVersion(input.Key!, { id, body: await bytesOf(input.Body) });
    return { VersionId: id };
  });
  mock.on(GetObjectCommand).callsFake(async (input) => {
    const versions = objects.get(input.Key!) ?? [];
    const version = input.VersionId ? versions.find((v) => v.id === input.VersionId) : versions.at(-1);
    if (!version)
      throw input.VersionId
        ? noSuchVersion()
        : new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
    if (version.deleted) throw new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} });
    const body = version.body!;
    return { VersionId: version.id, Body: { transformToByteArray: async () => body } as never };
  });
  mock.on(DeleteObjectCommand).callsFake(async (input) => {
    const versions = objects.get(input.Key!) ?? [];
    if (input.VersionId)
      objects.set(
        input.Key!,
        versions.filter((v) => v.id !== input.VersionId),
      );
    else putVersion(input.Key!, { id: `v${String(++counter).padStart(4, '0')}`, deleted: true });
    return {};
  });
  mock.on(ListObjectVersionsCommand).callsFake(async (input) => {
    const keys = [...objects.keys()].filter((key) => key.startsWith(input.Prefix ?? '')).sort();
    const listed = keys.flatMap((key) =>
      [...(objects.get(key) ?? [])].reverse().map((v, i) => ({ key, v, latest: i === 0 })),
    );
    return {
      IsTruncated: false,
      Versions: listed
        .filter(({ v }) => !v.deleted)
        .map(({ key, v, latest }) => ({ Key: key, VersionId: v.id, IsLatest: latest })),
      DeleteMarkers: listed
        .filter(({ v }) => v.deleted)
        .map(({ key, v, latest }) => ({ Key: key, VersionId: v.id, IsLatest: latest })),
    };
  });

  return {
    s3,
    async put(key, body) {
      const out = await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
        }),
      );
      return objectCreated(bucket, key, out.VersionId);
    },
    versions: (key) => (objects.get(key) ?? []).filter((v) => !v.deleted).map((v) => text(v.body)),
    current: (key) => {
      const version = latest(key);
      return version && !version.deleted ? text(version.body) : undefined;
    },
    message: (upload) => sqsMessage(upload, `versioned-${++messages}`),
  };
}
