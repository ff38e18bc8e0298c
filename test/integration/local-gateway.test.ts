/**
 * The local gateway refuses what API Gateway refuses before any function runs: an Authorization
 * value outside the TOKEN authorizer's identity validation expression is a 401 with the Bearer
 * challenge, and the authorizer is never invoked for it.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { createGateway, type FamilyHandler } from '../../local/gateway';

const KEY = 'k'.repeat(40);
const REFUSED_KEY = 'r'.repeat(40);

let server: Server;
let base: string;
let authorizerCalls: string[];

const allow = (token: string): APIGatewayAuthorizerResult => ({
  principalId: token.slice(-4),
  policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: '*' }] },
  context: { keyId: 'key-1' },
});

const ok: FamilyHandler = async () => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"data":[]}' });

beforeAll(async () => {
  server = createGateway({
    handlers: { platforms: ok, currencies: ok, offers: ok, history: ok, usage: ok },
    authorizer: async ({ authorizationToken }) => {
      authorizerCalls.push(authorizationToken);
      if (authorizationToken.includes(REFUSED_KEY)) throw new Error('Unauthorized');
      return allow(authorizationToken);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
beforeEach(() => {
  authorizerCalls = [];
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const call = (authorization?: string) =>
  fetch(`${base}/api/v1/exchanges`, { headers: authorization === undefined ? {} : { Authorization: authorization } });

describe('local gateway: identity validation', () => {
  it.each([
    ['no Authorization header', undefined],
    ['another scheme', `Basic ${KEY}`],
    ['a short key', 'Bearer short'],
    ['the scheme glued to the key', `Bearer${KEY}`],
    ['a key with padding', `Bearer ${KEY}==`],
    ['two tokens', `Bearer ${KEY} ${KEY}`],
    ['a key of 129 characters', `Bearer ${'a'.repeat(129)}`],
  ])('answers %s 401 with the Bearer challenge without invoking the authorizer', async (_case, authorization) => {
    const res = await call(authorization);

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
    expect(authorizerCalls).toEqual([]);
  });

  it('passes a well-formed value to the authorizer, and its refusal is the same 401', async () => {
    const res = await call(`bEaReR   ${REFUSED_KEY}`);

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(authorizerCalls).toEqual([`bEaReR   ${REFUSED_KEY}`]);
  });

  it('serves a well-formed, accepted key without a challenge', async () => {
    const res = await call(`Bearer ${KEY}`);

    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(authorizerCalls).toHaveLength(1);
  });
});
