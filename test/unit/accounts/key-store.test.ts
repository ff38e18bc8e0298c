import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  AccountsConflictError,
  accountItems,
  generateSecret,
  hashKey,
  KeyExistsError,
  KeyStore,
} from '../../../shared/accounts/key-store';
import { apiKeyKey, userKey, userKeyRefKey } from '../../../shared/data/keys';
import { parseAccounts } from '../../../shared/import/dataset';
import { API_KEY_FORMAT, KEY_ID_PATTERN, keyIdForHash } from '../../../shared/platform/account-rules';
import { CorruptDataError } from '../../../shared/platform/errors';

const ddb = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
const KEY = 'test_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const NOW = new Date('2026-06-15T12:00:00.000Z');

beforeEach(() => {
  ddb.reset();
});

describe('key hashing (known-answer vectors)', () => {
  it('is HMAC-SHA256 with the pepper when there is one (RFC 2104 example vector)', () => {
    expect(hashKey('The quick brown fox jumps over the lazy dog', 'key')).toBe(
      'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    );
  });

  it('is plain SHA-256 without a pepper (FIPS 180-2 vector for "abc")', () => {
    expect(hashKey('abc', '')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('derives the key id from the hash: stable across releases, short, and not the hash', () => {
    const hash = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

    // Pinned: a changed derivation would give every stored key a new id.
    expect(keyIdForHash(hash)).toBe('k_dfe7a23fefeea519');
    expect(hash).not.toContain('dfe7a23fefeea519');
    // The rule the key items' codec reads by (a key id outside it fails closed).
    expect(keyIdForHash(hash)).toMatch(KEY_ID_PATTERN);
    expect(keyIdForHash(hashKey('abc', 'pepper'))).toMatch(KEY_ID_PATTERN);
  });
});

describe('key format', () => {
  it('generates keys in the format, with 256 random bits each', () => {
    const secrets = Array.from({ length: 50 }, generateSecret);

    for (const secret of secrets) expect(secret).toMatch(API_KEY_FORMAT);
    expect(new Set(secrets).size).toBe(50);
    expect(Buffer.from(secrets[0].slice('mdk_'.length), 'base64url')).toHaveLength(32);
  });
});

describe('KeyStore.createKey', () => {
  it('stores the hash and a user reference, never the secret', async () => {
    ddb.on(PutCommand).resolves({});
    const store = new KeyStore(client, 't', 'pepper', () => NOW);

    const { secret, keyId } = await store.createKey('u1', { perMinute: 10 });

    const hash = hashKey(secret, 'pepper');
    const puts = ddb.commandCalls(PutCommand).map((call) => call.args[0].input);
    expect(puts).toEqual([
      {
        TableName: 't',
        Item: { ...apiKeyKey(hash), keyId, userId: 'u1', revoked: false, createdAt: NOW.toISOString(), perMinute: 10 },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
      { TableName: 't', Item: { ...userKeyRefKey('u1', keyId), keyId, hash, createdAt: NOW.toISOString() } },
    ]);
    expect(JSON.stringify(puts)).not.toContain(secret);
  });

  it('refuses a given secret outside the key format', async () => {
    const store = new KeyStore(client, 't', '', () => NOW);

    await expect(store.createKey('u1', {}, 'short')).rejects.toThrow(RangeError);

    expect(ddb.calls()).toHaveLength(0);
  });

  it('refuses a secret that is already stored', async () => {
    ddb
      .on(PutCommand)
      .rejects(Object.assign(new Error('The conditional request failed'), { name: 'ConditionalCheckFailedException' }));
    const store = new KeyStore(client, 't', '', () => NOW);

    await expect(store.createKey('u1', {}, KEY)).rejects.toThrow(KeyExistsError);
  });

  it('refuses a limit that is not a positive integer before any write', async () => {
    const store = new KeyStore(client, 't', '', () => NOW);

    await expect(store.createKey('u1', { perMinute: 0 })).rejects.toThrow(RangeError);

    expect(ddb.calls()).toHaveLength(0);
  });
});

describe('KeyStore reads', () => {
  it('finds a key by the hash of its secret and reports its limits', async () => {
    ddb.on(GetCommand, { Key: apiKeyKey(hashKey(KEY, 'p')) }).resolves({
      Item: {
        ...apiKeyKey(hashKey(KEY, 'p')),
        keyId: 'k_00000000000000a1',
        userId: 'u1',
        revoked: false,
        createdAt: '2026-01-01T00:00:00.000Z',
        perMonth: 7,
      },
    });
    const store = new KeyStore(client, 't', 'p', () => NOW);

    const key = await store.findByKey(KEY);

    expect(key).toEqual({
      keyId: 'k_00000000000000a1',
      userId: 'u1',
      revoked: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      perMonth: 7,
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['`revoked` that is not a boolean', { revoked: 'false' }],
    ['no owner', { userId: undefined }],
    ['a string limit', { perMinute: '5' }],
  ])('throws CorruptDataError for a key item with %s (it used to read as revoked)', async (_case, change) => {
    ddb.on(GetCommand).resolves({
      Item: {
        ...apiKeyKey(hashKey(KEY, '')),
        keyId: 'k_00000000000000a1',
        userId: 'u1',
        revoked: false,
        createdAt: '2026-01-01T00:00:00.000Z',
        ...change,
      },
    });
    const store = new KeyStore(client, 't', '', () => NOW);

    const error = await store.findByKey(KEY).catch((e: Error) => e);

    expect(error).toBeInstanceOf(CorruptDataError);
    expect((error as Error).message).not.toContain(hashKey(KEY, ''));
  });

  it('throws CorruptDataError for a user item whose premiumUntil is not a date', async () => {
    ddb.on(GetCommand).resolves({ Item: { ...userKey('u1'), userId: 'u1', premium: true, premiumUntil: 'soon' } });

    await expect(new KeyStore(client, 't', '', () => NOW).getUser('u1')).rejects.toBeInstanceOf(CorruptDataError);
  });

  it('refuses a key reference without a hash, in list and in revoke (which then writes nothing)', async () => {
    ddb.on(QueryCommand).resolves({
      Items: [
        {
          ...userKeyRefKey('u1', 'k_00000000000000a1'),
          keyId: 'k_00000000000000a1',
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    });
    const store = new KeyStore(client, 't', '', () => NOW);

    await expect(store.listKeys('u1')).rejects.toBeInstanceOf(CorruptDataError);

    ddb.on(GetCommand).resolves({
      Item: {
        ...userKeyRefKey('u1', 'k_00000000000000a1'),
        keyId: 'k_00000000000000a1',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    });
    await expect(store.revokeKey('u1', 'k_00000000000000a1')).rejects.toBeInstanceOf(CorruptDataError);
    expect(ddb.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('reads a user, with a missing premiumUntil as null', async () => {
    ddb.on(GetCommand, { Key: userKey('u1') }).resolves({ Item: { ...userKey('u1'), userId: 'u1', premium: true } });
    const store = new KeyStore(client, 't', '', () => NOW);

    expect(await store.getUser('u1')).toEqual({ userId: 'u1', premium: true, premiumUntil: null });
  });
});

describe('accountItems (the load of an accounts file)', () => {
  const file = parseAccounts({
    users: [
      { id: 'a', premium: true, premium_until: null, keys: [{ key: KEY, per_minute: 5 }] },
      { id: 'b', premium: false, keys: [] },
    ],
  });

  it('writes one user item per user, and per key its item and its reference', () => {
    const items = accountItems(file, '', NOW.toISOString());

    const hash = hashKey(KEY, '');
    const keyId = keyIdForHash(hash);
    expect(items).toEqual([
      { ...userKey('a'), userId: 'a', premium: true, premiumUntil: null },
      { ...apiKeyKey(hash), keyId, userId: 'a', revoked: false, createdAt: NOW.toISOString(), perMinute: 5 },
      { ...userKeyRefKey('a', keyId), keyId, hash, createdAt: NOW.toISOString() },
      { ...userKey('b'), userId: 'b', premium: false, premiumUntil: null },
    ]);
  });

  it('refuses a file that names a user twice or a key twice, by place', () => {
    const twice = parseAccounts({
      users: [
        { id: 'a', premium: true, keys: [{ key: KEY }] },
        { id: 'a', premium: true, keys: [] },
        { id: 'c', premium: true, keys: [{ key: KEY }] },
      ],
    });

    const error = (() => {
      try {
        accountItems(twice, '', NOW.toISOString());
      } catch (e) {
        return e;
      }
    })() as AccountsConflictError;

    expect(error).toBeInstanceOf(AccountsConflictError);
    expect(error.errors).toEqual([
      'users[1].id: duplicate of users[0].id',
      'users[2].keys[0].key: duplicate of users[0].keys[0].key',
    ]);
    expect(error.message).not.toContain(KEY);
  });
});
