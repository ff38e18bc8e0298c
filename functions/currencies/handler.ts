/** The currencies function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { createClients } from '../../shared/platform/dynamodb';
import { currenciesHandler } from './currencies-handler';

const config = readConfig(process.env);

export const handler = lambdaHandler(
  'currencies',
  currenciesHandler(createApiDeps(config, createClients(config), systemClock)),
);
