/** The webhooks function's composition root (the owner's view): configuration read and validated once, clients built once. */
import { WebhookStore } from '../../shared/data/webhook-store';
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { createClients } from '../../shared/platform/dynamodb';
import { webhooksHandler } from './webhooks-handler';

const config = readConfig(process.env);
const clients = createClients(config);
export const handler = lambdaHandler(
  'webhooks',
  webhooksHandler(createApiDeps(config, clients, systemClock), new WebhookStore(clients.client, config.tableName)),
);
