/**
 * Keys and accounts on the embedded DynamoDB: the KeyStore, the accounts load and the `keys`
 * command, checked through the real authorizer.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorize } from '../../functions/authorizer/authorizer';
import { main } from '../../scripts/keys';
import { hashKey, KeyStore } from '../../shared/accounts/key-store';
import { userKey } from '../../shared/data/keys';
import { createTableInput } from '../../shared/data/table';
import { WebhookStore } from '../../shared/data/webhook-store';
import { createDocumentClient } from '../../shared/platform/dynamodb';
import { setLogSink } from '../../shared/platform/logger';
import { UsageError } from '../../tools/cli';
import {
  createKeyCommand,
  listKeysCommand,
  loadAccountsCommand,
  parseCommandLine,
  premiumCommand,
  revokeKeyCommand,
} from '../../tools/keys/keys';
import { scanAll } from '../helpers/embedded';

// dynalite ships no types.
const dynalite = require('dynalite') as (options: Record<string, unknown>) => Server;

const TABLE = 'keys-it';
const PEPPER = 'integration-pepper';
const METHOD_ARN = 'arn:aws:execute-api:local:000000000000:local/local/GET/api/v1/currencies';
const DEMO_ACCOUNTS = join(__dirname, '..', '..', 'data', 'demo-accounts.json');

let server: Server;
/** The instant the authorizer judges premium periods at (the test's premium dates are 2000 and 2999). */
const NOW = new Date('2026-11-20T10:00:00.000Z');
let endpoint: string;
let client: DynamoDBDocumentClient;
let store: KeyStore;
const dir = mkdtempSync(join(tmpdir(), 'keys-it-'));

const check = (store: KeyStore, secret: string): Promise<APIGatewayAuthorizerResult> =>
  authorize(
    { type: 'TOKEN', authorizationToken: `Bearer ${secret}`, methodArn: METHOD_ARN } as APIGatewayTokenAuthorizerEvent,
    { store, clock: () => NOW },
  );
const outcome = (promise: Promise<APIGatewayAuthorizerResult>) =>
  promise.then(
    (result) => result.policyDocument.Statement[0].Effect,
    (error: Error) => error.message,
  );

const tableItems = () => scanAll(client, TABLE);
/** An accounts file loaded as `npm run keys -- load` loads it, on the local stack's rule. */
const load = (path: string) =>
  loadAccountsCommand({ keys: store, webhooks: new WebhookStore(client, TABLE) }, path, { rule: 'local', now: NOW });

