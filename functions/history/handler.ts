/** The history function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { lambdaHandler } from '../../shared/http/streaming';
import { readConfig } from '../../shared/platform/config';
import { historyHandler } from './history-handler';

export const handler = lambdaHandler('history', historyHandler(createApiDeps(readConfig(process.env))));
