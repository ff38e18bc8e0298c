/**
 * A third party's reading of docs/openapi.json: Stoplight Prism as a validating proxy
 * (`prism proxy docs/openapi.json <local stack> --errors`) in front of the local stack. Prism
 * checks each request and each answer against the description and turns any violation into a
 * `sl-violations` header (and, with `--errors`, a 500 problem document). Every answer the API
 * gives through it must pass: successes, 304, the errors of every status. A control run on a
 * deliberately wrong copy of the description shows the harness sees violations.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { publicRoutes } from '../../local/public-routes';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { DOCUMENT_PATH } from '../helpers/contract';

const KEY = 'prism_key_0123456789abcdefghijklmnopqr';
const FREE_KEY = 'prism_free_0123456789abcdefghijklmnopq';
const ONE_PER_MINUTE = 'prism_slow_0123456789abcdefghijklmnopq';
const UNKNOWN_KEY = 'prism_unknown_0123456789abcdefghijklmn';
const PRISM = join(__dirname, '..', '..', 'node_modules', '.bin', 'prism');

const ACCOUNTS = {
  users: [
    {
      id: 'prism',
      premium: true,
      keys: [
        { key: KEY, per_minute: 1000 },
        { key: ONE_PER_MINUTE, per_minute: 1 },
      ],
    },
    { id: 'free', premium: false, keys: [{ key: FREE_KEY }] },
  ],
};

interface Proxy {
  url: string;
  process: ChildProcess;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts `prism proxy` on a description and resolves once it listens. */
