/**
 * The key-free function's composition root (docs/api.md, "The API description" and "Freshness"):
 * configuration read and validated once, the client built once; the status reads the snapshot
 * pointer through the same stores as the family functions.
 */
import { readConfig } from '../../shared/config';
import { clientOptionsOf, createDocumentClient } from '../../shared/dynamodb';
import { createStores } from '../../shared/stores';
import { docsHandler } from './docs-handler';

const config = readConfig(process.env);

export const handler = docsHandler({
  stores: createStores(createDocumentClient(clientOptionsOf(config)), config),
  clock: () => new Date(),
  retryAfterSeconds: config.retryAfterSeconds,
});
