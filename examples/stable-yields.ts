/**
 * The five most stable stablecoin yields above 4 % over 30 days (docs/api.md, "APY figures"), on
 * the repository's typed client (client/index.ts): one request, sorted and filtered on the server
 * by the offers' 30-day figures, each offer with its `apy_stats`.
 *
 * Usage:
 *   npx tsx examples/stable-yields.ts --url http://127.0.0.1:3000 --key KEY
 *
 * The key may come from MARKET_DATA_API_KEY instead of --key.
 */
import { parseArgs } from 'node:util';
import { createMarketDataClient, MarketDataApiError } from '../client';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:3000' },
      key: { type: 'string', default: process.env.MARKET_DATA_API_KEY },
    },
  });
  if (!values.key) throw new Error('an API key is needed: --key KEY or MARKET_DATA_API_KEY');
  const api = createMarketDataClient({ baseUrl: values.url!, apiKey: values.key });

  const answer = await api.get('/api/v1/earn', {
    query: {
      asset: ['tether', 'usd-coin', 'dai'],
      min_apy_mean_30d: '4',
      sort: 'apy_stddev_30d_asc',
      limit: 5,
      include: ['apy_stats'],
    },
  });
  if (answer.kind === 'error') throw new MarketDataApiError(answer.error);
  if (answer.kind !== 'ok') throw new Error(`unexpected answer ${answer.response.status}`);
  for (const offer of answer.data.data) {
    const stats = offer.apy_stats;
    process.stdout.write(
      `${offer.id}\t${offer.platform?.name ?? '?'}\t${offer.asset?.symbol ?? '?'}\tmean ${stats?.mean_30d}%\t± ${stats?.stddev_30d}\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
