/**
 * Writes the APY history of several offers as a CSV file a spreadsheet opens (docs/api.md,
 * "Several offers at once"), on the repository's typed client (client/index.ts): one request for
 * up to 50 offers (`history()` with a list of ids: one unit of budget), then one row per point,
 * the offer `id` first. The JSON answer is turned into RFC 4180 CSV here (CRLF line ends, a header
 * row, a field quoted when it holds a comma, a quote or a line break, quotes doubled; `null` an
 * empty field; decimals as the API wrote them, never through a float).
 *
 * Usage:
 *   npx tsx examples/history-csv.ts --url http://127.0.0.1:3000 --key KEY --family earn --ids 1,2,3 --out history.csv
 *   (--days 90 by default, the interval of a 90-day window: 1d; --interval to choose another)
 *
 * The key may come from MARKET_DATA_API_KEY instead of --key.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createMarketDataClient, type HistoryFamily, type HistoryWindow } from '../client';

const FAMILIES: readonly HistoryFamily[] = ['earn', 'borrow'];
const DAY = 86_400_000;

type Cell = string | number | null | undefined;

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote, CR or LF, its quotes doubled. */
export function csvField(value: Cell): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows of cells → CSV text with CRLF line ends (the last line ended too). */
export const csvText = (rows: readonly (readonly Cell[])[]): string =>
  rows.map((row) => `${row.map(csvField).join(',')}\r\n`).join('');

interface Entry {
  id: number;
  data: { timestamp: string; apy: string; tvl?: string | null }[];
}

/** The rows of several offers' history: a header, then one row per point, `id` first (earn adds `tvl`). */
export function historyRows(family: HistoryFamily, entries: readonly Entry[]): Cell[][] {
  const header = family === 'earn' ? ['id', 'timestamp', 'apy', 'tvl'] : ['id', 'timestamp', 'apy'];
  const rows: Cell[][] = [header];
  for (const { id, data } of entries)
    for (const point of data)
      rows.push(family === 'earn' ? [id, point.timestamp, point.apy, point.tvl] : [id, point.timestamp, point.apy]);
  return rows;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:3000' },
      key: { type: 'string', default: process.env.MARKET_DATA_API_KEY },
      family: { type: 'string', default: 'earn' },
      ids: { type: 'string' },
      days: { type: 'string', default: '90' },
      interval: { type: 'string' },
      out: { type: 'string', default: 'history.csv' },
    },
  });
  const family = values.family as HistoryFamily;
  if (!FAMILIES.includes(family)) throw new Error(`--family must be one of ${FAMILIES.join(', ')}`);
  if (!values.key) throw new Error('an API key is needed: --key KEY or MARKET_DATA_API_KEY');
  if (!values.ids) throw new Error('--ids is needed: 1 to 50 offer ids, comma-separated');
  const ids = values.ids.split(',').map(Number);
  const api = createMarketDataClient({ baseUrl: values.url!, apiKey: values.key });

  // A custom window of `days` ending now: the API picks the interval of the period of that length.
  const window: HistoryWindow = {
    from: new Date(Date.now() - Number(values.days) * DAY).toISOString(),
    ...(values.interval ? { interval: values.interval as HistoryWindow['interval'] } : {}),
  };
  const answer = await api.history(family, ids, window);
  const rows = historyRows(family, answer.data);
  writeFileSync(values.out!, csvText(rows));
  const absent = ids.filter((id) => !answer.data.some((entry) => entry.id === id));
  process.stdout.write(
    `${values.out}: ${rows.length - 1} points of ${answer.data.length} offers` +
      `${absent.length > 0 ? ` (not published: ${absent.join(',')})` : ''}\n`,
  );
}

// Run as a script, not when a test imports its functions.
if (process.argv[1]?.endsWith('history-csv.ts'))
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
