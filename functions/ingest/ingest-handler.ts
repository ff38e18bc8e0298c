/**
 * The ingest function's factory. Each SQS message carries the EventBridge event S3 sends for a file
 * put under `incoming/` in the ingest bucket (`Object Created`, shared/import/ingest-layout.ts); the
 * queue is FIFO with one message group, so messages come one at a time, in the order they arrived
 * (lib/constructs/ingest.ts). The file's bytes go through
 * `importDataset`, the same validation and publication as `npm run import` (docs/deploy.md,
 * "Importing data"):
 * - published: the file moves to `imported/` beside a short result report;
 * - refused (a `DataFileError`): nothing is published; the file moves to `refused/` beside a
 *   report listing every error by place;
 * - failed (any other error, DynamoDB or S3, once more after a first failure while time allows):
 *   nothing is published; the file moves to `failed/` beside a report and its event goes to the
 *   dead-letter queue (its alarm), and the message is done: a failing upload holds the queue for
 *   its own import's time only, and never blocks a later upload of its name (ADR 0023);
 * - another import holding the lease (`npm run import`) propagates, so SQS delivers the message
 *   again after its visibility timeout; the file stays under `incoming/`. So does a crash or a
 *   timeout of the function, until the queue's last delivery moves the message to the dead-letter queue.
 * Every outcome writes one EMF line (shared/import/import-metrics.ts).
 *
 * The bucket is versioned and its event names the version uploaded: that version is imported,
 * each upload once and in upload order (CONTRACT §8). A message may arrive after a later upload of
 * the same name, or after the later upload's message (events reach the queue in about, not exactly,
 * the order of the uploads): the versions still
 * under `incoming/` are the uploads not yet handled (S3 lists them newest first). A message imports
 * every such version up to its own, oldest first, and deletes each one it handled by its version
 * id; a message whose version is gone was handled already. So a later upload is never replaced by
 * an earlier one, and moving a file never deletes a newer upload of its name.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectVersionsCommand,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { ImportBusyError } from '../../shared/data/import-lease';
import { DataFileError } from '../../shared/import/dataset';
import { type ImportOutcome, importMetricDocument } from '../../shared/import/import-metrics';
import { importDataset, LEASE_MS } from '../../shared/import/importer';
import { INGEST_PREFIXES, type IngestOutcomePrefix, movedKeys } from '../../shared/import/ingest-layout';
import { logger } from '../../shared/platform/logger';

export interface IngestDeps {
  s3: S3Client;
  client: DynamoDBDocumentClient;
  tableName: string;
  /** The stage's pointer cache (SNAPSHOT_CACHE_MS): replaced versions outlast it (importer.ts retireAfter). */
  snapshotCacheMs: number;
  clock: () => Date;
  /** Record the published offers' values as history (the stage's `recordHistory`, CONTRACT §12). */
  recordHistory: boolean;
  /** Send an upload whose import kept failing to the dead-letter queue (its event, as received). */
  deadLetter: (failed: DeadLetter) => Promise<void>;
}

/** What the dead-letter queue gets for an upload whose import kept failing. */
interface DeadLetter {
  /** The message's body: the EventBridge event of the upload. */
  body: string;
  bucket: string;
  key: string;
  versionId?: string;
  /** Where the file and its report now are. */
  moved: { file: string; report: string };
}

/** What became of one object named in a message. */
export interface IngestedObject {
  bucket: string;
  key: string;
  /** The version imported (absent for a bucket without versioning). */
  versionId?: string;
  outcome: ImportOutcome | 'skipped';
  /** Where the file and its report now are (published or refused). */
  moved?: { file: string; report: string };
}

/**
 * What the ingest reads of a message: the EventBridge event of one upload. Its object key is the
 * key itself (an S3 event notification's is URL-encoded; EventBridge's is not).
 * @internal (exported for its tests)
 */
export interface UploadEvent {
  source?: string;
  'detail-type'?: string;
  detail?: { bucket?: { name?: string }; object?: { key?: string; 'version-id'?: string } };
}

/** What the ingest reads of the Lambda context: the time it has left (the import's lease outlasts it). */
export interface IngestContext {
  getRemainingTimeInMillis(): number;
}

/** Beyond the invocation's remaining time, how much longer the lease lasts. */
const LEASE_MARGIN_MS = 30_000;

