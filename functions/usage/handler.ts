/** The usage function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { readConfig } from '../../shared/platform/config';
import { usageHandler } from './usage-handler';

export const handler = lambdaHandler('usage', usageHandler(createApiDeps(readConfig(process.env))));
