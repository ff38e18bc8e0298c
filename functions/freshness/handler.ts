/** The freshness function's composition root: configuration read and validated once, the client built once. */
import { readConfig } from '../../shared/config';
import { clientOptionsOf, createDocumentClient } from '../../shared/dynamodb';
import { PointerStore } from '../../shared/repositories/pointer-store';
import { freshnessHandler } from './freshness-handler';

const config = readConfig(process.env);

export const handler = freshnessHandler({
  pointers: new PointerStore(createDocumentClient(clientOptionsOf(config)), config.tableName),
  clock: () => new Date(),
});
