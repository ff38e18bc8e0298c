/** The ingest function's composition root: configuration read and validated once, clients built once. */
import { S3Client } from '@aws-sdk/client-s3';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { clientOptionsOf, createDocumentClient } from '../../shared/platform/dynamodb';
import { ingestHandler } from './ingest-handler';

const config = readConfig(process.env);

export const handler = ingestHandler({
  s3: new S3Client({}),
  // An import writes in bulk: as many attempts as `npm run import` gives its client.
  client: createDocumentClient({ ...clientOptionsOf(config), maxAttempts: 10 }),
  tableName: config.tableName,
  snapshotCacheMs: config.snapshotCacheMs,
  clock: systemClock,
  recordHistory: config.recordHistory,
});
