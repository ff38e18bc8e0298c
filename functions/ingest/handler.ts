/** The ingest function's composition root: configuration read and validated once, clients built once. */
import { createHash } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { INGEST_MESSAGE_GROUP } from '../../shared/import/ingest-layout';
import { systemClock } from '../../shared/platform/clock';
import { ENV, readConfig } from '../../shared/platform/config';
import { clientOptionsOf, createDocumentClient } from '../../shared/platform/dynamodb';
import { ingestHandler } from './ingest-handler';

const config = readConfig(process.env);
const deadLetters = process.env[ENV.ingestDeadLetters];
if (!deadLetters) throw new Error(`configuration: ${ENV.ingestDeadLetters} is required`);
const sqs = new SQSClient({});

export const handler = ingestHandler({
  s3: new S3Client({}),
  // An import writes in bulk: as many attempts as `npm run import` gives its client.
  client: createDocumentClient({ ...clientOptionsOf(config), maxAttempts: 10 }),
  tableName: config.tableName,
  snapshotCacheMs: config.snapshotCacheMs,
  clock: systemClock,
  recordHistory: config.recordHistory,
  // The dead-letter queue is FIFO, as the queue: one group; the same event sent twice is one message.
  deadLetter: async ({ body }) => {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: deadLetters,
        MessageBody: body,
        MessageGroupId: INGEST_MESSAGE_GROUP,
        MessageDeduplicationId: createHash('sha256').update(body).digest('hex'),
      }),
    );
  },
});