function accountsFile(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

beforeAll(async () => {
  setLogSink(() => undefined);
  server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  client = createDocumentClient({ endpoint });
  await client.send(new CreateTableCommand(createTableInput(TABLE)));
  store = new KeyStore(client, TABLE, PEPPER, () => NOW);
});

afterAll(async () => {
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  setLogSink(() => undefined);
});

describe('keys: create, revoke, premium', () => {
  it('a created key of a premium user is allowed, with its limits', async () => {
    await premiumCommand(store, 'alice', null);

    const created = await createKeyCommand(store, 'alice', { perMinute: 7 });
    const result = await check(store, created.secret);

    expect(result.policyDocument.Statement[0].Effect).toBe('Allow');
    expect(result.context).toEqual({ keyId: created.keyId, userId: 'alice', perMinute: 7 });
    expect(created.user).toEqual({ userId: 'alice', premium: true, premiumUntil: null });
  });

  it('a revoked key is refused with Unauthorized', async () => {
    await premiumCommand(store, 'bob', null);
    const { secret, keyId } = await createKeyCommand(store, 'bob');
    expect(await outcome(check(store, secret))).toBe('Allow');

    await revokeKeyCommand(store, 'bob', keyId);

    expect(await outcome(check(store, secret))).toBe('Unauthorized');
    expect((await listKeysCommand(store, 'bob')).keys).toEqual([expect.objectContaining({ keyId, revoked: true })]);
  });

  it('revoking needs the key owner: another user cannot revoke it', async () => {
    await premiumCommand(store, 'carol', null);
    const { secret, keyId } = await createKeyCommand(store, 'carol');

    await expect(revokeKeyCommand(store, 'mallory', keyId)).rejects.toThrow(/has no key/);

    expect(await outcome(check(store, secret))).toBe('Allow');
  });

  it('premium off turns the key into a Deny (403), premium back on allows it again', async () => {
    await premiumCommand(store, 'dave', null);
    const { secret } = await createKeyCommand(store, 'dave');

    await premiumCommand(store, 'dave', false);
    expect(await outcome(check(store, secret))).toBe('Deny');

    await premiumCommand(store, 'dave', '2999-01-01T00:00:00.000Z');
    expect(await outcome(check(store, secret))).toBe('Allow');

    await premiumCommand(store, 'dave', '2000-01-01T00:00:00.000Z');
    expect(await outcome(check(store, secret))).toBe('Deny');
  });

  it('a key of a user that does not exist is denied (403)', async () => {
    const created = await createKeyCommand(store, 'nobody');

    expect(created.user).toBeUndefined();
    expect(await outcome(check(store, created.secret))).toBe('Deny');
  });

  it('a key hashed with another pepper is unknown (the pepper must match the authorizer)', async () => {
    await premiumCommand(store, 'erin', null);
    const { secret } = await createKeyCommand(store, 'erin');

    expect(await outcome(check(new KeyStore(client, TABLE, 'other-pepper', () => NOW), secret))).toBe('Unauthorized');
  });

  it('lists a user keys with state and limits but no hash or secret', async () => {
    await premiumCommand(store, 'frank', null);
    const first = await createKeyCommand(store, 'frank', { perMinute: 1, perMonth: 2 });
    const second = await createKeyCommand(store, 'frank');
    await revokeKeyCommand(store, 'frank', first.keyId);

    const listed = await listKeysCommand(store, 'frank');

    expect(listed.keys.map((key) => key.keyId).sort()).toEqual([first.keyId, second.keyId].sort());
    expect(listed.keys.find((key) => key.keyId === first.keyId)).toEqual(
      expect.objectContaining({ revoked: true, perMinute: 1, perMonth: 2 }),
    );
    expect(listed.keys.find((key) => key.keyId === second.keyId)).toEqual({
      keyId: second.keyId,
      revoked: false,
      createdAt: expect.any(String),
    });
    const text = JSON.stringify(listed);
    expect(text).not.toContain(first.secret);
    expect(text).not.toContain(hashKey(first.secret, PEPPER));
  });
});

describe('keys: load accounts', () => {
  it('loads the demo accounts: demo allowed, its revoked key, free and lapsed refused', async () => {
    const loaded = await load(DEMO_ACCOUNTS);

    expect(loaded).toEqual({ users: 4, keys: 5, webhooks: 1 });
    expect(await outcome(check(store, 'demo_VLgmviJnpedi2o0JfjhZQJuvcDpsene2YPHo'))).toBe('Allow');
    expect(await outcome(check(store, 'revoked_jDzew41lrPXIgEomQ0OKr6H3Kn0uzQB1lule'))).toBe('Unauthorized');
    expect(await outcome(check(store, 'free_997lOcGbEZypuI3dMFwyYx_bCpFQAOy114fw'))).toBe('Deny');
    expect(await outcome(check(store, 'lapsed_o6mQ0cV9L-TBLtqMV1X0NhE1gSnIk2j8xR_9'))).toBe('Deny');
    const limited = await check(store, 'limited_Pf2pNcvN-sDz9GrvkkHVA2uHyrO98qAnA_5U');
    expect(limited.context).toEqual(expect.objectContaining({ perMinute: 3, perMonth: 10 }));
  });

  it('loading the same file twice gives the same keys, one reference each', async () => {
    const path = accountsFile('twice.json', {
      users: [
        {
          id: 'twice',
          premium: true,
          keys: [
            { key: 'twice_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
            { key: 'twice_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', per_month: 9 },
          ],
        },
      ],
    });

    await load(path);
    const before = await listKeysCommand(store, 'twice');
    const itemsBefore = (await tableItems()).length;
    await load(path);
    const after = await listKeysCommand(store, 'twice');

    expect(after.keys.map((key) => key.keyId)).toEqual(before.keys.map((key) => key.keyId));
    expect(after.keys).toHaveLength(2);
    expect((await tableItems()).length).toBe(itemsBefore);
    const refs = (await tableItems()).filter(
      (item) => item.PK === userKey('twice').PK && item.SK !== userKey('twice').SK,
    );
    expect(refs).toHaveLength(2);
  });

  it('refuses an invalid file whole, before writing anything', async () => {
    const path = accountsFile('bad.json', {
      users: [
        { id: 'never-written', premium: true, keys: [{ key: 'never_written_aaaaaaaaaaaaaaaaaaaaaaaaaaa' }] },
        { id: 'bad', premium: true, keys: [{ key: 'too-short' }] },
      ],
    });

    await expect(load(path)).rejects.toThrow(UsageError);

    expect(await store.getUser('never-written')).toBeUndefined();
  });

  it("refuses a file whose webhook target the table's stage refuses, before writing its users and keys", async () => {
    const path = accountsFile('hook.json', {
      users: [
        {
          id: 'hooked',
          premium: true,
          keys: [{ key: 'hooked_ddddddddddddddddddddddddddddddddddd' }],
          webhooks: [
            {
              id: 'wh_0000000000000000000a',
              url: 'https://hooks.example.com/h',
              family: 'earn',
              secret: `whsec_${Buffer.alloc(32, 3).toString('base64')}`,
            },
          ],
        },
      ],
    });

    const error = await load(path).catch((e: Error) => e);

    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('users[0].webhooks[0].url');
    expect(await store.getUser('hooked')).toBeUndefined();
    expect(await new WebhookStore(client, TABLE).listForUser('hooked')).toEqual([]);
  });

  it('refuses a file that gives the same key twice, before writing anything', async () => {
    const key = 'dup_cccccccccccccccccccccccccccccccccccccc';
    const path = accountsFile('dup.json', {
      users: [
        { id: 'dup1', premium: true, keys: [{ key }] },
        { id: 'dup2', premium: true, keys: [{ key }] },
      ],
    });

    const error = await load(path).catch((e: Error) => e);

    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain('users[1].keys[0].key: duplicate of users[0].keys[0].key');
    expect((error as Error).message).not.toContain(key);
    expect(await store.getUser('dup1')).toBeUndefined();
  });
});

describe('keys: load accounts within the bounds of a file, all or nothing', () => {
  it('refuses a file with a 2 KB user id, a limit of 16 digits and a member named twice whole, naming each place', async () => {
    const users = Array.from({ length: 30 }, (_, i) => ({
      id: `bounded-${i}`,
      premium: true,
      keys: [{ key: `bounded_${String(i).padStart(2, '0')}_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa` }],
    }));
    users[20] = { ...users[20], id: 'u'.repeat(2048) };
    (users[25].keys[0] as Record<string, unknown>).per_month = 1e15;
    const text = JSON.stringify({ users }).replace('"premium":true', '"premium":false,"premium":true');
    const path = join(dir, 'bounded.json');
    writeFileSync(path, text);
    const before = await tableItems();

    const error = await load(path).catch((e: Error) => e);

    expect(error).toBeInstanceOf(UsageError);
    const lines = (error as Error).message.split('\n').slice(1);
    expect(lines).toEqual([
      'users[0].premium: duplicate field (named twice in its object)',
      'users[20].id: must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":", "@" and "-"',
      'users[25].keys[0].per_month: must be a positive integer of at most 15 digits (999999999999999)',
    ]);
    expect(await tableItems()).toEqual(before);
  });

  it('loads a file at the bounds: a 128-character user id, limits of 15 digits', async () => {
    const id = `${'u'.repeat(120)}.:@_-X09`;
    const secret = 'bounds_dddddddddddddddddddddddddddddddddddddd';
    const path = accountsFile('at-bounds.json', {
      users: [
        { id, premium: true, keys: [{ key: secret, per_minute: 999_999_999_999_999, per_month: 999_999_999_999_999 }] },
      ],
    });

    expect(await load(path)).toEqual({ users: 1, keys: 1, webhooks: 0 });
    const allowed = await check(store, secret);
    expect(allowed.policyDocument.Statement[0].Effect).toBe('Allow');
    expect(allowed.context).toEqual(
      expect.objectContaining({ perMinute: 999_999_999_999_999, perMonth: 999_999_999_999_999 }),
    );
  });
});

describe('keys: the command line', () => {
  const lines: string[] = [];
  const print = (line: string) => lines.push(line);
  const connection = () => ['--endpoint', endpoint, '--table', TABLE, '--pepper', PEPPER];

  beforeEach(() => {
    lines.length = 0;
  });

  it('premium, create, list, revoke end to end, printing the key once', async () => {
    await main(['premium', '--user', 'cli', '--until', '2999-12-31', ...connection()], print);
    await main(['create', '--user', 'cli', '--per-minute', '30', ...connection()], print);
    const secret = lines[lines.length - 1];
    const keyId = /created key (k_[0-9a-f]{16})/.exec(lines.join('\n'))![1];

    expect(lines).toContain('user cli: premium until 2999-12-31T00:00:00.000Z');
    expect(await outcome(check(store, secret))).toBe('Allow');

    lines.length = 0;
    await main(['list', '--user', 'cli', ...connection()], print);
    expect(lines[1]).toMatch(/^KEY ID\s+STATE\s+PER MINUTE\s+PER MONTH\s+CREATED$/);
    expect(lines[2]).toMatch(new RegExp(`^${keyId}\\s+active\\s+30\\s+default\\s+\\d{4}-`));
    expect(lines.join('\n')).not.toContain(secret);

    await main(['revoke', '--key-id', keyId, '--user', 'cli', ...connection()], print);
    expect(await outcome(check(store, secret))).toBe('Unauthorized');

    await main(['premium', '--user', 'cli', '--off', ...connection()], print);
    expect(await store.getUser('cli')).toEqual({ userId: 'cli', premium: false, premiumUntil: null });
  });

  it('loads an accounts file, its webhook subscriptions as npm start does', async () => {
    await main(['load', '--accounts', DEMO_ACCOUNTS, ...connection()], print);

    expect(lines).toEqual([`loaded 4 user(s), 5 key(s) and 1 webhook subscription(s) from ${DEMO_ACCOUNTS}`]);
    const [subscription] = await new WebhookStore(client, TABLE).listForUser('demo');
    expect(subscription).toMatchObject({ id: 'wh_de000000000000000001', family: 'earn', status: 'active' });
  });

  it('fails (exit 1, not a usage error) for a key the user does not have', async () => {
    const error = await main(
      ['revoke', '--key-id', 'k_0000000000000000', '--user', 'cli', ...connection()],
      print,
    ).catch((e: Error) => e);

    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(UsageError);
  });

  it.each([
    [[]],
    [['frobnicate']],
    [['create']],
    [['create', '--user', 'u', '--per-minute', '0']],
    [['create', '--user', 'u', '--per-minute', '1.5']],
    [['create', '--user', 'u', '--until', '2030-01-01']],
    [['create', '--user', 'u', '--bogus']],
    [['create', '--user', '']],
    [['revoke', '--key-id', 'k_1']],
    [['list']],
    [['premium', '--user', 'u']],
    [['premium', '--user', 'u', '--off', '--until', '2030-01-01']],
    [['premium', '--user', 'u', '--until', '2030-02-30']],
    [['premium', '--user', 'u', '--until', 'tomorrow']],
    [['premium', '--user', 'u', '--until', '2026-01-01T24:00:00Z']],
    [['premium', '--user', 'a b', '--until', 'never']],
    [['create', '--user', 'u'.repeat(129)]],
    [['create', '--user', 'u', '--per-month', '1000000000000000']],
    [['load']],
    [['load', '--accounts', '/no/such/file.json']],
    [['list', 'extra', '--user', 'u']],
  ])('refuses %j as a usage error (exit 2)', async (argv) => {
    await expect(main(argv, print)).rejects.toThrow(UsageError);
  });

  it('takes the table and the pepper from the environment by default', () => {
    const { connection } = parseCommandLine(['list', '--user', 'u'], { TABLE_NAME: 'from-env', KEY_PEPPER: 'p' });

    expect(connection).toEqual({ tableName: 'from-env', pepper: 'p', endpoint: undefined, region: undefined });
    expect(parseCommandLine(['list', '--user', 'u'], {}).connection.tableName).toBe('market-data');
  });
});

describe('keys: storage', () => {
  it('stores no secret anywhere in the table, only hashes', async () => {
    const created = await createKeyCommand(store, 'alice');
    const secrets = [
      created.secret,
      'demo_VLgmviJnpedi2o0JfjhZQJuvcDpsene2YPHo',
      'free_997lOcGbEZypuI3dMFwyYx_bCpFQAOy114fw',
      'twice_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    ];

    const table = JSON.stringify(await tableItems());

    for (const secret of secrets) {
      expect(table).not.toContain(secret);
      expect(table).toContain(hashKey(secret, PEPPER));
    }
  });
});
