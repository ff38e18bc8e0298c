import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { authorize, authorizerHandler } from '../../../../functions/authorizer/authorizer';
import { hashKey, KeyStore } from '../../../../shared/accounts/key-store';
import { apiKeyKey, userKey } from '../../../../shared/data/keys';
import { setLogLevel, setLogSink } from '../../../../shared/platform/logger';

const ddb = mockClient(DynamoDBDocumentClient);
const TABLE = 'market-data-test';
const PEPPER = 'unit-test-pepper';
const KEY = 'test_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const KEY_ID = 'k_00000000000000aa';
const API = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod';
const METHOD_ARN = `${API}/GET/api/v1/exchanges`;
const NOW = new Date('2026-06-15T12:00:00.000Z');

const store = new KeyStore(
  DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
  TABLE,
  PEPPER,
  () => NOW,
);
const event = (authorizationToken: string | undefined): APIGatewayTokenAuthorizerEvent =>
  ({ type: 'TOKEN', authorizationToken, methodArn: METHOD_ARN }) as APIGatewayTokenAuthorizerEvent;
const run = (authorizationToken: string | undefined) =>
  authorize(event(authorizationToken), { store, clock: () => NOW });

function givenKey(item: Record<string, unknown> = {}, secret = KEY) {
  ddb.on(GetCommand, { Key: apiKeyKey(hashKey(secret, PEPPER)) }).resolves({
    Item: {
      ...apiKeyKey(hashKey(secret, PEPPER)),
      keyId: KEY_ID,
      userId: 'u1',
      revoked: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      ...item,
    },
  });
}

function givenUser(item: Record<string, unknown>) {
  ddb.on(GetCommand, { Key: userKey('u1') }).resolves({ Item: { ...userKey('u1'), userId: 'u1', ...item } });
}

const givenPremiumUser = () => givenUser({ premium: true, premiumUntil: null });
const getCalls = () => ddb.commandCalls(GetCommand);
const effectOf = (result: APIGatewayAuthorizerResult) => result.policyDocument.Statement[0].Effect;

let logLines: string[];

beforeEach(() => {
  ddb.reset();
  ddb.on(GetCommand).resolves({});
  logLines = [];
  setLogSink((line) => logLines.push(line));
});

afterAll(() => {
  setLogSink(() => undefined);
});

