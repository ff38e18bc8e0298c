/**
 * A client of the market-data API: fetches a whole list page by page (following
 * `pagination.has_more`), waits `Retry-After` seconds whenever it is told to (429, 503), and
 * prints the records as a table.
 *
 * Usage:
 *   npx tsx examples/list-all.ts --url http://127.0.0.1:3000 --key KEY --resource exchanges
 *   npx tsx examples/list-all.ts --url http://127.0.0.1:3000 --key KEY --resource earn --page-size 100
 *
 * --resource is one of exchanges, wallets, protocols, currencies, earn, borrow, collateral.
 * The key may come from MARKET_DATA_API_KEY instead of --key. The API is described at
 * <url>/openapi.json and <url>/docs.
 */
import { parseArgs } from 'node:util';

const RESOURCES = ['exchanges', 'wallets', 'protocols', 'currencies', 'earn', 'borrow', 'collateral'] as const;
type Resource = (typeof RESOURCES)[number];
type Row = Record<string, unknown>;

interface ListPage {
  data: Row[];
  pagination: { total: number; offset: number; limit: number; has_more: boolean };
}

interface ErrorEnvelope {
  error: { code: string; message: string; details: Record<string, unknown> | null };
}

/** The columns printed for each resource: header → how to read it from a record. */
const COLUMNS: Record<Resource, Record<string, (row: any) => unknown>> = {
  exchanges: { slug: (r) => r.slug, name: (r) => r.name, 'weekly visits': (r) => r.stats?.weekly_visits, coins: (r) => r.stats?.num_coins },
  wallets: { slug: (r) => r.slug, name: (r) => r.name, type: (r) => r.stats?.wallet_type, security: (r) => r.stats?.security_rating },
  protocols: { slug: (r) => r.slug, name: (r) => r.name, category: (r) => r.stats?.category, 'tvl (USD)': (r) => r.stats?.tvl },
  currencies: { rank: (r) => r.stats?.rank_by_market_cap, symbol: (r) => r.symbol, name: (r) => r.name, 'price (USD)': (r) => r.stats?.usd_price },
  earn: { id: (r) => r.id, platform: (r) => r.platform?.name, asset: (r) => r.asset?.symbol, 'apy %': (r) => r.apy, 'tvl (USD)': (r) => r.tvl, available: (r) => r.available },
  borrow: { id: (r) => r.id, platform: (r) => r.platform?.name, asset: (r) => r.asset?.symbol, 'net apy %': (r) => r.net_borrow_apy, active: (r) => r.is_active },
  collateral: { id: (r) => r.id, platform: (r) => r.platform?.name, asset: (r) => r.asset?.symbol, 'initial ltv %': (r) => r.initial_ltv, active: (r) => r.is_active },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class ApiError extends Error {}

/** GET a JSON document, waiting and retrying as long as the API says `Retry-After`. */
async function getJson<T>(url: string, key: string, maxRetries: number): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/json', 'Accept-Encoding': 'gzip' } });
    const retryAfter = response.headers.get('Retry-After');
    if ((response.status === 429 || response.status === 503) && retryAfter !== null && attempt < maxRetries) {
      const seconds = Math.max(1, Number(retryAfter) || 1);
      const remaining = response.headers.get('X-RateLimit-Remaining');
      process.stderr.write(`${response.status}: waiting ${seconds} s as told by Retry-After (per-minute requests left: ${remaining ?? '?'})\n`);
      await sleep(seconds * 1000);
      continue;
    }
    const body = (await response.json()) as T | ErrorEnvelope;
    if (!response.ok) {
      const { error } = body as ErrorEnvelope;
      const details = error.details ? ` ${JSON.stringify(error.details)}` : '';
      throw new ApiError(`${response.status} ${error.code}: ${error.message}${details} (request ${response.headers.get('X-Request-Id')})`);
    }
    return body as T;
  }
}

/** Every record of a list, page after page, until `has_more` is false. */
async function listAll(baseUrl: string, resource: Resource, key: string, pageSize: number, maxRetries: number): Promise<Row[]> {
  const rows: Row[] = [];
  let offset = 0;
  for (;;) {
    const url = `${baseUrl.replace(/\/+$/, '')}/api/v1/${resource}?limit=${pageSize}&offset=${offset}`;
    const page = await getJson<ListPage>(url, key, maxRetries);
    rows.push(...page.data);
    if (!page.pagination.has_more || page.data.length === 0) return rows;
    offset += page.data.length;
  }
}

function table(rows: Row[], columns: Record<string, (row: Row) => unknown>): string {
  const headers = Object.keys(columns);
  const cells = rows.map((row) => headers.map((h) => {
    const value = columns[h](row);
    return value === null || value === undefined ? '-' : String(value);
  }));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
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
    },
  });
  const resource = values.resource as Resource;
  if (!RESOURCES.includes(resource)) throw new ApiError(`--resource must be one of ${RESOURCES.join(', ')}`);
  if (!values.key) throw new ApiError('an API key is needed: --key KEY or MARKET_DATA_API_KEY');
  const pageSize = Number(values['page-size']);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 200) throw new ApiError('--page-size must be 1 to 200');

  const rows = await listAll(values.url!, resource, values.key, pageSize, Number(values['max-retries']));
  process.stdout.write(`${table(rows, COLUMNS[resource])}\n\n${rows.length} ${resource}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
