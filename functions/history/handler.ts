/** The history function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { createClients } from '../../shared/platform/dynamodb';
import { historyHandler } from './history-handler';

const config = readConfig(process.env);

export const handler = lambdaHandler(
  'history',
  historyHandler(createApiDeps(config, createClients(config), systemClock)),
);
