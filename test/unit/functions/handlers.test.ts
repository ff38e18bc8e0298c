/**
 * Handlers built by their factories with a mocked DynamoDB and a fixed clock: which reads each
 * request makes (index, positions), how the page is shaped from what comes back, and how quota
 * outcomes shape the answer.
 */
import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { offersHandler } from '../../../functions/offers/offers-handler';
import { platformsHandler } from '../../../functions/platforms/platforms-handler';
import { apiEvent } from '../../../local/events';
import { createApiDeps } from '../../../shared/api-deps';
import { readConfig } from '../../../shared/config';
import { decimalSortKey } from '../../../shared/decimal';
import type { ApiEvent, ApiResult } from '../../../shared/http';
import { catalogKey, pointerKey, QUOTA_ATTRIBUTES, quotaKey, viewMetaKey, viewPartition } from '../../../shared/keys';
import { setLogSink } from '../../../shared/logger';

/** Call a handler directly. The documents here are minimal fakes, so no contract check. */
async function invoke(handler: (event: ApiEvent, context: never) => Promise<ApiResult>, event: ApiEvent) {
  const result = await handler(event, {} as never);
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  return { status: result.statusCode, headers, raw: result.body, body: result.body ? JSON.parse(result.body) : undefined };
}

const ddb = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2026-11-20T10:00:10.000Z');
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const deps = createApiDeps(readConfig({ TABLE_NAME: 'unit-table', SNAPSHOT_CACHE_MS: '0', READ_CACHE_MB: '0' }), { client, counterClient: client }, () => NOW);
const platforms = platformsHandler(deps);
const offers = offersHandler(deps);

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand, { Key: pointerKey() }).resolves({ Item: { families: { exchanges: { version: 'v9' }, earn_offers: { version: 'v9' }, borrow_offers: { version: 'v9' } } } });
  // The key's counter item after the charge: the first unit of the month and of the minute.
  ddb.on(UpdateCommand).resolves({ Attributes: { [QUOTA_ATTRIBUTES.monthCount]: 1, [QUOTA_ATTRIBUTES.minute]: 202611201000, [QUOTA_ATTRIBUTES.minuteCount]: 1 } });
});

/** The values a query was sent with, whatever its placeholders are called. */
const valuesOf = (input: { ExpressionAttributeValues?: Record<string, unknown> }) => Object.values(input.ExpressionAttributeValues ?? {});

const doc = (slug: string) => JSON.stringify({ type: 'exchange', slug, name: slug.toUpperCase() });

describe('platform list', () => {
  it('reads one position range on GSI1 and the view size, whatever the offset', async () => {
    ddb.on(GetCommand, { Key: viewMetaKey(viewPartition('v9', 'exchanges')) }).resolves({ Item: { n: 9000 } });
    ddb.on(QueryCommand).resolves({ Items: [{ doc: doc('a'), GSI1SK: 5000 }, { doc: doc('b'), GSI1SK: 5001 }] });

    const res = await invoke(platforms, apiEvent('/api/v1/exchanges?limit=2&offset=5000'));

    const query = ddb.commandCalls(QueryCommand)[0].args[0].input;
    expect(query.IndexName).toBe('GSI1');
    expect(valuesOf(query)).toEqual(expect.arrayContaining([viewPartition('v9', 'exchanges'), 5000, 5001]));
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(1);
    expect(res.status).toBe(200);
    expect(res.raw).toBe(`{"data":[${doc('a')},${doc('b')}],"pagination":{"total":9000,"offset":5000,"limit":2,"has_more":true}}`);
  });

  it('answers 404 for an unknown slug and 301 for an alias', async () => {
    ddb.on(GetCommand, { Key: catalogKey('v9', 'exchanges', 'old') }).resolves({ Item: { redirectTo: 'new' } });
    ddb.on(GetCommand, { Key: catalogKey('v9', 'exchanges', 'nope') }).resolves({});

    const moved = await invoke(platforms, apiEvent('/api/v1/exchanges/old'));
    const missing = await invoke(platforms, apiEvent('/api/v1/exchanges/nope'));

    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe('/api/v1/exchanges/new');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });
});

