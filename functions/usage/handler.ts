/** The usage function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { readConfig } from '../../shared/platform/config';
import { usageHandler } from './usage-handler';

export const handler = usageHandler(createApiDeps(readConfig(process.env)));
