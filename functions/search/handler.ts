/** The search function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { readConfig } from '../../shared/platform/config';
import { searchHandler } from './search-handler';

export const handler = lambdaHandler('search', searchHandler(createApiDeps(readConfig(process.env))));