describe('offer list with min_apy', () => {
  it('bounds apy_desc pages by k = n - (apy_asc position of the first offer at or above min_apy)', async () => {
    ddb.on(GetCommand, { Key: viewMetaKey(viewPartition('v9', 'earn')) }).resolves({ Item: { n: 10 } });
    ddb.on(QueryCommand, { IndexName: 'GSI5' }).resolves({ Items: [{ GSI2SK: 7 }] }); // k = 3
    ddb.on(QueryCommand, { IndexName: 'GSI1' }).resolves({
      Items: [0, 1, 2, 3, 4].map((p) => ({ doc: `{"id":${p}}`, GSI1SK: p })),
    });

    const res = await invoke(offers, apiEvent('/api/v1/earn?min_apy=4.5&limit=5'));

    const bound = ddb.commandCalls(QueryCommand).find((c) => c.args[0].input.IndexName === 'GSI5')!.args[0].input;
    expect(bound.Limit).toBe(1);
    expect(valuesOf(bound)).toContain(viewPartition('v9', 'earn'));
    expect(res.body.data.map((o: { id: number }) => o.id)).toEqual([0, 1, 2]);
    expect(res.body.pagination).toEqual({ total: 3, offset: 0, limit: 5, has_more: false });
  });

  it.each([
    ['1e-7', '0.0000001'],
    ['1.5E+2', '150'],
    ['4.75e0', '4.75'],
  ])('bounds on the key of the exact decimal for min_apy=%s', async (minApy, decimal) => {
    ddb.on(GetCommand, { Key: viewMetaKey(viewPartition('v9', 'earn')) }).resolves({ Item: { n: 10 } });
    ddb.on(QueryCommand, { IndexName: 'GSI5' }).resolves({ Items: [] });
    ddb.on(QueryCommand, { IndexName: 'GSI1' }).resolves({ Items: [] });

    const res = await invoke(offers, apiEvent(`/api/v1/earn?min_apy=${encodeURIComponent(minApy)}`));

    const bound = ddb.commandCalls(QueryCommand).find((c) => c.args[0].input.IndexName === 'GSI5')!.args[0].input;
    expect(valuesOf(bound)).toContain(decimalSortKey(decimal));
    expect(res.status).toBe(200);
  });

  it('reads nothing for a min_apy past 32 characters', async () => {
    const res = await invoke(offers, apiEvent(`/api/v1/earn?min_apy=1e-${'0'.repeat(40)}1`));
    expect(res.status).toBe(400);
    expect(res.body.error.details.message).toEqual(['min_apy must not be longer than 32 characters']);
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('starts apy_asc pages at the first matching position', async () => {
    ddb.on(GetCommand, { Key: viewMetaKey(viewPartition('v9', 'borrow')) }).resolves({ Item: { n: 10 } });
    ddb.on(QueryCommand, { IndexName: 'GSI5' }).resolves({ Items: [{ GSI2SK: 6 }] });
    ddb.on(QueryCommand, { IndexName: 'GSI2' }).resolves({ Items: [{ doc: '{"id":7}', GSI2SK: 7 }] });

    const res = await invoke(offers, apiEvent('/api/v1/borrow?min_apy=1&offset=1&limit=2'));

    const page = ddb.commandCalls(QueryCommand).find((c) => c.args[0].input.IndexName === 'GSI2')!.args[0].input;
    expect(valuesOf(page)).toEqual(expect.arrayContaining([7, 8]));
    expect(res.body.pagination).toEqual({ total: 4, offset: 1, limit: 2, has_more: true });
  });
});

describe('quota outcomes', () => {
  it('refuses per minute from the item DynamoDB returns with the failed condition: one write, nothing given back, the data read hidden', async () => {
    ddb.on(GetCommand).resolves({ Item: { doc: doc('a') } });
    // The key's counter item: 3 of 3 this minute, 4 this month (the failed write's ALL_OLD item, in wire form).
    const item = { count: { N: '4' }, minute: { N: '202611201000' }, minuteCount: { N: '3' } };
    ddb.on(UpdateCommand, { Key: quotaKey('k1', '202611') }).rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {}, Item: item }));

    const res = await invoke(platforms, apiEvent('/api/v1/exchanges/a', { keyId: 'k1', perMinute: 3, perMonth: 10 }));

    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limit_exceeded');
    expect(res.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'x-quota-remaining': '6' });
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(1);
    expect(ddb.commandCalls(GetCommand, { Key: quotaKey('k1', '202611') })).toHaveLength(0);
  });

  it('fails closed with 503 when the counters cannot be reached, even if the data read worked', async () => {
    ddb.on(GetCommand).resolves({ Item: { doc: doc('a') } });
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }));

    const res = await invoke(platforms, apiEvent('/api/v1/exchanges/a'));

    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.headers['retry-after']).toBe('1');
    expect(res.raw).not.toMatch(/socket hang up|unit-table/);
  });

  it('logs the failure with the request id and key id, never the key', async () => {
    const lines: string[] = [];
    setLogSink((line) => lines.push(line));
    ddb.on(GetCommand).resolves({ Item: { doc: doc('a') } });
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }));
    const event = apiEvent('/api/v1/exchanges/a', { keyId: 'k-logged' });

    await invoke(platforms, event);
    setLogSink(() => undefined);

    const failure = lines.map((line) => JSON.parse(line)).find((entry) => entry.message === 'quota charge failed');
    expect(failure).toMatchObject({ level: 'error', keyId: 'k-logged', requestId: event.requestContext.requestId, route: '/api/v1/exchanges/{slug}' });
  });

  it('answers 401 without charging when the authorizer context is missing', async () => {
    const res = await invoke(platforms, apiEvent('/api/v1/exchanges', { keyId: null }));
    expect(res.status).toBe(401);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});
