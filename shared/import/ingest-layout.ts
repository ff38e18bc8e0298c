/**
 * Where files go in the ingest bucket: the one place the stack (notification filter, grants) and
 * the ingest function (functions/ingest/) read the layout from. A file put under `incoming/` is
 * imported, then moved beside its report: `incoming/a/x.json` becomes `imported/a/x.json` and
 * `imported/a/x.json.report.json`, or `refused/a/x.json` and `refused/a/x.json.report.json`, or
 * (an import that kept failing, its event sent to the dead-letter queue) `failed/a/x.json` and its report.
 * Only `incoming/` notifies the function, so moved files and reports never trigger an import.
 */
export const INGEST_PREFIXES = {
  incoming: 'incoming/',
  imported: 'imported/',
  refused: 'refused/',
  failed: 'failed/',
} as const;

const REPORT_SUFFIX = '.report.json';

export type IngestOutcomePrefix = Exclude<(typeof INGEST_PREFIXES)[keyof typeof INGEST_PREFIXES], 'incoming/'>;

/** The key a file under `incoming/` is moved to, and the key of its report. */
export function movedKeys(incomingKey: string, destination: IngestOutcomePrefix): { file: string; report: string } {
  const file = `${destination}${incomingKey.slice(INGEST_PREFIXES.incoming.length)}`;
  return { file, report: `${file}${REPORT_SUFFIX}` };
}

/** Every upload's message is in this one group of the FIFO queues (lib/constructs/ingest.ts): SQS hands out one at a time, in order. */
export const INGEST_MESSAGE_GROUP = 'uploads';
