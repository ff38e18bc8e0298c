/**
 * The age of each dataset family's served data, from the snapshot pointer: now minus the time
 * the family was last published. The freshness function writes it as an EMF metric every 5
 * minutes; one alarm per family fires when it passes the stage's `maxDataAgeMinutes`
 * (docs/deploy.md). A family the pointer does not name gets no value, and its alarm treats the
 * missing data as breaching.
 */
import { DATA_AGE_METRIC, DATA_AGE_UNIT, FAMILY_DIMENSION, METRICS_NAMESPACE } from './metric-names';

/** The part of the pointer item the age is computed from. */
export interface PublishedFamilies {
  families: Record<string, { publishedAt: string }>;
}

/**
 * Whole seconds since each family was published (never negative: a clock behind the import's is
 * age 0). A family whose `publishedAt` is not a time is left out, so its alarm sees no data.
 */
export function dataAgeSeconds(pointer: PublishedFamilies, now: Date): Record<string, number> {
  const ages: Record<string, number> = {};
  for (const [family, entry] of Object.entries(pointer.families ?? {})) {
    const published = typeof entry?.publishedAt === 'string' ? Date.parse(entry.publishedAt) : Number.NaN;
    if (Number.isNaN(published)) continue;
    ages[family] = Math.max(0, Math.floor((now.getTime() - published) / 1000));
  }
  return ages;
}

/** One EMF document per family: `DataAgeSeconds` with dimension `Family`. */
export function dataAgeDocuments(ages: Record<string, number>, timestamp: number): Record<string, unknown>[] {
  return Object.entries(ages).map(([family, seconds]) => ({
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [[FAMILY_DIMENSION]],
          Metrics: [{ Name: DATA_AGE_METRIC, Unit: DATA_AGE_UNIT }],
        },
      ],
    },
    [FAMILY_DIMENSION]: family,
    [DATA_AGE_METRIC]: seconds,
  }));
}
