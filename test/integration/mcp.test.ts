/**
 * `POST /mcp` with the protocol's official client (the SDK's Client over its Streamable HTTP
 * transport) against the local stack: initialize, the tools and their schemas, every tool's result
 * equal to its route's answer, a route's error as a result, JSON-RPC errors, the authorizer's
 * refusals, and one budget unit a request (docs/api.md, "For assistants and agents"; CONTRACT §15).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import openapiDocument from '../../docs/openapi.json';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { fixtureDataset, NOW } from '../fixtures/dataset';

const KEY = 'mcp_agent_0123456789abcdefghijklmnopqr';
const METERED = 'mcp_meter_0123456789abcdefghijklmnopqr';
const LAPSED = 'mcp_lapsed_0123456789abcdefghijklmnopq';
const ACCOUNTS = {
  users: [
    {
      id: 'agent',
      premium: true,
      keys: [
        { key: KEY, per_minute: 1000 },
        { key: METERED, per_minute: 10 },
      ],
    },
    { id: 'lapsed', premium: false, keys: [{ key: LAPSED }] },
  ],
};

let stack: LocalStack;
let client: Client;

async function connect(key: string): Promise<Client> {
  const mcp = new Client({ name: 'market-data-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await mcp.connect(transport);
  return mcp;
}

beforeAll(async () => {
  stack = await startLocalStack({
    dataset: fixtureDataset(),
    accounts: ACCOUNTS,
    env: { SNAPSHOT_CACHE_MS: '0' },
    clock: () => NOW,
  });
  client = await connect(KEY);
});
afterAll(async () => {
  await client?.close();
  await stack.close();
});

/** The route's answer over HTTP, as a REST client gets it. */
async function rest(path: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${stack.url}${path}`, { headers: { Authorization: `Bearer ${KEY}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const [content] = result.content as { type: string; text: string }[];
  // The text is the structured answer, for clients that read text only.
  expect(JSON.parse(content.text)).toEqual(result.structuredContent);
  return result;
}

describe('initialize and tools/list', () => {
  it('names the server and its version, and offers tools', () => {
    expect(client.getServerVersion()).toEqual({ name: 'market-data-api', version: openapiDocument.info.version });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain('search');
  });

  it('lists the tools of §15, each described by its routes’ summaries, taking their parameters', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_currency',
      'get_offer',
      'get_platform',
      'list_currencies',
      'list_offers',
      'list_platforms',
      'offer_changes',
      'offer_history',
      'search',
    ]);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('search')?.description).toBe(`${openapiDocument.paths['/api/v1/search'].get.summary}.`);
    const listOffers = byName.get('list_offers')!.inputSchema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(listOffers.required).toEqual(['family']);
    for (const name of [
      'asset',
      'platform',
      'chain',
      'sort',
      'min_apy',
      'include',
      'limit',
      'offset',
      'snapshot',
      'available',
      'is_active',
    ])
      expect(listOffers.properties).toHaveProperty(name);
    const history = byName.get('offer_history')!.inputSchema as unknown as {
      properties: { family: { enum: string[] } };
    };
    expect(history.properties.family.enum).toEqual(['earn', 'borrow']);
  });
});

describe('tools/call answers what the route answers', () => {
  it.each([
    ['search', { q: 'usdt' }, '/api/v1/search?q=usdt'],
    [
      'list_offers',
      { family: 'earn', asset: ['tether', 'bitcoin'], limit: 2 },
      '/api/v1/earn?asset=tether,bitcoin&limit=2',
    ],
    [
      'list_offers',
      { family: 'borrow', sort: 'apy_desc', include: 'apy_stats' },
      '/api/v1/borrow?sort=apy_desc&include=apy_stats',
    ],
    ['get_offer', { family: 'collateral', id: 3 }, '/api/v1/collateral/3'],
    ['offer_history', { family: 'earn', id: 1, period: '1w' }, '/api/v1/earn/1/history?period=1w'],
    ['offer_history', { family: 'borrow', ids: [1, 3], period: '3m' }, '/api/v1/borrow/history?ids=1,3&period=3m'],
    ['list_currencies', { limit: 2, offset: 1 }, '/api/v1/currencies?limit=2&offset=1'],
    ['list_platforms', { type: 'protocol' }, '/api/v1/protocols'],
    ['get_platform', { type: 'wallet', slug: 'trezor' }, '/api/v1/wallets/trezor'],
  ])('%s %j', async (name, args, path) => {
    const result = await call(name, args);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toEqual(await rest(path));
  });

  it('offer_changes: the changes since a version', async () => {
    const { pagination } = (await rest('/api/v1/earn?limit=1')) as { pagination: { snapshot: string } };
    const result = await call('offer_changes', { family: 'earn', since: pagination.snapshot });
    expect(result.structuredContent).toEqual(await rest(`/api/v1/earn/changes?since=${pagination.snapshot}`));
  });

  it('get_platform follows a former slug to the current record', async () => {
    const result = await call('get_platform', { type: 'exchange', slug: 'bybit-old' });
    expect(result.structuredContent).toEqual(await rest('/api/v1/exchanges/bybit'));
  });

  it('get_currency: the currency, and the counts of its offers instead of them', async () => {
    const result = await call('get_currency', { slug: 'bitcoin' });
    const { earn_offers, borrow_offers, collateral_offers, ...currency } = (await rest(
      '/api/v1/currencies/bitcoin',
    )) as Record<string, unknown[]>;
    expect(result.structuredContent).toEqual({
      ...currency,
      counts: {
        earn_offers: earn_offers.length,
        borrow_offers: borrow_offers.length,
        collateral_offers: collateral_offers.length,
      },
    });
    expect(earn_offers.length).toBeGreaterThan(0);
  });
});