export function ingestHandler(
  deps: IngestDeps,
): (event: SQSEvent, context?: IngestContext) => Promise<IngestedObject[]> {
  const { s3, clock } = deps;
  /** The invocation's context: an import's lease lasts at least as long as the function may still run. */
  let invocation: IngestContext | undefined;

  async function moveWithReport(
    bucket: string,
    key: string,
    versionId: string | undefined,
    bytes: Uint8Array,
    destination: IngestOutcomePrefix,
    report: object,
  ) {
    const moved = movedKeys(key, destination);
    const metadata = versionId ? { Metadata: { 'source-version-id': versionId } } : {};
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: moved.file,
        Body: bytes,
        ContentType: 'application/json',
        ...metadata,
      }),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: moved.report,
        Body: `${JSON.stringify(report, null, 2)}\n`,
        ContentType: 'application/json',
      }),
    );
    // The version read, not the key's current one: a newer upload of the same name stays and is imported on its own event.
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
    return moved;
  }

  /** Read one version (the current object when `versionId` is absent); undefined when it is gone (handled already). */
  async function read(
    bucket: string,
    key: string,
    versionId: string | undefined,
  ): Promise<{ bytes: Uint8Array; versionId?: string } | undefined> {
    try {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
      return { bytes: await object.Body!.transformToByteArray(), versionId: versionId ?? object.VersionId };
    } catch (error) {
      if (error instanceof NoSuchKey || (error as Error).name === 'NoSuchVersion') return undefined;
      throw error;
    }
  }

  /** Import one version's bytes: once more after a failure (not a refusal, not a busy lease) while time allows. */
  async function importOnce(bytes: Uint8Array) {
    const attempt = () => {
      const remaining = invocation?.getRemainingTimeInMillis();
      return importDataset(bytes, {
        client: deps.client,
        tableName: deps.tableName,
        snapshotCacheMs: deps.snapshotCacheMs,
        now: clock,
        recordHistory: deps.recordHistory,
        ...(remaining === undefined ? {} : { leaseMs: Math.max(LEASE_MS, remaining + LEASE_MARGIN_MS) }),
      });
    };
    const started = clock().getTime();
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof DataFileError || error instanceof ImportBusyError) throw error;
      const took = clock().getTime() - started;
      const remaining = invocation?.getRemainingTimeInMillis() ?? Number.POSITIVE_INFINITY;
      if (remaining < 2 * took + LEASE_MARGIN_MS) throw error;
      logger.warn('ingest: import failed, trying once more', { error });
      return attempt();
    }
  }

  async function ingestObject(
    bucket: string,
    key: string,
    versionId: string | undefined,
    body: string,
  ): Promise<IngestedObject> {
    const object = await read(bucket, key, versionId);
    if (!object) {
      // A message delivered again after the file was moved, or an earlier upload handled by a later upload's message.
      logger.info('ingest: object is gone, already handled', { bucket, key, versionId });
      return { bucket, key, ...(versionId ? { versionId } : {}), outcome: 'skipped' };
    }
    const { bytes } = object;
    const version = object.versionId ? { versionId: object.versionId } : {};
    const checkedAt = clock().toISOString();
    try {
      const result = await importOnce(bytes);
      const moved = await moveWithReport(bucket, key, object.versionId, bytes, INGEST_PREFIXES.imported, {
        file: key,
        ...version,
        outcome: 'published',
        checkedAt,
        result,
      });
      logger.info('ingest: published', { bucket, key, ...version, report: moved.report });
      logger.metric(importMetricDocument('published', clock().getTime()));
      return { bucket, key, ...version, outcome: 'published', moved };
    } catch (error) {
      if (error instanceof ImportBusyError) throw error;
      if (!(error instanceof DataFileError)) return failed(bucket, key, object, body, checkedAt, error);
      const moved = await moveWithReport(bucket, key, object.versionId, bytes, INGEST_PREFIXES.refused, {
        file: key,
        ...version,
        outcome: 'refused',
        checkedAt,
        errorCount: error.errors.length,
        errors: error.errors,
      });
      logger.warn('ingest: refused, nothing published', {
        bucket,
        key,
        ...version,
        report: moved.report,
        errorCount: error.errors.length,
        firstErrors: error.errors.slice(0, 10),
      });
      logger.metric(importMetricDocument('refused', clock().getTime()));
      return { bucket, key, ...version, outcome: 'refused', moved };
    }
  }

  /**
   * An import that kept failing: the file leaves `incoming/` for `failed/` beside a report, so that
   * no later message of its name tries it again before a newer upload, and its event goes to the
   * dead-letter queue (the alarm, and a redrive once the cause is fixed: put the file again).
   */
  async function failed(
    bucket: string,
    key: string,
    object: { bytes: Uint8Array; versionId?: string },
    body: string,
    checkedAt: string,
    error: unknown,
  ): Promise<IngestedObject> {
    const version = object.versionId ? { versionId: object.versionId } : {};
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const moved = await moveWithReport(bucket, key, object.versionId, object.bytes, INGEST_PREFIXES.failed, {
      file: key,
      ...version,
      outcome: 'failed',
      checkedAt,
      error: reason,
    });
    await deps.deadLetter({ body, bucket, key, ...version, moved });
    logger.error('ingest: import failed, its event sent to the dead-letter queue', {
      bucket,
      key,
      ...version,
      report: moved.report,
      error,
    });
    logger.metric(importMetricDocument('failed', clock().getTime()));
    return { bucket, key, ...version, outcome: 'failed', moved };
  }

  /**
   * The versions of `key` to handle for an event naming `versionId`, oldest first: those still
   * under `incoming/` up to and including it (S3 lists a key's versions newest first). Empty when
   * the version is gone: it was handled already.
   */
  async function pendingVersions(bucket: string, key: string, versionId: string): Promise<string[]> {
    const newestFirst: string[] = [];
    let keyMarker: string | undefined;
    let versionIdMarker: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectVersionsCommand({
          Bucket: bucket,
          Prefix: key,
          KeyMarker: keyMarker,
          VersionIdMarker: versionIdMarker,
        }),
      );
      for (const version of page.Versions ?? [])
        if (version.Key === key && version.VersionId) newestFirst.push(version.VersionId);
      [keyMarker, versionIdMarker] = page.IsTruncated
        ? [page.NextKeyMarker, page.NextVersionIdMarker]
        : [undefined, undefined];
    } while (keyMarker !== undefined);
    const at = newestFirst.indexOf(versionId);
    return at < 0 ? [] : newestFirst.slice(at).reverse();
  }

  /** Handle the upload an event names, and first every earlier upload of its name still waiting. */
  async function ingestUpload(
    bucket: string,
    key: string,
    versionId: string | undefined,
    body: string,
  ): Promise<IngestedObject[]> {
    // A bucket without versioning names no version: its current object is the upload.
    if (!versionId) return [await ingestObject(bucket, key, undefined, body)];
    const versions = await pendingVersions(bucket, key, versionId);
    if (versions.length === 0) return [await ingestObject(bucket, key, versionId, body)];
    // A version that fails leaves `incoming/` (failed/): the next, newer one is imported after it.
    const done: IngestedObject[] = [];
    for (const version of versions) done.push(await ingestObject(bucket, key, version, body));
    return done;
  }

  async function ingestEvent(body: string): Promise<IngestedObject[]> {
    const event = JSON.parse(body) as UploadEvent;
    const bucket = event.detail?.bucket?.name ?? '';
    const key = event.detail?.object?.key ?? '';
    const versionId = event.detail?.object?.['version-id'] || undefined;
    // The rule sends only objects created under `incoming/`; a folder placeholder has nothing to import.
    if (
      event.source !== 'aws.s3' ||
      event['detail-type'] !== 'Object Created' ||
      !key.startsWith(INGEST_PREFIXES.incoming) ||
      key.endsWith('/')
    ) {
      return [{ bucket, key, outcome: 'skipped' }];
    }
    try {
      return await ingestUpload(bucket, key, versionId, body);
    } catch (error) {
      if (error instanceof ImportBusyError) {
        // Not a failure: another import (the command line, say) is running; SQS delivers it again.
        logger.warn('ingest: another import holds the lease, the message will be retried', {
          bucket,
          key,
          versionId,
          until: error.until,
        });
        throw error;
      }
      // S3 failing to read, list or move: the message is delivered again, then dead-lettered.
      logger.error('ingest: the upload could not be handled, the message will be retried', {
        bucket,
        key,
        versionId,
        error,
      });
      logger.metric(importMetricDocument('failed', clock().getTime()));
      throw error;
    }
  }

  return async function ingest(event: SQSEvent, context?: IngestContext) {
    invocation = context;
    const done: IngestedObject[] = [];
    // The queue delivers one message at a time (batch size 1); messages run one after the other.
    for (const message of event.Records) done.push(...(await ingestEvent(message.body)));
    return done;
  };
}
