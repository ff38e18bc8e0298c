/**
 * A client of the market-data API on the repository's typed client (client/index.ts): fetches a
 * whole list page by page (`pages()` follows the `Link` header, every page of one data version
 * even when the data is refreshed meanwhile), waits `Retry-After` seconds whenever it is told to
 * (429, 503; within `--max-retries`), and prints the records as a table.
 *
 * Usage:
 *   npx tsx examples/list-all.ts --url http://127.0.0.1:3000 --key KEY --resource exchanges
 *   npx tsx examples/list-all.ts --url http://127.0.0.1:3000 --key KEY --resource earn --page-size 100
 *   npx tsx examples/list-all.ts --key KEY --resource earn --filter asset=tether,usd-coin --filter chain=arbitrum --filter min_tvl=1e6
 *
 * --resource is one of exchanges, wallets, protocols, currencies, earn, borrow, collateral.
 * The key may come from MARKET_DATA_API_KEY instead of --key. The API is described at
 * <url>/openapi.json and <url>/docs.
 */
import { parseArgs } from 'node:util';
import { createMarketDataClient, type ListPath } from '../client';

const RESOURCES = ['exchanges', 'wallets', 'protocols', 'currencies', 'earn', 'borrow', 'collateral'] as const;
type Resource = (typeof RESOURCES)[number];
type Row = Record<string, unknown>;

/** The list operation of each resource (a typo here is a compile error). */
const LIST_PATH: Record<Resource, ListPath> = {
  exchanges: '/api/v1/exchanges',
  wallets: '/api/v1/wallets',
  protocols: '/api/v1/protocols',
  currencies: '/api/v1/currencies',
  earn: '/api/v1/earn',
  borrow: '/api/v1/borrow',
  collateral: '/api/v1/collateral',
};

/** The filters that take a list of values (docs/api.md, "Filters"). */
const LIST_FILTERS = new Set(['asset', 'platform', 'chain', 'platform_type', 'ids']);

/** The columns printed for each resource: header → how to read it from a record. */
const COLUMNS: Record<Resource, Record<string, (row: any) => unknown>> = {
  exchanges: {
    slug: (r) => r.slug,
    name: (r) => r.name,
    'weekly visits': (r) => r.stats?.weekly_visits,
    coins: (r) => r.stats?.num_coins,
  },
  wallets: {
    slug: (r) => r.slug,
    name: (r) => r.name,
    type: (r) => r.stats?.wallet_type,
    security: (r) => r.stats?.security_rating,
  },
  protocols: {
    slug: (r) => r.slug,
    name: (r) => r.name,
    category: (r) => r.stats?.category,
    'tvl (USD)': (r) => r.stats?.tvl,
  },
  currencies: {
    rank: (r) => r.stats?.rank_by_market_cap,
    symbol: (r) => r.symbol,
    name: (r) => r.name,
    'price (USD)': (r) => r.stats?.usd_price,
  },
  earn: {
    id: (r) => r.id,
    platform: (r) => r.platform?.name,
    asset: (r) => r.asset?.symbol,
    'apy %': (r) => r.apy,
    'tvl (USD)': (r) => r.tvl,
    available: (r) => r.available,
  },
  borrow: {
    id: (r) => r.id,
    platform: (r) => r.platform?.name,
    asset: (r) => r.asset?.symbol,
    'net apy %': (r) => r.net_borrow_apy,
    active: (r) => r.is_active,
  },
  collateral: {
    id: (r) => r.id,
    platform: (r) => r.platform?.name,
    asset: (r) => r.asset?.symbol,
    'initial ltv %': (r) => r.initial_ltv,
    active: (r) => r.is_active,
  },
};

function table(rows: Row[], columns: Record<string, (row: Row) => unknown>): string {
  const headers = Object.keys(columns);
  const cells = rows.map((row) =>
    headers.map((h) => {
      const value = columns[h](row);
      return value === null || value === undefined ? '-' : String(value);
    }),
  );
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:3000' },
      key: { type: 'string', default: process.env.MARKET_DATA_API_KEY },
      resource: { type: 'string', default: 'exchanges' },
      'page-size': { type: 'string', default: '200' },
      'max-retries': { type: 'string', default: '5' },
      // Offer filters as the API takes them: NAME=VALUE, a list as comma-separated values.
      filter: { type: 'string', multiple: true, default: [] },
    },
  });
  const resource = values.resource as Resource;
  if (!RESOURCES.includes(resource)) throw new Error(`--resource must be one of ${RESOURCES.join(', ')}`);
  if (!values.key) throw new Error('an API key is needed: --key KEY or MARKET_DATA_API_KEY');
  const pageSize = Number(values['page-size']);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 200) throw new Error('--page-size must be 1 to 200');

  const api = createMarketDataClient({
    baseUrl: values.url!,
    apiKey: values.key,
    maxRetries: Number(values['max-retries']),
    sleep: (ms) => {
      process.stderr.write(`waiting ${ms / 1000} s as told by Retry-After\n`);
      return new Promise((resolve) => setTimeout(resolve, ms));
    },
  });
  const filters = Object.fromEntries(
    (values.filter ?? []).map((text) => {
      const [name, value = ''] = text.split(/=(.*)/s);
      return [name, LIST_FILTERS.has(name) ? value.split(',') : value];
    }),
  );
  const rows: Row[] = [];
  // An error answer throws a MarketDataApiError: "<status> <code>: <message> (request <id>)".
  const pages = api.pages(LIST_PATH[resource], { query: { ...filters, limit: pageSize } as never });
  for await (const row of pages) rows.push(row as Row);
  process.stdout.write(
    `${table(rows, COLUMNS[resource])}\n\n${rows.length} ${resource} (data version ${pages.snapshot})\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
