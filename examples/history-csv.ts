/**
 * Writes the APY history of several offers as a CSV file a spreadsheet opens (docs/api.md,
 * "Several offers at once" and "CSV"), on the repository's typed client (client/index.ts): one
 * request for up to 50 offers with `Accept: text/csv` (`csv()`, one unit of budget), whose answer
 * is the file: RFC 4180, one row per point, the offer `id` first, decimals as the API wrote them.
 *
 * Usage:
 *   npx tsx examples/history-csv.ts --url http://127.0.0.1:3000 --key KEY --family earn --ids 1,2,3 --out history.csv
 *   (--days 90 by default, the interval of a 90-day window: 1d; --interval to choose another)
 *
 * The key may come from MARKET_DATA_API_KEY instead of --key.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createMarketDataClient, type HistoryWindow, MarketDataApiError } from '../client';

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
  if (values.family !== 'earn' && values.family !== 'borrow') throw new Error('--family must be earn or borrow');
  if (!values.key) throw new Error('an API key is needed: --key KEY or MARKET_DATA_API_KEY');
  if (!values.ids) throw new Error('--ids is needed: 1 to 50 offer ids, comma-separated');

  const api = createMarketDataClient({ baseUrl: values.url!, apiKey: values.key });
  // A custom window of `days` ending now: the API picks the interval of the period of that length.
  const query = {
    ids: values.ids.split(',').map(Number),
    from: new Date(Date.now() - Number(values.days) * 86_400_000).toISOString(),
    ...(values.interval ? { interval: values.interval as NonNullable<HistoryWindow['interval']> } : {}),
  };
  const answer = await api.csv(`/api/v1/${values.family}/history`, { query });
  if (answer.kind === 'error') throw new MarketDataApiError(answer.error);
  if (answer.kind !== 'ok') throw new Error(`unexpected answer ${answer.response.status}`);
  writeFileSync(values.out!, answer.text);
  process.stdout.write(`${values.out}: ${answer.text.split('\r\n').length - 2} points\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
