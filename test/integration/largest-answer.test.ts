/**
 * The largest answer (docs/performance.md, "The largest answer"): a currency detail embeds every
 * offer of its asset, and a Lambda response is at most 6 MB. A generated asset with as many offers
 * as BENCH's busiest (tether: 3,477 offers, 2.3 MB of JSON), served by the real currencies handler
 * on the embedded DynamoDB to a client that accepts gzip, must leave room for four times that, and
 * the local gateway, which refuses what Lambda refuses, must serve it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createGateway, LAMBDA_RESPONSE_LIMIT_BYTES } from '../../local/gateway';
import { generateDataset, QUICK_BENCH } from '../../scripts/sample-data/generate';
import { importDataset } from '../../shared/import/importer';
import { apiEvent, startTestTable, type TestTable } from '../helpers/embedded';

/** BENCH's busiest currency detail (docs/performance.md): tether, 2,284 earn, 1,059 borrow and 134 collateral offers. */
const BENCH_LARGEST_BYTES = 2_300_000;
const BENCH_LARGEST_OFFERS = 3_477;

/**
 * QUICK_BENCH's 3,000 offers (2,000 earn, 500 borrow, 500 collateral), all moved onto one asset,
 * and more earn offers to pass BENCH's count once the unpublished ones are left out: the same
 * generator, records and shapes as BENCH's.
 */
function oneBusyAsset() {
  const dataset = generateDataset({
    ...QUICK_BENCH,
    historyOffers: 0,
    now: new Date('2026-11-20T00:00:00.000Z'),
  }) as unknown as Record<string, any[]>;
  const tether = dataset.currencies.find((c) => c.slug === 'tether');
  const asset = { slug: tether.slug, symbol: tether.symbol, name: tether.name };
  const moved = (offers: any[]) => offers.map((offer) => ({ ...offer, asset }));
  const earn = moved(dataset.earn_offers);
  const maxId = Math.max(
    ...['earn_offers', 'borrow_offers', 'collateral_offers'].flatMap((f) => dataset[f].map((o) => o.id)),
  );
  const extra = earn
    .slice(0, 1_000)
    .map((offer, i) => ({ ...offer, id: maxId + 1 + i, compositeKey: `${offer.compositeKey}:${i}` }));
  const { earn_history: _e, borrow_history: _b, ...rest } = dataset;
  return {
    ...rest,
    earn_offers: [...earn, ...extra],
    borrow_offers: moved(dataset.borrow_offers),
    collateral_offers: moved(dataset.collateral_offers),
  };
}

let table: TestTable;
let gateway: Server;
let url: string;
const dataset = oneBusyAsset();

beforeAll(async () => {
  table = await startTestTable();
  await importDataset(dataset, { client: table.client, tableName: table.tableName });
  // The real handlers behind the local gateway; an authorizer that lets the key through.
  gateway = createGateway({
    handlers: table.api(),
    authorizer: async () => ({
      principalId: 'k',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }],
      },
      context: { keyId: 'k-largest', perMinute: 1000 },
    }),
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await new Promise((resolve) => gateway?.close(resolve));
  await table?.close();
});

const detail = (acceptEncoding?: string) => {
  const event = apiEvent('/api/v1/currencies/tether', { perMinute: 1000 });
  if (acceptEncoding) {
    event.headers['accept-encoding'] = acceptEncoding;
    event.multiValueHeaders['accept-encoding'] = [acceptEncoding];
  }
  return table.api().currencies(event, {} as never);
};

it('compresses a detail of BENCH size to under a quarter of the Lambda limit: four times BENCH fits', async () => {
  const plain = await detail();
  const gzip = await detail('gzip, deflate, br');

  const identity = Buffer.byteLength(plain.body);
  const offers = JSON.parse(plain.body);
  expect(
    offers.earn_offers.length + offers.borrow_offers.length + offers.collateral_offers.length,
  ).toBeGreaterThanOrEqual(BENCH_LARGEST_OFFERS);
  // At least as large as BENCH's busiest detail.
  expect(identity).toBeGreaterThanOrEqual(BENCH_LARGEST_BYTES);

  expect(gzip.isBase64Encoded).toBe(true);
  expect(gzip.headers).toMatchObject({ 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
  const compressed = Buffer.from(gzip.body, 'base64');
  expect(gunzipSync(compressed).toString('utf8')).toBe(plain.body);
  const ratio = identity / compressed.length;
  expect(ratio).toBeGreaterThan(5);

  // What Lambda counts: the whole result as JSON. Four details of this size in one answer still fit.
  const payload = Buffer.byteLength(JSON.stringify(gzip));
  expect(4 * payload).toBeLessThan(LAMBDA_RESPONSE_LIMIT_BYTES);
  // Uncompressed, the same detail takes more than a third of the limit (quotes escaped in the JSON).
  expect(3 * Buffer.byteLength(JSON.stringify(plain))).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT_BYTES * 1.05);
});

it('is served through the local gateway, which enforces the limit, to a client that accepts gzip', async () => {
  const res = await fetch(`${url}/api/v1/currencies/tether`, {
    headers: { Authorization: `Bearer ${'k'.repeat(40)}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-encoding')).toBe('gzip');
  expect(res.headers.get('etag')).toMatch(/-gzip"$/);
  const body = (await res.json()) as { earn_offers: unknown[] };
  expect(body.earn_offers.length).toBeGreaterThan(2_000);
});
