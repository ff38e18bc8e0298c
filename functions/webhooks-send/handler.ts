/** The sending function's composition root: configuration read once, clients built once. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { WebhookStore } from '../../shared/data/webhook-store';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { createClients } from '../../shared/platform/dynamodb';
import { SqsDeliveryQueue, WEBHOOK_QUEUE_URL } from '../../shared/webhooks/sqs-queue';
import { sendHandler } from './send-handler';

const config = readConfig(process.env);
const queueUrl = process.env[WEBHOOK_QUEUE_URL];
if (!queueUrl) throw new Error(`${WEBHOOK_QUEUE_URL} is required`);
const { client } = createClients(config);

export const handler = sendHandler({
  webhooks: new WebhookStore(client, config.tableName),
  queue: new SqsDeliveryQueue(new SQSClient({}), queueUrl),
  clock: systemClock,
  // Deployed stages send only to public https targets (CONTRACT §14 "Targets").
  rule: 'public',
});
