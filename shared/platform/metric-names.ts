/**
 * The one registry of the application metrics: the functions write them (metrics.ts) and the
 * stack's dashboard and alarms read them (lib/constructs/monitoring.ts).
 */
export const METRICS_NAMESPACE = 'MarketDataApi';
export const ROUTE_DIMENSION = 'Route';

/** Metric names and units, in the order they are declared in the EMF directive. */
export const REQUEST_METRICS = {
  Requests: 'Count',
  Latency: 'Milliseconds',
  ConsumedReadCapacity: 'Count',
  ConsumedWriteCapacity: 'Count',
  DynamoCalls: 'Count',
  RoundTrips: 'Count',
  Errors4xx: 'Count',
  Errors5xx: 'Count',
  QuotaRefusals: 'Count',
  CacheHits: 'Count',
  CacheMisses: 'Count',
  CacheBytes: 'Bytes',
  IndexLoads: 'Count',
} as const;

export type RequestMetricName = keyof typeof REQUEST_METRICS;

/** What the ingest function reports per file (no dimension): one of the three is 1. */
export const IMPORT_METRICS = {
  ImportsPublished: 'Count',
  ImportsRefused: 'Count',
  ImportsFailed: 'Count',
} as const;

export type ImportMetricName = keyof typeof IMPORT_METRICS;

/** What the freshness function reports every 5 minutes, one line per dataset family. */
export const DATA_AGE_METRIC = 'DataAgeSeconds';
export const DATA_AGE_UNIT = 'Seconds';
export const FAMILY_DIMENSION = 'Family';

/** The namespace of the webhook sending function's metrics: one count per outcome (shared/webhooks/delivery.ts `DeliveryOutcome`). */
export const WEBHOOK_METRICS_NAMESPACE = 'MarketData/Webhooks';
