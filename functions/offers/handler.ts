/** The offers function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { readConfig } from '../../shared/platform/config';
import { offersHandler } from './offers-handler';

export const handler = lambdaHandler('offers', offersHandler(createApiDeps(readConfig(process.env))));
