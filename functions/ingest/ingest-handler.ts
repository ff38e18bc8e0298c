/**
 * The ingest function's factory. Each SQS message carries an S3 event notification of a file put
 * under `incoming/` in the ingest bucket (shared/ingest-layout.ts). The file's bytes go through
 * `importDataset`, the same validation and publication as `npm run import` (docs/deploy.md,
 * "Importing data"):
 * - published: the file moves to `imported/` beside a short result report;
 * - refused (a `DataFileError`): nothing is published; the file moves to `refused/` beside a
 *   report listing every error by place;
 * - any other error (DynamoDB, S3, another import holding the lease) propagates, so SQS delivers
 *   the message again after its visibility timeout and, after the last attempt, moves it to the
 *   dead-letter queue. The file stays under `incoming/` until then.
 * Every outcome writes one EMF line (shared/observability/import-metrics.ts).
 */
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3EventRecord, SQSEvent } from 'aws-lambda';
import { importDataset } from '../../shared/import/importer';
import { decodeEventKey, INGEST_PREFIXES, movedKeys, type IngestOutcomePrefix } from '../../shared/ingest-layout';
import { logger } from '../../shared/logger';
import { importMetricDocument, type ImportOutcome } from '../../shared/observability/import-metrics';
import { ImportBusyError } from '../../shared/repositories/snapshot-writer';
import { DataFileError } from '../../shared/schemas/dataset';

export interface IngestDeps {
  s3: S3Client;
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: () => Date;
}

/** What became of one object named in a message. */
export interface IngestedObject {
  bucket: string;
  key: string;
  outcome: ImportOutcome | 'skipped';
  /** Where the file and its report now are (published or refused). */
  moved?: { file: string; report: string };
}

export function ingestHandler(deps: IngestDeps): (event: SQSEvent) => Promise<IngestedObject[]> {
  const { s3, clock } = deps;

  async function moveWithReport(bucket: string, key: string, versionId: string | undefined, bytes: Uint8Array, destination: IngestOutcomePrefix, report: object) {
    const moved = movedKeys(key, destination);
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: moved.file, Body: bytes, ContentType: 'application/json' }));
    await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: moved.report, Body: `${JSON.stringify(report, null, 2)}\n`, ContentType: 'application/json' }),
    );
    // The version read, not the key's current one: a newer upload of the same name stays and is imported on its own event.
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key, VersionId: versionId }));
    return moved;
  }

  async function ingestObject(bucket: string, key: string): Promise<IngestedObject> {
    let object;
    try {
      object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    } catch (error) {
      // A message delivered again after the file was moved: it was handled already.
      if (error instanceof NoSuchKey) {
        logger.info('ingest: object is gone, already handled', { bucket, key });
        return { bucket, key, outcome: 'skipped' };
      }
      throw error;
    }
    const bytes = await object.Body!.transformToByteArray();
    const checkedAt = clock().toISOString();
    try {
      const result = await importDataset(bytes, { client: deps.client, tableName: deps.tableName, now: clock });
      const moved = await moveWithReport(bucket, key, object.VersionId, bytes, INGEST_PREFIXES.imported, { file: key, outcome: 'published', checkedAt, result });
      logger.info('ingest: published', { bucket, key, report: moved.report });
      return { bucket, key, outcome: 'published', moved };
    } catch (error) {
      if (!(error instanceof DataFileError)) throw error;
      const moved = await moveWithReport(bucket, key, object.VersionId, bytes, INGEST_PREFIXES.refused, {
        file: key,
        outcome: 'refused',
        checkedAt,
        errorCount: error.errors.length,
        errors: error.errors,
      });
      logger.warn('ingest: refused, nothing published', { bucket, key, report: moved.report, errorCount: error.errors.length, firstErrors: error.errors.slice(0, 10) });
      return { bucket, key, outcome: 'refused', moved };
    }
  }

  async function ingestRecord(record: S3EventRecord): Promise<IngestedObject> {
    const bucket = record.s3.bucket.name;
    const key = decodeEventKey(record.s3.object.key);
    // The notification filter sends only `incoming/`; a folder placeholder has nothing to import.
    if (!record.eventName.startsWith('ObjectCreated:') || !key.startsWith(INGEST_PREFIXES.incoming) || key.endsWith('/')) {
      return { bucket, key, outcome: 'skipped' };
    }
    try {
      const done = await ingestObject(bucket, key);
      if (done.outcome !== 'skipped') logger.metric(importMetricDocument(done.outcome, clock().getTime()));
      return done;
    } catch (error) {
      if (error instanceof ImportBusyError) {
        // Not a failure: another import (the command line, say) is running; SQS delivers it again.
        logger.warn('ingest: another import holds the lease, the message will be retried', { bucket, key, until: error.until });
        throw error;
      }
      logger.error('ingest: import failed, the message will be retried', { bucket, key, error });
      logger.metric(importMetricDocument('failed', clock().getTime()));
      throw error;
    }
  }

  return async function ingest(event: SQSEvent) {
    const done: IngestedObject[] = [];
    // The queue delivers one message at a time (batch size 1); records run one after the other.
    for (const message of event.Records) {
      const body = JSON.parse(message.body) as { Records?: S3EventRecord[]; Event?: string };
      // S3 sends `s3:TestEvent` once when the notification is set up.
      if (body.Event === 's3:TestEvent') continue;
      for (const record of body.Records ?? []) done.push(await ingestRecord(record));
    }
    return done;
  };
}
