/** The platforms function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { readConfig } from '../../shared/platform/config';
import { platformsHandler } from './platforms-handler';

export const handler = platformsHandler(createApiDeps(readConfig(process.env)));