describe('authorizer: the Authorization value (401 without a read)', () => {
  it.each([
    ['an empty header', ''],
    ['no header at all', undefined],
    ['another scheme', `Basic ${KEY}`],
    ['the token scheme of another API', `Token ${KEY}`],
    ['the scheme word alone', 'Bearer'],
    ['the scheme glued to the key', `Bearer${KEY}`],
    ['a tab instead of a space', `Bearer\t${KEY}`],
    ['two tokens', `Bearer ${KEY} ${KEY}`],
    ['a bare key without scheme', KEY],
    ['a key of 31 characters', `Bearer ${'a'.repeat(31)}`],
    ['a key of 129 characters', `Bearer ${'a'.repeat(129)}`],
    ['a key with a character outside the format', `Bearer ${KEY.slice(0, -1)}.`],
    ['a base64 key with padding', `Bearer ${KEY}==`],
    // CONTRACT §7: a key is 32–128 characters of [A-Za-z0-9_-]; nothing else is looked up.
    ['a key of 5 KB', `Bearer ${'a'.repeat(5 * 1024)}`],
    ['a key followed by CR/LF', `Bearer ${KEY}\r\n`],
    ['a key with CR/LF inside', `Bearer ${KEY.slice(0, 20)}\r\n${KEY.slice(20)}`],
    ['a key with a NUL', `Bearer ${KEY}\u0000`],
  ])('refuses %s with Unauthorized and reads nothing', async (_case, header) => {
    await expect(run(header)).rejects.toThrow(/^Unauthorized$/);

    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('authorizer: the scheme word and spacing', () => {
  it.each([
    ['Bearer', `Bearer ${KEY}`],
    ['lowercase bearer', `bearer ${KEY}`],
    ['uppercase BEARER', `BEARER ${KEY}`],
    ['mixed case', `bEaReR ${KEY}`],
    ['several spaces before the key', `Bearer    ${KEY}`],
    ['surrounding whitespace', `  Bearer ${KEY}  `],
  ])('accepts %s', async (_case, header) => {
    givenKey();
    givenPremiumUser();

    const result = await run(header);

    expect(effectOf(result)).toBe('Allow');
  });

  it.each([32, 128])('accepts a key of exactly %i characters (and looks it up)', async (length) => {
    const key = 'k'.repeat(length);
    givenKey({}, key);
    givenPremiumUser();

    const result = await run(`Bearer ${key}`);

    expect(effectOf(result)).toBe('Allow');
    expect(getCalls()[0].args[0].input.Key).toEqual(apiKeyKey(hashKey(key, PEPPER)));
  });
});

describe('authorizer: the key (401)', () => {
  it('refuses an unknown key after one read', async () => {
    const promise = run(`Bearer ${KEY}`);

    await expect(promise).rejects.toThrow(/^Unauthorized$/);
    expect(getCalls()).toHaveLength(1);
    expect(getCalls()[0].args[0].input).toEqual({ TableName: TABLE, Key: apiKeyKey(hashKey(KEY, PEPPER)) });
  });

  it('refuses a revoked key without reading its user', async () => {
    givenKey({ revoked: true });
    givenPremiumUser();

    await expect(run(`Bearer ${KEY}`)).rejects.toThrow(/^Unauthorized$/);

    expect(getCalls()).toHaveLength(1);
  });

  it('looks the key up by its peppered hash, never by the key itself', async () => {
    await run(`Bearer ${KEY}`).catch(() => undefined);

    const key = getCalls()[0].args[0].input.Key as Record<string, string>;
    expect(key).toEqual(apiKeyKey(hashKey(KEY, PEPPER)));
    expect(key).not.toEqual(apiKeyKey(hashKey(KEY, '')));
    expect(JSON.stringify(ddb.calls().map((call) => call.args[0].input))).not.toContain(KEY);
  });
});

describe('authorizer: the subscription (403 as a Deny policy)', () => {
  const expectDeny = (result: APIGatewayAuthorizerResult) => {
    expect(result.principalId).toBe(KEY_ID);
    expect(result.policyDocument.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: `${API}/*/*` },
    ]);
  };

  it('denies a key whose user does not exist', async () => {
    givenKey();

    expectDeny(await run(`Bearer ${KEY}`));
  });

  it('denies a user with premium false', async () => {
    givenKey();
    givenUser({ premium: false, premiumUntil: null });

    expectDeny(await run(`Bearer ${KEY}`));
  });

  it('denies a user whose premium_until is in the past', async () => {
    givenKey();
    givenUser({ premium: true, premiumUntil: '2026-06-15T11:59:59.999Z' });

    expectDeny(await run(`Bearer ${KEY}`));
  });

  it('denies at the very instant premium_until is reached', async () => {
    givenKey();
    givenUser({ premium: true, premiumUntil: NOW.toISOString() });

    expectDeny(await run(`Bearer ${KEY}`));
  });

  it('allows a user whose premium_until is in the future', async () => {
    givenKey();
    givenUser({ premium: true, premiumUntil: '2026-06-15T12:00:00.001Z' });

    expect(effectOf(await run(`Bearer ${KEY}`))).toBe('Allow');
  });

  it('allows a user whose premium_until is null (no end)', async () => {
    givenKey();
    givenUser({ premium: true, premiumUntil: null });

    expect(effectOf(await run(`Bearer ${KEY}`))).toBe('Allow');
  });

  it('allows a premium user stored without premiumUntil', async () => {
    givenKey();
    givenUser({ premium: true });

    expect(effectOf(await run(`Bearer ${KEY}`))).toBe('Allow');
  });
});

describe('authorizer: the Allow answer', () => {
  it('allows the whole API (every stage route and method) so a cached answer serves every route', async () => {
    givenKey();
    givenPremiumUser();

    const result = await run(`Bearer ${KEY}`);

    expect(result.principalId).toBe(KEY_ID);
    expect(result.policyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${API}/*/*` }],
    });
  });

  it('passes the key id and the key own limits in the context', async () => {
    givenKey({ perMinute: 5, perMonth: 1000 });
    givenPremiumUser();

    const result = await run(`Bearer ${KEY}`);

    expect(result.context).toEqual({ keyId: KEY_ID, userId: 'u1', perMinute: 5, perMonth: 1000 });
  });

  it('leaves absent limits out of the context (the functions apply their defaults)', async () => {
    givenKey({ perMonth: 1000 });
    givenPremiumUser();

    const result = await run(`Bearer ${KEY}`);

    expect(result.context).toEqual({ keyId: KEY_ID, userId: 'u1', perMonth: 1000 });
  });

  it('passes the end of a dated subscription in the context, for GET /usage', async () => {
    givenKey();
    givenUser({ premium: true, premiumUntil: '2027-01-31T00:00:00.000Z' });

    const result = await run(`Bearer ${KEY}`);

    expect(result.context).toEqual({ keyId: KEY_ID, userId: 'u1', premiumUntil: '2027-01-31T00:00:00.000Z' });
  });

  it('never puts the key or its hash in the answer', async () => {
    givenKey();
    givenPremiumUser();

    const result = await run(`Bearer ${KEY}`);

    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(JSON.stringify(result)).not.toContain(hashKey(KEY, PEPPER));
  });
});

describe('authorizer: dependency failures (fail closed, 503)', () => {
  const throttled = Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
    name: 'ProvisionedThroughputExceededException',
    $metadata: { httpStatusCode: 400 },
  });

  it('throws an error other than Unauthorized when the key read fails', async () => {
    ddb.on(GetCommand).rejects(throttled);

    const error = await run(`Bearer ${KEY}`).catch((e: Error) => e);

    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).not.toBe('Unauthorized');
  });

  it('throws an error other than Unauthorized when the user read fails', async () => {
    givenKey();
    ddb.on(GetCommand, { Key: userKey('u1') }).rejects(throttled);

    const error = await run(`Bearer ${KEY}`).catch((e: Error) => e);

    expect((error as Error).message).not.toBe('Unauthorized');
  });

  it('logs the failure by name, without the key', async () => {
    ddb.on(GetCommand).rejects(throttled);

    await run(`Bearer ${KEY}`).catch(() => undefined);

    const failure = logLines.map((line) => JSON.parse(line)).find((entry) => entry.level === 'error');
    expect(failure.error).toEqual({ name: 'ProvisionedThroughputExceededException', message: throttled.message });
    expect(logLines.join('\n')).not.toContain(KEY);
  });

  it('throws an error other than Unauthorized for a methodArn it cannot read', async () => {
    givenKey();
    givenPremiumUser();

    const error = await authorize(
      { ...event(`Bearer ${KEY}`), methodArn: 'nonsense' },
      { store, clock: () => NOW },
    ).catch((e: Error) => e);

    expect((error as Error).message).not.toBe('Unauthorized');
  });
});

describe('authorizer: malformed key and user items (fail closed, 503)', () => {
  const errorLine = () => logLines.map((line) => JSON.parse(line)).find((entry) => entry.level === 'error');

  it.each<[string, Record<string, unknown>]>([
    ['`revoked` the string "false"', { revoked: 'false' }],
    ['no `revoked`', { revoked: undefined }],
    ['no owner', { userId: undefined }],
    ['no key id', { keyId: undefined }],
    ['`perMinute` the string "5"', { perMinute: '5' }],
    ['`perMonth` zero', { perMonth: 0 }],
    ['a key id of 5 KB', { keyId: `k_${'0'.repeat(5000)}` }],
    ['a key id with CR/LF', { keyId: `${KEY_ID}\r\n` }],
    ['an owner id with CR/LF', { userId: 'u1\r\n' }],
  ])('answers the failure for a key item with %s, without reading the user', async (_case, change) => {
    givenKey(change);
    givenPremiumUser();

    await expect(run(`Bearer ${KEY}`)).rejects.toThrow(/^Authorizer failure$/);

    expect(getCalls()).toHaveLength(1);
  });

  it('never lets a string limit reach the context', async () => {
    givenKey({ perMinute: '1000000' });
    givenPremiumUser();

    const result = await run(`Bearer ${KEY}`).catch((error: Error) => error);

    expect(result).toEqual(new Error('Authorizer failure'));
  });

  it.each<[string, Record<string, unknown>]>([
    ['`premium` the string "true"', { premium: 'true', premiumUntil: null }],
    ['`premium` missing', { premiumUntil: null }],
    ['`premiumUntil` not a date', { premium: true, premiumUntil: 'soon' }],
    ['`premiumUntil` a number', { premium: true, premiumUntil: 1 }],
    ['`premiumUntil` "9999" (Date.parse reads it; no writer writes it)', { premium: true, premiumUntil: '9999' }],
  ])('answers the failure for a user item with %s', async (_case, item) => {
    givenKey();
    givenUser(item);

    await expect(run(`Bearer ${KEY}`)).rejects.toThrow(/^Authorizer failure$/);
  });

  it('names a key item by its kind when its key id is malformed: the id never reaches a log line', async () => {
    givenKey({ keyId: `${KEY_ID}\r\nforged line` });

    await run(`Bearer ${KEY}`).catch(() => undefined);

    expect(errorLine()).toMatchObject({
      error: { message: expect.stringMatching(/an API key item is malformed \(keyId\)/) },
    });
    expect(logLines.join('\n')).not.toContain('forged line');
  });

  it('logs the item by its key id (public) and the attribute at fault, never the key or its hash', async () => {
    givenKey({ perMinute: '5' });

    await run(`Bearer ${KEY}`).catch(() => undefined);

    expect(errorLine()).toMatchObject({
      message: 'authorizer: failure',
      error: {
        name: 'CorruptDataError',
        message: expect.stringMatching(new RegExp(`the API key item of ${KEY_ID} .*perMinute`)),
      },
    });
    expect(logLines.join('\n')).not.toContain(hashKey(KEY, PEPPER));
    expect(logLines.join('\n')).not.toContain(KEY);
  });
});

describe('authorizer: logs', () => {
  // Every level is checked: a secret must not reach even a debug line.
  beforeEach(() => {
    setLogLevel('debug');
  });
  afterEach(() => {
    setLogLevel('info');
  });

  it('never writes the key or its hash, whatever the outcome', async () => {
    const outcomes = async () => {
      await run(`Bearer ${KEY}`).catch(() => undefined); // unknown
      givenKey({ revoked: true });
      await run(`Bearer ${KEY}`).catch(() => undefined); // revoked
      givenKey();
      await run(`Bearer ${KEY}`); // no user: deny
      givenPremiumUser();
      await run(`Bearer ${KEY}`); // allow
      await run(`Bearer ${KEY}x!`).catch(() => undefined); // malformed
      ddb.on(GetCommand).rejects(new Error('boom'));
      await run(`Bearer ${KEY}`).catch(() => undefined); // failure
    };

    await outcomes();

    expect(logLines.length).toBeGreaterThanOrEqual(6);
    const all = logLines.join('\n');
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(hashKey(KEY, PEPPER));
    expect(all).not.toMatch(/Bearer/i);
  });

  it('says why a key was refused', async () => {
    givenKey({ revoked: true });

    await run(`Bearer ${KEY}`).catch(() => undefined);

    expect(logLines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ message: 'authorizer: unauthorized', reason: 'revoked' }),
    );
  });
});

describe('authorizer: the Lambda handler', () => {
  const handler = authorizerHandler({ store, clock: () => NOW });

  it('reads through the key store it was built with (table and pepper)', async () => {
    await expect(handler(event(`Bearer ${KEY}`))).rejects.toThrow(/^Unauthorized$/);

    expect(getCalls()[0].args[0].input).toEqual({ TableName: TABLE, Key: apiKeyKey(hashKey(KEY, PEPPER)) });
  });

  it('logs with the invocation request id', async () => {
    await handler(event(`Bearer ${KEY}`), { awsRequestId: 'req-authz-1' }).catch(() => undefined);

    const refusal = logLines
      .map((line) => JSON.parse(line))
      .find((entry) => entry.message === 'authorizer: unauthorized');
    expect(refusal).toMatchObject({ requestId: 'req-authz-1', reason: 'unknown' });
  });
});