describe('errors', () => {
  it('answers a route’s error as a result with isError and its envelope', async () => {
    const missing = await call('get_platform', { type: 'wallet', slug: 'no-such-wallet' });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toEqual({
      error: { code: 'not_found', message: 'No such wallet.', details: null },
    });
    const refused = await call('list_offers', { family: 'collateral', min_apy: '1', limit: 500 });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({
      error: {
        code: 'validation_error',
        details: { message: ['limit must not be greater than 200', 'property min_apy should not exist'] },
      },
    });
  });

  it.each([
    ['an unknown tool', 'no_such_tool', {}],
    ['a tool without the argument that chooses its route', 'list_offers', { limit: 5 }],
    ['a value no route has', 'list_offers', { family: 'staking' }],
    ['an argument the tool does not take', 'search', { q: 'eth', page: 2 }],
    ['a value of a type no parameter has', 'list_offers', { family: 'earn', asset: { slug: 'tether' } }],
  ])('answers %s with a JSON-RPC error (invalid params)', async (_, name, args) => {
    await expect(client.callTool({ name, arguments: args })).rejects.toMatchObject({ code: -32602 });
  });

  it.each([
    ['an unknown key', 'mcp_unknown_0123456789abcdefghijklmnop', 401],
    ['a key without a subscription', LAPSED, 403],
  ])('refuses %s as the authorizer does, before the protocol', async (_, key, status) => {
    await expect(connect(key)).rejects.toMatchObject({ code: status });
  });
});

describe('no stream and no session: every method but POST', () => {
  it('answers the GET the SDK client opens after initialize 405, which it takes for "no stream" and reports no error', async () => {
    const gets: Promise<Response>[] = [];
    const errors: Error[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${KEY}` } },
      fetch: (input, init) => {
        const answer = fetch(input, init);
        if ((init?.method ?? 'GET') === 'GET') gets.push(answer);
        return answer;
      },
    });
    const mcp = new Client({ name: 'market-data-test', version: '1.0.0' });
    mcp.onerror = (error) => errors.push(error);
    await mcp.connect(transport);
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
    expect(gets).toHaveLength(1);
    const answer = await gets[0];
    // What the client does with the answer runs on the promise's continuations: let them run.
    await new Promise((resolve) => setImmediate(resolve));
    await mcp.close();
    expect([answer.status, answer.headers.get('allow')]).toEqual([405, 'POST']);
    expect(errors).toEqual([]);
  });

  it.each(['GET', 'DELETE'])('answers %s /mcp 405 before the key is checked, uncharged', async (method) => {
    const answer = await fetch(`${stack.url}/mcp`, {
      method,
      headers: { Authorization: `Bearer ${METERED}`, Accept: 'text/event-stream' },
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expect(answer.headers.get('x-ratelimit-remaining')).toBeNull();
    expect(await answer.json()).toEqual({
      error: { code: 'method_not_allowed', message: 'This path takes POST only.', details: null },
    });
    const unknown = await fetch(`${stack.url}/mcp`, { method, headers: { Authorization: 'Bearer nope' } });
    expect(unknown.status).toBe(405);
  });
});

it('takes one budget unit a request, with the usage headers', async () => {
  const post = (id: number) =>
    fetch(`${stack.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${METERED}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
    });
  const first = await post(1);
  const second = await post(2);
  expect(first.status).toBe(200);
  expect(((await second.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
  expect(first.headers.get('x-ratelimit-remaining')).toBe('9');
  expect(second.headers.get('x-ratelimit-remaining')).toBe('8');
  expect(second.headers.get('x-quota-remaining')).not.toBeNull();
});
