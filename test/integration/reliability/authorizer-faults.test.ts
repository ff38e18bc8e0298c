/**
 * Fault injection in the TOKEN authorizer (docs/security.md): when DynamoDB throttles, times out,
 * fails or resets the connection, the authorizer throws something other than 'Unauthorized', which
 * API Gateway (and the local gateway) turn into AUTHORIZER_FAILURE: a 503 service_unavailable
 * envelope with Retry-After. Authentication fails closed: a failure is never an Allow, and a
 * malformed key or user item never grants access. The key never reaches a log line.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DynamoDBClient,
  InternalServerError,
  ProvisionedThroughputExceededException,
  ThrottlingException,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { authorize, authorizerHandler } from '../../../functions/authorizer/authorizer';
import { createGateway, type FamilyHandler } from '../../../local/gateway';
import { hashKey, KeyStore } from '../../../shared/accounts/key-store';
import { apiKeyKey, KEY_PREFIX, USER_PREFIX, userKey } from '../../../shared/data/keys';
import { setLogSink } from '../../../shared/platform/logger';
import { get } from '../../helpers/client';

const ddb = mockClient(DynamoDBDocumentClient);

const TABLE = 'md-secret-table-auth-91c2';
const SENTINEL = 'SDK-INTERNAL-DETAIL-a7b2';
const KEY = 'rel_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const KEY_ID = 'k_00000000000000ff';
const METHOD_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/v1/exchanges';

const FAULTS: Record<string, () => Error> = {
  ProvisionedThroughputExceededException: () =>
    new ProvisionedThroughputExceededException({
      message: `${SENTINEL} ${TABLE}`,
      $metadata: { httpStatusCode: 400, attempts: 3 },
    }),
  ThrottlingException: () =>
    new ThrottlingException({ message: `${SENTINEL} ${TABLE}`, $metadata: { httpStatusCode: 400, attempts: 3 } }),
  TimeoutError: () =>
    Object.assign(new Error(`${SENTINEL} request to ${TABLE} timed out`), { name: 'TimeoutError', code: 'ETIMEDOUT' }),
  InternalServerError: () =>
    new InternalServerError({ message: `${SENTINEL} ${TABLE}`, $metadata: { httpStatusCode: 500, attempts: 3 } }),
  ECONNRESET: () => Object.assign(new Error(`${SENTINEL} read ECONNRESET`), { code: 'ECONNRESET', syscall: 'read' }),
};
const FAULT_NAMES = Object.keys(FAULTS);

const keyItem = (extra: Record<string, unknown> = {}) => ({
  ...apiKeyKey(hashKey(KEY, '')),
  keyId: KEY_ID,
  userId: 'u1',
  revoked: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const userItem = (extra: Record<string, unknown> = {}) => ({
  ...userKey('u1'),
  userId: 'u1',
  premium: true,
  premiumUntil: null,
  ...extra,
});

/** What the key and user reads answer or throw. */
let keyRead: () => Promise<{ Item?: Record<string, unknown> }>;
let userRead: () => Promise<{ Item?: Record<string, unknown> }>;

const event = (token: string | undefined = `Bearer ${KEY}`): APIGatewayTokenAuthorizerEvent =>
  ({ type: 'TOKEN', authorizationToken: token, methodArn: METHOD_ARN }) as APIGatewayTokenAuthorizerEvent;

const NOW = new Date('2026-11-20T10:00:00.000Z');
const store = () =>
  new KeyStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), TABLE, '', () => NOW);
const run = (token?: string) => authorize(event(token), { store: store(), clock: () => NOW });

/** The outcome as one of Allow / Deny / Unauthorized / failure (any other throw). */
async function outcome(
  result: Promise<APIGatewayAuthorizerResult>,
): Promise<{ kind: string; error?: Error; result?: APIGatewayAuthorizerResult }> {
  try {
    const value = await result;
    return {
      kind: value.policyDocument.Statement.map((s) => (s as { Effect: string }).Effect).join(','),
      result: value,
    };
  } catch (error) {
    return { kind: (error as Error).message === 'Unauthorized' ? 'Unauthorized' : 'failure', error: error as Error };
  }
}

let logLines: string[];

beforeEach(() => {
  ddb.reset();
  keyRead = async () => ({ Item: keyItem() });
  userRead = async () => ({ Item: userItem() });
  ddb.on(GetCommand).callsFake(async (input: { Key: { PK: string } }) => {
    if (input.Key.PK.startsWith(KEY_PREFIX)) return input.Key.PK === apiKeyKey(hashKey(KEY, '')).PK ? keyRead() : {};
    if (input.Key.PK.startsWith(USER_PREFIX)) return input.Key.PK === userKey('u1').PK ? userRead() : {};
    return {};
  });
  logLines = [];
  setLogSink((line) => logLines.push(line));
});

afterEach(() => {
  // Whatever happened, the key and the Authorization value were never logged.
  const logs = logLines.join('\n');
  expect(logs).not.toContain(KEY);
  expect(logs).not.toMatch(/bearer/i);
});

afterAll(() => {
  setLogSink(() => undefined);
  ddb.restore();
});

describe('the authorizer on a healthy table (baseline)', () => {
  it('allows the premium key and refuses an unknown one', async () => {
    expect((await outcome(run())).kind).toBe('Allow');
    expect((await outcome(run(`Bearer ${'x'.repeat(40)}`))).kind).toBe('Unauthorized');
  });
});

