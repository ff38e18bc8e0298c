/** The history function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { readConfig } from '../../shared/platform/config';
import { historyHandler } from './history-handler';

export const handler = historyHandler(createApiDeps(readConfig(process.env)));
