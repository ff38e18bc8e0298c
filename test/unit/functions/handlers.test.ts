/**
 * Handlers with a mocked DynamoDB: which reads each request makes (index, key condition, bounds),
 * how the page is shaped from what comes back, and how quota outcomes shape the answer.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { resetRuntime } from '../../../shared/local/reset';
import { setLogSink } from '../../../shared/logger';
import type { ApiEvent, ApiResult } from '../../../shared/http';
import { apiEvent } from '../../helpers/embedded';

/** Call a handler directly. The documents here are minimal fakes, so no contract check. */
async function invoke(handler: (event: ApiEvent, context: never) => Promise<ApiResult>, event: ApiEvent) {
  const result = await handler(event, {} as never);
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  return { status: result.statusCode, headers, raw: result.body, body: result.body ? JSON.parse(result.body) : undefined };
}

const ddb = mockClient(DynamoDBDocumentClient);

let platforms: typeof import('../../../functions/platforms/handler');
let offers: typeof import('../../../functions/offers/handler');

beforeAll(async () => {
  process.env.TABLE_NAME = 'unit-table';
  process.env.SNAPSHOT_CACHE_MS = '0';
  platforms = await import('../../../functions/platforms/handler');
  offers = await import('../../../functions/offers/handler');
});

beforeEach(() => {
  ddb.reset();
  resetRuntime();
  ddb.on(GetCommand, { Key: { PK: 'SNAPSHOT', SK: 'CURRENT' } }).resolves({ Item: { version: 'v9' } });
  ddb.on(UpdateCommand).resolves({ Attributes: { count: 1 } });
});

const doc = (slug: string) => JSON.stringify({ type: 'exchange', slug, name: slug.toUpperCase() });

describe('platform list', () => {
  it('reads one position range on GSI1 and the view size, whatever the offset', async () => {
    ddb.on(GetCommand, { Key: { PK: 'V#v9#LIST#exchanges', SK: 'META' } }).resolves({ Item: { n: 9000 } });
    ddb.on(QueryCommand).resolves({ Items: [{ doc: doc('a'), GSI1SK: 5000 }, { doc: doc('b'), GSI1SK: 5001 }] });

    const res = await invoke(platforms.handler, apiEvent('/api/v1/exchanges?limit=2&offset=5000'));

    const query = ddb.commandCalls(QueryCommand)[0].args[0].input;
    expect(query).toMatchObject({
      IndexName: 'GSI1',
      KeyConditionExpression: '#view = :view AND #pos BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':view': 'V#v9#LIST#exchanges', ':from': 5000, ':to': 5001 },
    });
    expect(ddb.commandCalls(QueryCommand)).toHaveLength(1);
    expect(res.status).toBe(200);
    expect(res.raw).toBe(`{"data":[${doc('a')},${doc('b')}],"pagination":{"total":9000,"offset":5000,"limit":2,"has_more":true}}`);
  });

  it('answers 404 for an unknown slug and 301 for an alias', async () => {
    ddb.on(GetCommand, { Key: { PK: 'V#v9#EXCHANGES#old', SK: 'ITEM' } }).resolves({ Item: { redirectTo: 'new' } });
    ddb.on(GetCommand, { Key: { PK: 'V#v9#EXCHANGES#nope', SK: 'ITEM' } }).resolves({});

    const moved = await invoke(platforms.handler, apiEvent('/api/v1/exchanges/old'));
    const missing = await invoke(platforms.handler, apiEvent('/api/v1/exchanges/nope'));

    expect(moved.status).toBe(301);
    expect(moved.headers.location).toBe('/api/v1/exchanges/new');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });
});

