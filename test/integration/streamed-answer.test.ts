/**
 * No answer fails for its size (issue 31, ADR 0014): a currency detail of more than Lambda's 6 MB,
 * through the local stack (the sources, or with LOCAL_BUNDLES the synthesized bundles), is streamed
 * whole to a client with or without `Accept-Encoding: gzip`, with the status and headers the
 * middleware chain settled (ETag, conditional requests, usage) and errors still JSON envelopes.
 * A buffered answer of that size is refused (the local gateway test shows it on a buffered route).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../local/gateway';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { NOW } from '../fixtures/dataset';
import { bundlesUnderTest, clockUnderTest } from '../helpers/bundles';
import { BUSY_ASSET, oneBusyAsset } from '../helpers/busy-asset';
import { get } from '../helpers/client';

const accounts = JSON.parse(readFileSync(join(__dirname, '../../data/demo-accounts.json'), 'utf8'));
const DEMO = accounts.users
  .find((u: { id: string }) => u.id === 'demo')
  .keys.find((k: { revoked?: boolean }) => !k.revoked).key as string;
const DETAIL = `/api/v1/currencies/${BUSY_ASSET}`;

let stack: LocalStack;
beforeAll(async () => {
  // QUICK_BENCH's 3,000 offers on one asset and 8,000 more: over 10,000 served, over 6 MB of JSON.
  stack = await startLocalStack({
    dataset: oneBusyAsset(8_000),
    accounts,
    bundles: bundlesUnderTest(),
    clock: clockUnderTest(NOW),
  });
}, 600_000);
afterAll(() => stack?.close());

const detail = (headers: Record<string, string> = {}) =>
  get(stack.url, DETAIL, { key: DEMO, headers: { 'Accept-Encoding': 'identity', ...headers } });

it('streams a detail of more than 6 MB whole to a client that does not accept gzip', async () => {
  const res = await detail();

  expect(res.status).toBe(200);
  expect(res.headers['content-encoding']).toBeUndefined();
  // Streamed: sent as it comes, no length announced.
  expect(res.headers['transfer-encoding']).toBe('chunked');
  expect(res.headers['content-length']).toBeUndefined();
  expect(Buffer.byteLength(res.raw)).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT_BYTES);
  const served = res.body.earn_offers.length + res.body.borrow_offers.length + res.body.collateral_offers.length;
  expect(served).toBeGreaterThan(10_000);
  // The headers the chain set before the body left: the validator and the caller's usage.
  expect(res.headers.etag).toMatch(/^"[^"]+"$/);
  expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
}, 120_000);

it('streams the same detail gzip-coded, compressed by the function, to a client that accepts gzip', async () => {
  const plain = await detail();
  const coded = await detail({ 'Accept-Encoding': 'gzip' });

  expect(coded.status).toBe(200);
  expect(coded.headers['content-encoding']).toBe('gzip');
  expect(coded.headers.vary).toMatch(/Accept-Encoding/);
  expect(coded.headers.etag).toMatch(/-gzip"$/);
  // The client decoded it (test/helpers/client.ts): the same representation, byte for byte.
  expect(coded.raw).toBe(plain.raw);
}, 120_000);

it('answers a conditional request for the streamed detail 304, without a body', async () => {
  const first = await detail();
  const again = await detail({ 'If-None-Match': first.headers.etag });

  expect(again.status).toBe(304);
  expect(again.raw).toBe('');
  expect(again.headers.etag).toBe(first.headers.etag);
}, 120_000);

it('streams an error of a streamed route as its JSON envelope, with its status', async () => {
  const res = await get(stack.url, '/api/v1/currencies/no-such-currency', { key: DEMO });

  expect(res.status).toBe(404);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.error).toMatchObject({ code: 'not_found' });
});
