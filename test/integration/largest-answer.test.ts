/**
 * The largest answer (docs/performance.md, "The largest answer"): a currency detail embeds every
 * offer of its asset, and a Lambda response is at most 6 MB. A generated asset with as many offers
 * as BENCH's busiest (tether: 3,477 offers, 2.3 MB of JSON), served by the real currencies handler
 * on the embedded DynamoDB to a client that accepts gzip, must leave room for four times that in
 * one buffered Lambda response (what the currencies function would answer were it not streamed:
 * ADR 0014), and the local gateway must serve it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createGateway, LAMBDA_RESPONSE_LIMIT_BYTES } from '../../local/gateway';
import { importDataset } from '../../shared/import/importer';
import { NOW } from '../fixtures/dataset';
import { oneBusyAsset } from '../helpers/busy-asset';
import { apiEvent, startTestTable, type TestTable } from '../helpers/embedded';

/** BENCH's busiest currency detail (docs/performance.md): tether, 2,284 earn, 1,059 borrow and 134 collateral offers. */
const BENCH_LARGEST_BYTES = 2_300_000;
const BENCH_LARGEST_OFFERS = 3_477;

let table: TestTable;
let gateway: Server;
let url: string;
// QUICK_BENCH's 3,000 offers on one asset and 1,000 more earn offers: past BENCH's count once the
// unpublished ones are left out.
const dataset = oneBusyAsset(1_000);

beforeAll(async () => {
  table = await startTestTable();
  await importDataset(dataset, { client: table.client, tableName: table.tableName, now: () => NOW });
  // The real handlers behind the local gateway; an authorizer that lets the key through.
  gateway = createGateway({
    handlers: table.api({ clock: () => NOW }),
    authorizer: async () => ({
      principalId: 'k',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }],
      },
      context: { keyId: 'k-largest', perMinute: 1000 },
    }),
    clock: () => NOW,
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
  return table.api({ clock: () => NOW }).currencies(event, {} as never);
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
