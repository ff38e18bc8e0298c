/** The platforms function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { readConfig } from '../../shared/platform/config';
import { platformsHandler } from './platforms-handler';

export const handler = lambdaHandler('platforms', platformsHandler(createApiDeps(readConfig(process.env))));