async function startPrism(document: string, upstream: string): Promise<Proxy> {
  const port = await freePort();
  const child = spawn(PRISM, ['proxy', document, upstream, '--errors', '--port', String(port), '--host', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Prism is listening')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`prism exited (${code}) before listening:\n${output}`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child };
}

function stopPrism(proxy: Proxy | undefined): Promise<void> {
  if (!proxy || proxy.process.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    proxy.process.once('exit', () => resolve());
    proxy.process.kill();
  });
}

interface Answer {
  status: number;
  violations: string | null;
  body: string;
}

async function through(
  proxy: Proxy,
  path: string,
  key: string | null,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${proxy.url}${path}`, {
    headers: { ...headers, ...(key ? { Authorization: `Bearer ${key}` } : {}) },
    redirect: 'manual',
  });
  return { status: response.status, violations: response.headers.get('sl-violations'), body: await response.text() };
}

let stack: LocalStack;
let prism: Proxy | undefined;
let control: Proxy | undefined;
const work = mkdtempSync(join(tmpdir(), 'prism-'));

beforeAll(async () => {
  stack = await startLocalStack({
    clock: () => NOW,
    dataset: fixtureDataset(),
    accounts: ACCOUNTS,
    publicRoutes: publicRoutes(),
    env: { SNAPSHOT_CACHE_MS: '0' },
  });
  // The control: the description with one field typed wrong (`name` of an exchange an integer).
  const wrong = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8'));
  wrong.components.schemas.Exchange.properties.name = { type: 'integer' };
  writeFileSync(join(work, 'wrong.json'), JSON.stringify(wrong));
  [prism, control] = await Promise.all([
    startPrism(DOCUMENT_PATH, stack.url),
    startPrism(join(work, 'wrong.json'), stack.url),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([stopPrism(prism), stopPrism(control)]);
  await stack?.close();
  rmSync(work, { recursive: true, force: true });
});

const CONFORMING: [string, string, string | null, number][] = [
  ['a platform list', '/api/v1/exchanges?limit=2', KEY, 200],
  ['a wallet list', '/api/v1/wallets', KEY, 200],
  ['a protocol detail', '/api/v1/protocols/maker', KEY, 200],
  ['a currency detail with its offers', '/api/v1/currencies/bitcoin', KEY, 200],
  ['an offer list, filtered and sorted', '/api/v1/earn?asset=bitcoin&sort=tvl_desc&min_apy=1.5', KEY, 200],
  ['a borrow list', '/api/v1/borrow?platform_type=protocol', KEY, 200],
  ['a collateral list', '/api/v1/collateral', KEY, 200],
  ['an offer detail', '/api/v1/earn/1', KEY, 200],
  ['earn history', '/api/v1/earn/1/history?period=all', KEY, 200],
  ['borrow history', '/api/v1/borrow/1/history?period=1y', KEY, 200],
  ['usage', '/api/v1/usage', KEY, 200],
  ['a lookup 404', '/api/v1/exchanges/no-such-exchange', KEY, 404],
  ['an offer 404', '/api/v1/borrow/999999', KEY, 404],
  ['collateral history (always 404)', '/api/v1/collateral/1/history', KEY, 404],
  ['an unknown parameter (400)', '/api/v1/exchanges?foo=1', KEY, 400],
  ['an unknown key (401)', '/api/v1/exchanges', UNKNOWN_KEY, 401],
  ['a key without subscription (403)', '/api/v1/exchanges', FREE_KEY, 403],
  ['the description', '/openapi.json', null, 200],
  ['the docs page', '/docs', null, 200],
  // Version 1.2.
  [
    'an earn list with lists of values, chain, min_tvl and available',
    '/api/v1/earn?asset=bitcoin,ethereum&chain=ethereum&min_tvl=0&available=true&sort=tvl_desc',
    KEY,
    200,
  ],
  ['a borrow list by ids and is_active', '/api/v1/borrow?ids=1,2,3&is_active=true', KEY, 200],
  [
    'a collateral list of two platform types',
    '/api/v1/collateral?platform_type=exchange,wallet&is_active=false&limit=1',
    KEY,
    200,
  ],
  ["the other family's flag (400)", '/api/v1/earn?is_active=true', KEY, 400],
  ['a snapshot never published (410)', '/api/v1/earn?snapshot=never_published_0', KEY, 410],
  ['changes since a snapshot never published (410)', '/api/v1/borrow/changes?since=never_published_0', KEY, 410],
  ['the data status, without a key', '/api/v1/status', null, 200],
  ['the data status with a query (400)', '/api/v1/status?family=earn', null, 400],
];

describe('Prism, validating the local stack against docs/openapi.json', () => {
  it.each(CONFORMING)('passes %s', async (_, path, key, status) => {
    const answer = await through(prism!, path, key);
    expect({ violations: answer.violations, status: answer.status }).toEqual({ violations: null, status });
  });

  it('passes a 304 to a matching If-None-Match', async () => {
    const first = await fetch(`${stack.url}/api/v1/currencies?limit=3`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    const etag = first.headers.get('ETag') ?? '';
    const answer = await through(prism!, '/api/v1/currencies?limit=3', KEY, { 'If-None-Match': etag });
    expect({ violations: answer.violations, status: answer.status }).toEqual({ violations: null, status: 304 });
  });

  it('passes a pinned page named by Link, and a changes page', async () => {
    const first = await fetch(`${stack.url}/api/v1/exchanges?limit=2`, { headers: { Authorization: `Bearer ${KEY}` } });
    const next = /<([^>]*)>; rel="next"/.exec(first.headers.get('Link') ?? '')?.[1] ?? '';
    expect(next).toContain('snapshot=');
    const pinned = await through(prism!, next, KEY);
    expect({ violations: pinned.violations, status: pinned.status }).toEqual({ violations: null, status: 200 });

    const earn = await fetch(`${stack.url}/api/v1/earn?limit=1`, { headers: { Authorization: `Bearer ${KEY}` } });
    const since = ((await earn.json()) as { pagination: { snapshot: string } }).pagination.snapshot;
    const changes = await through(prism!, `/api/v1/earn/changes?since=${since}`, KEY);
    expect({ violations: changes.violations, status: changes.status }).toEqual({ violations: null, status: 200 });
  });

  it('passes a 429 with Retry-After', async () => {
    await through(prism!, '/api/v1/usage', ONE_PER_MINUTE);
    const answer = await through(prism!, '/api/v1/usage', ONE_PER_MINUTE);
    expect({ violations: answer.violations, status: answer.status }).toEqual({ violations: null, status: 429 });
  });

  it('reports a violation when the description is wrong (the control)', async () => {
    const answer = await through(control!, '/api/v1/exchanges/binance', KEY);
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.violations ?? '[]')).toContainEqual(
      expect.objectContaining({ location: ['response', 'body', 'name'] }),
    );
  });
});