describe('offer list with min_apy', () => {
  it('bounds apy_desc pages by k = n - (apy_asc position of the first offer at or above min_apy)', async () => {
    ddb.on(GetCommand, { Key: { PK: 'V#v9#LIST#earn', SK: 'META' } }).resolves({ Item: { n: 10 } });
    ddb.on(QueryCommand, { IndexName: 'GSI5' }).resolves({ Items: [{ GSI2SK: 7 }] }); // k = 3
    ddb.on(QueryCommand, { IndexName: 'GSI1' }).resolves({
      Items: [0, 1, 2, 3, 4].map((p) => ({ doc: `{"id":${p}}`, GSI1SK: p })),
    });

    const res = await invoke(offers.handler, apiEvent('/api/v1/earn?min_apy=4.5&limit=5'));

    const bound = ddb.commandCalls(QueryCommand).find((c) => c.args[0].input.IndexName === 'GSI5')!.args[0].input;
    expect(bound).toMatchObject({ Limit: 1, KeyConditionExpression: '#view = :view AND #apy >= :apy' });
    expect(res.body.data.map((o: { id: number }) => o.id)).toEqual([0, 1, 2]);
    expect(res.body.pagination).toEqual({ total: 3, offset: 0, limit: 5, has_more: false });
  });

  it('starts apy_asc pages at the first matching position', async () => {
    ddb.on(GetCommand, { Key: { PK: 'V#v9#LIST#borrow', SK: 'META' } }).resolves({ Item: { n: 10 } });
    ddb.on(QueryCommand, { IndexName: 'GSI5' }).resolves({ Items: [{ GSI2SK: 6 }] });
    ddb.on(QueryCommand, { IndexName: 'GSI2' }).resolves({ Items: [{ doc: '{"id":7}', GSI2SK: 7 }] });

    const res = await invoke(offers.handler, apiEvent('/api/v1/borrow?min_apy=1&offset=1&limit=2'));

    const page = ddb.commandCalls(QueryCommand).find((c) => c.args[0].input.IndexName === 'GSI2')!.args[0].input;
    expect(page.ExpressionAttributeValues).toMatchObject({ ':from': 7, ':to': 8 });
    expect(res.body.pagination).toEqual({ total: 4, offset: 1, limit: 2, has_more: true });
  });
});

describe('quota outcomes', () => {
  const refuse = () => {
    throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
  };

  it('refuses per minute, gives the monthly unit back, and hides the data read', async () => {
    ddb.on(GetCommand).resolves({ Item: { doc: doc('a') } });
    ddb.on(UpdateCommand, { Key: { PK: 'QUOTA#k1#MIN#' + minute(), SK: 'COUNT' } }).callsFake(refuse);
    ddb.on(UpdateCommand, { UpdateExpression: 'ADD #count :minus' }).resolves({ Attributes: { count: 4 } });
    ddb.on(UpdateCommand, { UpdateExpression: 'ADD #count :one SET #ttl = if_not_exists(#ttl, :ttl)', Key: { PK: 'QUOTA#k1#MON#' + minute().slice(0, 6), SK: 'COUNT' } }).resolves({ Attributes: { count: 5 } });

    const res = await invoke(platforms.handler, apiEvent('/api/v1/exchanges/a', { keyId: 'k1', perMinute: 3, perMonth: 10 }));

    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limit_exceeded');
    expect(res.headers).toMatchObject({ 'x-ratelimit-remaining': '0', 'x-quota-remaining': '6' });
    expect(ddb.commandCalls(UpdateCommand).filter((c) => c.args[0].input.UpdateExpression === 'ADD #count :minus')).toHaveLength(1);
  });

  it('fails closed with 503 when the counters cannot be reached, even if the data read worked', async () => {
    ddb.on(GetCommand).resolves({ Item: { doc: doc('a') } });
    ddb.on(UpdateCommand).rejects(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }));

    const res = await invoke(platforms.handler, apiEvent('/api/v1/exchanges/a'));

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

    await invoke(platforms.handler, event);
    setLogSink((line) => process.stdout.write(`${line}\n`));

    const failure = lines.map((line) => JSON.parse(line)).find((entry) => entry.message === 'quota charge failed');
    expect(failure).toMatchObject({ level: 'error', keyId: 'k-logged', requestId: event.requestContext.requestId, route: '/api/v1/exchanges/{slug}' });
  });

  it('answers 401 without charging when the authorizer context is missing', async () => {
    const res = await invoke(platforms.handler, apiEvent('/api/v1/exchanges', { keyId: null }));
    expect(res.status).toBe(401);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});

function minute(): string {
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}`;
}
