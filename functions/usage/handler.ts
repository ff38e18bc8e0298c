/** The usage function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/api-deps';
import { readConfig } from '../../shared/config';
import { usageHandler } from './usage-handler';

export const handler = usageHandler(createApiDeps(readConfig(process.env)));
