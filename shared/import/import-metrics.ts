/**
 * The EMF line of one file handled by the ingest function: published, refused (its report lists
 * the errors) or failed (the message is retried, then lands in the dead-letter queue). The
 * stack alarms on ImportsRefused and ImportsFailed (lib/constructs/monitoring.ts).
 */
import { IMPORT_METRICS, type ImportMetricName, METRICS_NAMESPACE } from '../platform/metric-names';

export type ImportOutcome = 'published' | 'refused' | 'failed';

const METRIC_OF: Record<ImportOutcome, ImportMetricName> = {
  published: 'ImportsPublished',
  refused: 'ImportsRefused',
  failed: 'ImportsFailed',
};

export function importMetricDocument(outcome: ImportOutcome, timestamp: number): Record<string, unknown> {
  const values = Object.fromEntries(
    Object.keys(IMPORT_METRICS).map((name) => [name, name === METRIC_OF[outcome] ? 1 : 0]),
  );
  return {
    _aws: {
      Timestamp: timestamp,
      // One empty dimension set: the metrics have no dimension, one series for the stage.
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [[]],
          Metrics: Object.entries(IMPORT_METRICS).map(([Name, Unit]) => ({ Name, Unit })),
        },
      ],
    },
    ...values,
  };
}
