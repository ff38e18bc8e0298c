/** The offers function's composition root: configuration read and validated once, clients built once. */
import { createApiDeps } from '../../shared/http/api-deps';
import { readConfig } from '../../shared/platform/config';
import { offersHandler } from './offers-handler';

export const handler = offersHandler(createApiDeps(readConfig(process.env)));
