/** The offers function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { createClients } from '../../shared/platform/dynamodb';
import { offersHandler } from './offers-handler';

const config = readConfig(process.env);

export const handler = lambdaHandler(
  'offers',
  offersHandler(createApiDeps(config, createClients(config), systemClock)),
);
