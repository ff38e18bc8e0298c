import type { GeneratedDataset } from './types';

const HISTORY_KEYS = new Set(['earn_history', 'borrow_history']);

/**
 * "Pretty-compact" JSON in chunks: one record per line (one history point per line), so the file
 * diffs and greps well without the size of fully indented JSON. Chunks keep BENCH-sized output
 * off a single giant string.
 */
export function* formatDataset(dataset: GeneratedDataset): Generator<string> {
  const entries = Object.entries(dataset).filter(([, records]) => records !== undefined) as Array<[string, unknown[]]>;
  yield '{\n';
  for (const [n, [key, records]] of entries.entries()) {
    const close = n === entries.length - 1 ? '\n' : ',\n';
    if (records.length === 0) {
      yield `  ${JSON.stringify(key)}: []${close}`;
      continue;
    }
    yield `  ${JSON.stringify(key)}: [\n`;
    for (const [i, record] of records.entries()) {
      const separator = i === records.length - 1 ? '\n' : ',\n';
      const line = HISTORY_KEYS.has(key) ? formatHistory(record as HistoryRecord) : `    ${JSON.stringify(record)}`;
      yield `${line}${separator}`;
    }
    yield `  ]${close}`;
  }
  yield '}\n';
}

interface HistoryRecord {
  offer_id: number;
  points: unknown[];
}

function formatHistory(record: HistoryRecord): string {
  if (record.points.length === 0) return `    {"offer_id":${record.offer_id},"points":[]}`;
  const points = record.points.map((point) => `      ${JSON.stringify(point)}`).join(',\n');
  return `    {"offer_id":${record.offer_id},"points":[\n${points}\n    ]}`;
}
