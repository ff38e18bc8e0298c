/**
 * Every valid history request is answered whole (CONTRACT §12, ADR 0022): a batch of several
 * offers' history of more than Lambda's 6 MB, through the local stack (the sources, or with
 * LOCAL_BUNDLES the synthesized bundles), is streamed to a client that does not accept gzip, as
 * JSON and as CSV, and gzip-coded by the function to one that does. Its items are written straight
 * into the offers' series (tools/bench/dense-history.ts): 40,000 weekly buckets of 64-digit values (16 offers × 2,500 weeks).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { bucketStart, SERIES } from '../../shared/domain/buckets';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../shared/platform/constants';
import { writeDenseHistory } from '../../tools/bench/dense-history';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { bundlesUnderTest, clockUnderTest } from '../helpers/bundles';
import { get } from '../helpers/client';
import { earnRecord } from '../helpers/records';

const accounts = JSON.parse(readFileSync(join(__dirname, '../../data/demo-accounts.json'), 'utf8'));
const DEMO = accounts.users
  .find((u: { id: string }) => u.id === 'demo')
  .keys.find((k: { revoked?: boolean }) => !k.revoked).key as string;

const WEEKS = 2_500;
const fixture = fixtureDataset();
// The fixture's published earn offers and eight more: 16 ids × 2,500 weeks, within the 50,000-bucket rule.
const extra = Array.from({ length: 8 }, (_, i) => earnRecord(101 + i, '4.5'));
const dataset = { ...fixture, earn_offers: [...(fixture.earn_offers as unknown[]), ...extra] };
const ids = [
  ...(fixture.earn_offers as { id: number; published?: boolean }[])
    .filter((o) => o.published !== false)
    .map((o) => o.id),
  ...extra.map((o) => o.id as number),
];
// The window ends a week before the dataset's time: the same answer whatever the request time.
const to = bucketStart('1w', NOW.getTime()) - SERIES['1w'].bucketMs;
const from = to - (WEEKS - 1) * SERIES['1w'].bucketMs;
const PATH = `/api/v1/earn/history?ids=${ids.join(',')}&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&interval=1w`;

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    dataset,
    accounts,
    bundles: bundlesUnderTest(),
    clock: clockUnderTest(NOW),
    // The embedded DynamoDB serves the batch's Queries one after another, beside other suites: time enough.
    env: { DYNAMODB_REQUEST_TIMEOUT_MS: '120000' },
  });
  await writeDenseHistory(
    stack.clients.client,
    stack.tableName,
    { family: 'earn', ids, interval: '1w', from, to },
    undefined,
  );
}, 600_000);
afterAll(() => stack?.close());

const history = (headers: Record<string, string> = {}) =>
  get(stack.url, PATH, { key: DEMO, headers: { 'Accept-Encoding': 'identity', ...headers } });

it('streams a batch of more than 6 MB of JSON whole to a client that does not accept gzip', async () => {
  const res = await history();

  expect(res.status).toBe(200);
  expect(res.headers['content-encoding']).toBeUndefined();
  expect(res.headers['transfer-encoding']).toBe('chunked');
  expect(Buffer.byteLength(res.raw)).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT_BYTES);
  expect(res.body.data.map((entry: { id: number }) => entry.id)).toEqual(ids);
  for (const entry of res.body.data) {
    expect(entry.point_count).toBe(WEEKS);
    expect(entry.data[0].apy).toHaveLength(64);
  }
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
}, 120_000);

it('streams the same batch as CSV of more than 6 MB, one row per point', async () => {
  const res = await history({ Accept: 'text/csv' });

  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/csv/);
  expect(Buffer.byteLength(res.raw)).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT_BYTES);
  const rows = res.raw.trimEnd().split('\r\n');
  expect(rows).toHaveLength(1 + ids.length * WEEKS);
  expect(rows[1].split(',')[0]).toBe(String(ids[0]));
}, 120_000);

it('streams the batch gzip-coded by the function to a client that accepts gzip, the same representation', async () => {
  const plain = await history();
  const coded = await history({ 'Accept-Encoding': 'gzip' });

  expect(coded.status).toBe(200);
  expect(coded.headers['content-encoding']).toBe('gzip');
  expect(coded.raw).toBe(plain.raw);
}, 120_000);
