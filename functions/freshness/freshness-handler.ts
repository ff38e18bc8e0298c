/**
 * The freshness function's factory: every 5 minutes (an EventBridge schedule), read when each
 * family was last published and write its age as the `DataAgeSeconds` metric, one line per
 * family (shared/platform/data-age.ts). A failed read throws: the function's Errors alarm
 * fires and, with no data, so do the age alarms.
 */

import type { PointerStore } from '../../shared/data/pointer-store';
import { dataAgeDocuments, dataAgeSeconds } from '../../shared/platform/data-age';
import { logger } from '../../shared/platform/logger';

export interface FreshnessDeps {
  pointers: PointerStore;
  clock: () => Date;
}

interface FreshnessResult {
  /** Seconds since each family was published; empty before the first import. */
  ages: Record<string, number>;
}

export function freshnessHandler({ pointers, clock }: FreshnessDeps): () => Promise<FreshnessResult> {
  return async function reportDataAge() {
    const published = await pointers.publishedFamilies();
    const now = clock();
    if (!published) {
      logger.warn('no snapshot pointer: nothing published yet, no data age to report');
      return { ages: {} };
    }
    const ages = dataAgeSeconds(published, now);
    for (const document of dataAgeDocuments(ages, now.getTime())) logger.metric(document);
    return { ages };
  };
}
