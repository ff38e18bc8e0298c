/**
 * The key-free function's composition root (docs/api.md, "The API description" and "Freshness"):
 * configuration read and validated once, the client built once; the status reads the snapshot
 * pointer through the same stores as the family functions.
 */

import { createStores } from '../../shared/data/stores';
import { dataStatus } from '../../shared/domain/status';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { clientOptionsOf, createDocumentClient } from '../../shared/platform/dynamodb';
import { docsHandler } from './docs-handler';

const config = readConfig(process.env);
const stores = createStores(createDocumentClient(clientOptionsOf(config)), config, () => systemClock().getTime());

export const handler = docsHandler({
  status: (nowMs) => dataStatus(stores, nowMs, config.dataMaxAgeSeconds),
  clock: systemClock,
  retryAfterSeconds: config.retryAfterSeconds,
});