describe('DynamoDB failures: the authorizer fails closed with a non-Unauthorized error', () => {
  it.each(FAULT_NAMES)('key lookup fails with %s', async (fault) => {
    keyRead = async () => {
      throw FAULTS[fault]();
    };
    const { kind, error } = await outcome(run());
    expect(kind).toBe('failure');
    expect(error!.message).not.toContain(SENTINEL);
    expect(error!.message).not.toContain(KEY);
  });

  it.each(FAULT_NAMES)('user lookup fails with %s (after the key was found)', async (fault) => {
    userRead = async () => {
      throw FAULTS[fault]();
    };
    const { kind } = await outcome(run());
    expect(kind).toBe('failure');
  });

  it.each(FAULT_NAMES)('the Lambda handler fails with %s', async (fault) => {
    keyRead = async () => {
      throw FAULTS[fault]();
    };
    const { kind } = await outcome(authorizerHandler({ store: store(), clock: () => NOW })(event()));
    expect(kind).toBe('failure');
    expect(ddb.commandCalls(GetCommand).length).toBeGreaterThan(0);
  });

  it('logs the failure without the SDK stack', async () => {
    keyRead = async () => {
      throw FAULTS.InternalServerError();
    };
    await outcome(run());
    const line = logLines.find((l) => /authorizer: failure/.test(l));
    expect(line).toBeDefined();
    expect(line).not.toMatch(/\bat .+:\d+:\d+/);
  });
});

describe('malformed key and user items never grant access', () => {
  it.each<[string, () => Promise<{ Item?: Record<string, unknown> }>]>([
    ['a key item whose `revoked` is the string "true"', async () => ({ Item: keyItem({ revoked: 'true' }) })],
    ['a key item whose `revoked` is the number 1', async () => ({ Item: keyItem({ revoked: 1 }) })],
    [
      'a key item without `userId` or `keyId`',
      async () => ({ Item: { ...apiKeyKey(hashKey(KEY, '')), revoked: false } }),
    ],
  ])('%s', async (_, read) => {
    keyRead = read;
    const { kind } = await outcome(run());
    expect(kind).not.toBe('Allow');
  });

  it.each<[string, Record<string, unknown>]>([
    ['`premium` is the string "true"', { premium: 'true' }],
    ['`premium` is missing', { premium: undefined }],
    ['`premiumUntil` is not a date', { premiumUntil: 'soon' }],
    ['`premiumUntil` is a number', { premiumUntil: 1 }],
  ])('a user item where %s', async (_, extra) => {
    userRead = async () => ({ Item: userItem(extra) });
    const { kind } = await outcome(run());
    expect(kind).not.toBe('Allow');
  });
});

describe('through the gateway: a failing authorizer is a 503 envelope and the function is never invoked', () => {
  let server: Server;
  let url: string;
  let invoked: number;

  beforeAll(async () => {
    const family: FamilyHandler = async () => {
      invoked++;
      return {
        statusCode: 200,
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'X-Request-Id': 'req-1',
          'X-RateLimit-Limit': '60',
          'X-RateLimit-Remaining': '59',
          'X-RateLimit-Reset': '1795323420',
          'X-Quota-Limit': '100000',
          'X-Quota-Remaining': '99999',
          'X-Quota-Reset': '1796083200',
          'RateLimit-Policy': '"minute";q=60;w=60, "month";q=100000',
          RateLimit: '"minute";r=59;t=30, "month";r=99999;t=760000',
          ETag: '"j-MuQHoQOO44dTtw5TdLOg"',
          'Cache-Control': 'private, no-cache',
          'Last-Modified': 'Thu, 01 Jan 1970 00:00:00 GMT',
        },
        body: '{"data":[],"pagination":{"total":0,"offset":0,"limit":50,"has_more":false,"snapshot":"none"}}',
      };
    };
    server = createGateway({
      handlers: {
        platforms: family,
        currencies: family,
        offers: family,
        history: family,
        search: family,
        usage: family,
        webhooks: family,
        mcp: family,
      },
      authorizer: (e) => authorizerHandler({ store: store(), clock: () => NOW })(e),
      clock: () => NOW,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    invoked = 0;
  });

  it.each(FAULT_NAMES)('GET /api/v1/exchanges when the key lookup fails with %s', async (fault) => {
    keyRead = async () => {
      throw FAULTS[fault]();
    };
    const res = await get(url, '/api/v1/exchanges', { key: KEY });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: { code: 'service_unavailable', message: expect.any(String), details: null } });
    expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expect(res.raw).not.toContain(SENTINEL);
    expect(res.raw).not.toContain(TABLE);
    expect(invoked).toBe(0);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['a key id of 5 KB', { keyId: `k_${'0'.repeat(5000)}` }, {}],
    ['a key id with CR/LF', { keyId: `${KEY_ID}\r\nX-Injected: 1` }, {}],
    ['a user whose premiumUntil is "9999"', {}, { premiumUntil: '9999' }],
  ])('GET /api/v1/exchanges with %s (no writer writes one): 503, never a 200 or a 500', async (_, key, user) => {
    keyRead = async () => ({ Item: keyItem(key) });
    userRead = async () => ({ Item: userItem(user) });
    const res = await get(url, '/api/v1/exchanges', { key: KEY });
    expect([res.status, res.body?.error?.code]).toEqual([503, 'service_unavailable']);
    expect(res.headers['x-injected']).toBeUndefined();
    expect(invoked).toBe(0);
  });

  it('the same request passes once the table is healthy again (nothing cached from the failure)', async () => {
    keyRead = async () => {
      throw FAULTS.TimeoutError();
    };
    expect((await get(url, '/api/v1/exchanges', { key: KEY })).status).toBe(503);
    keyRead = async () => ({ Item: keyItem() });
    const res = await get(url, '/api/v1/exchanges', { key: KEY });
    expect(res.status).toBe(200);
    expect(invoked).toBe(1);
  });
});
