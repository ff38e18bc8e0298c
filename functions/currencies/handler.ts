/** The currencies function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { readConfig } from '../../shared/platform/config';
import { currenciesHandler } from './currencies-handler';

export const handler = lambdaHandler('currencies', currenciesHandler(createApiDeps(readConfig(process.env))));
