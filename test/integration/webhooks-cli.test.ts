/**
 * `npm run webhooks` on the embedded DynamoDB (CONTRACT §14): create, list, remove, enable and
 * rotate-secret; at most 25 subscriptions a user; refusals name the field; the secret is printed
 * once and appears in no log line and no other output.
 */
import { main } from '../../scripts/webhooks';
import { WebhookStore } from '../../shared/data/webhook-store';
import { setLogSink } from '../../shared/platform/logger';
import { UsageError } from '../../tools/cli';
import { parseCommandLine, run } from '../../tools/webhooks/webhooks';
import { startTestTable, type TestTable } from '../helpers/embedded';

const T0 = new Date('2026-11-20T10:00:00.000Z');
let table: TestTable;
let store: WebhookStore;
let out: string[];
let logs: string[];
const print = (line: string) => void out.push(line);
const local = { rule: 'local' as const, now: T0 };

beforeEach(async () => {
  table = await startTestTable();
  store = new WebhookStore(table.client, table.tableName);
  out = [];
  logs = [];
  setLogSink((line) => void logs.push(line));
});
afterEach(async () => {
  setLogSink(() => undefined);
  await table.close();
});

const args = (...rest: string[]) => [...rest, '--endpoint', table.endpoint, '--table', table.tableName];
const secretsIn = (lines: string[]) => lines.filter((l) => /^whsec_/.test(l));

describe('npm run webhooks', () => {
  it('creates a subscription, prints its secret once, lists it without the secret', async () => {
    await main(
      args(
        'create',
        '--user',
        'u1',
        '--url',
        'http://127.0.0.1:9000/h',
        '--family',
        'earn',
        '--filter',
        'asset=usd-coin',
        '--apy-above',
        '8',
      ),
      print,
    );
    const [secret] = secretsIn(out);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const id = /wh_[0-9a-f]{20}/.exec(out.join('\n'))![0];
    const [subscription] = await store.listForUser('u1');
    expect(subscription).toMatchObject({
      id,
      family: 'earn',
      filter: 'asset=usd-coin',
      conditions: { apy_above: '8' },
    });
    expect(await store.secret(id)).toBe(secret);

    const listed: string[] = [];
    await main(args('list', '--user', 'u1'), (line) => void listed.push(line));
    expect(listed.join('\n')).toContain(id);
    expect(listed.join('\n')).not.toContain(secret);
    expect(logs.join('\n')).not.toContain(secret.slice('whsec_'.length, 20));

    await main(args('rotate-secret', '--user', 'u1', '--id', id), print);
    const rotated = secretsIn(out)[1];
    expect(rotated).not.toBe(secret);
    expect(await store.secret(id)).toBe(rotated);
    expect(logs.join('\n')).not.toContain(rotated.slice('whsec_'.length, 20));
  });

  it('refuses a bad subscription naming the field, and another stage rule', async () => {
    const create = (...extra: string[]) =>
      run(parseCommandLine(args('create', '--user', 'u1', ...extra)).invocation, store, print, local);
    await expect(create('--url', 'http://10.0.0.1:9000/', '--family', 'earn', '--apy-above', '8')).rejects.toThrow(
      /url must be/,
    );
    await expect(
      create('--url', 'http://127.0.0.1:9000/', '--family', 'collateral', '--apy-above', '8'),
    ).rejects.toThrow(/conditions.apy_above is refused on collateral/);
    await expect(
      create('--url', 'http://127.0.0.1:9000/', '--family', 'earn', '--filter', 'min_apy=x', '--availability'),
    ).rejects.toThrow(/filter: min_apy must be a decimal number/);
    expect(() => parseCommandLine(['create', '--user', 'u1'])).toThrow(UsageError);
    expect(() => parseCommandLine(['remove', '--user', 'u1', '--id', 'nope'])).toThrow(/--id must be/);
    expect(parseCommandLine(['list', '--user', 'u1']).connection.rule).toBe('public');
    expect(await store.listForUser('u1')).toEqual([]);
  });

  it('keeps at most 25 a user; removes and enables only the user’s own', async () => {
    const invocation = parseCommandLine(
      args(
        'create',
        '--user',
        'u1',
        '--url',
        'http://localhost:9000/',
        '--family',
        'borrow',
        '--events',
        'offer.added',
      ),
    ).invocation;
    for (let i = 0; i < 25; i++) await run(invocation, store, print, local);
    await expect(run(invocation, store, print, local)).rejects.toThrow(/at most 25/);
    const [first] = await store.listForUser('u1');
    const other = parseCommandLine(args('remove', '--user', 'u2', '--id', first.id)).invocation;
    await expect(run(other, store, print, local)).rejects.toThrow(/has no webhook subscription/);
    await run(parseCommandLine(args('enable', '--user', 'u1', '--id', first.id)).invocation, store, print, local);
    await run(parseCommandLine(args('remove', '--user', 'u1', '--id', first.id)).invocation, store, print, local);
    expect(await store.listForUser('u1')).toHaveLength(24);
    expect(await store.secret(first.id)).toBeUndefined();
  });
});
