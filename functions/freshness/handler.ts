/** The freshness function's composition root: configuration read and validated once, the client built once. */

import { PointerStore } from '../../shared/data/pointer-store';
import { systemClock } from '../../shared/platform/clock';
import { readConfig } from '../../shared/platform/config';
import { clientOptionsOf, createDocumentClient } from '../../shared/platform/dynamodb';
import { freshnessHandler } from './freshness-handler';

const config = readConfig(process.env);

export const handler = freshnessHandler({
  pointers: new PointerStore(createDocumentClient(clientOptionsOf(config)), config.tableName),
  clock: systemClock,
});
