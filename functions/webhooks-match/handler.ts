/** The matching function's composition root: configuration read once, clients built once. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { createStores } from '../../shared/data/stores';
import { WebhookStore } from '../../shared/data/webhook-store';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { createClients } from '../../shared/platform/dynamodb';
import { SqsDeliveryQueue, WEBHOOK_QUEUE_URL } from '../../shared/webhooks/sqs-queue';
import { matchHandler } from './match-handler';

const config = readConfig(process.env);
const queueUrl = process.env[WEBHOOK_QUEUE_URL];
if (!queueUrl) throw new Error(`${WEBHOOK_QUEUE_URL} is required`);
const { client } = createClients(config);

export const handler = matchHandler({
  // Versions are read as the import named them: no pointer cache.
  stores: createStores(client, { ...config, snapshotCacheMs: 0 }, () => systemClock().getTime()),
  webhooks: new WebhookStore(client, config.tableName),
  queue: new SqsDeliveryQueue(new SQSClient({}), queueUrl),
  clock: systemClock,
});
