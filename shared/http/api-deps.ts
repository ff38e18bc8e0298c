/**
 * What a family function needs, built once by its composition root (functions/<name>/handler.ts)
 * or by the local stack and the tests, which pass their own client and clock.
 */

import type { KeyLimits } from '../accounts/key-store';
import { QuotaStore } from '../accounts/quota-store';
import { createStores, type Stores } from '../data/stores';
import type { Clock } from '../platform/clock';
import type { RuntimeConfig } from '../platform/config';
import type { Clients } from '../platform/dynamodb';

export interface ApiDeps {
  /** Reads of the served snapshot. */
  stores: Stores;
  /** The usage counters. */
  quota: QuotaStore;
  /** The budgets of a key that carries none of its own. */
  limits: KeyLimits;
  /** Seconds a client is told to wait after a 503. */
  retryAfterSeconds: number;
  /** The request time (quota windows, history windows). */
  clock: Clock;
}

export function createApiDeps(config: RuntimeConfig, clients: Clients, clock: Clock): ApiDeps {
  return {
    stores: createStores(clients.client, config, () => clock().getTime()),
    quota: new QuotaStore(clients.counterClient, config.tableName),
    limits: { perMinute: config.ratePerMinute, perMonth: config.quotaPerMonth },
    retryAfterSeconds: config.retryAfterSeconds,
    clock,
  };
}
