/**
 * Where files go in the ingest bucket: the one place the stack (notification filter, grants) and
 * the ingest function (functions/ingest/) read the layout from. A file put under `incoming/` is
 * imported, then moved beside its report: `incoming/a/x.json` becomes `imported/a/x.json` and
 * `imported/a/x.json.report.json`, or `refused/a/x.json` and `refused/a/x.json.report.json`.
 * Only `incoming/` notifies the function, so moved files and reports never trigger an import.
 */
export const INGEST_PREFIXES = {
  incoming: 'incoming/',
  imported: 'imported/',
  refused: 'refused/',
} as const;

const REPORT_SUFFIX = '.report.json';

export type IngestOutcomePrefix = typeof INGEST_PREFIXES.imported | typeof INGEST_PREFIXES.refused;

/** The key a file under `incoming/` is moved to, and the key of its report. */
export function movedKeys(incomingKey: string, destination: IngestOutcomePrefix): { file: string; report: string } {
  const file = `${destination}${incomingKey.slice(INGEST_PREFIXES.incoming.length)}`;
  return { file, report: `${file}${REPORT_SUFFIX}` };
}
