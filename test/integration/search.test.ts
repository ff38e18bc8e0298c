/**
 * Search through the real handler on the embedded DynamoDB (docs/api.md, "Search"; CONTRACT §15):
 * ranks, the family order within a rank, former slugs, hidden and delisted records, validation,
 * one budget unit, and the records a version stores beside its blocks.
 */

import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentBlockKey, searchChunkName } from '../../shared/data/keys';
import { importDataset, readPointer } from '../../shared/import/importer';
import { withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable } from '../helpers/embedded';

type Dataset = ReturnType<typeof fixtureDataset>;

/** The fixture, with records that share the text `aave` across families and ranks. */
function dataset(): Dataset {
  const data = fixtureDataset();
  const [currency] = data.currencies;
  const coin = (slug: string, name: string, symbol: string, rank: number) => ({
    ...currency,
    slug,
    name,
    symbol,
    stats: { ...currency.stats, rank_by_market_cap: rank },
  });
  data.currencies.push(coin('staked-aave', 'Staked Aave', 'STKAAVE', 40), coin('aave-token', 'Aave Token', 'AAVE', 50));
  data.exchanges.push({ ...data.exchanges[0], slug: 'aavex', name: 'AaveX' });
  return data;
}

let table: TestTable;
let search: TestApi['search'];

beforeAll(async () => {
  table = await startTestTable();
  await importDataset(dataset(), { client: table.client, tableName: table.tableName, now: () => NOW });
  ({ search } = table.api({ clock: () => NOW }));
});
afterAll(() => table.close());

const find = (query: string) => invoke(search, apiEvent(`/api/v1/search?${query}`));
const found = async (query: string) => {
  const res = await find(query);
  expect(res.status).toBe(200);
  return (res.body.data as { type: string; slug: string }[]).map((hit) => `${hit.type}:${hit.slug}`);
};

describe('ranks', () => {
  it('answers the exact slug or symbol first, then prefixes, then names containing the text, currencies first within a rank', async () => {
    // Exact: the AAVE symbol (a currency) and the aave slug (a protocol); prefix: AaveX; contains: Staked Aave.
    expect(await found('q=aave')).toEqual([
      'currency:aave-token',
      'protocol:aave',
      'exchange:aavex',
      'currency:staked-aave',
    ]);
  });

  it('matches slugs, symbols and names whatever their case, and answers each record once, at its best rank', async () => {
    const res = await find('q=UsDt');
    expect(res.body).toEqual({ data: [{ type: 'currency', slug: 'tether', name: 'Tether', symbol: 'USDT' }] });
    expect(await found('q=AAVE%20token')).toEqual(['currency:aave-token']);
  });

  it('orders one rank by each family’s own list order: currencies by rank, exchanges by visits', async () => {
    // Prefixes: Bitcoin; Binance (1000 visits) before Bybit (800); then names containing `b`: Coinbase.
    expect(await found('q=b')).toEqual(['currency:bitcoin', 'exchange:binance', 'exchange:bybit', 'exchange:coinbase']);
    // Two names containing `ther`, in market-cap order: Ethereum (2) before Tether (3).
    expect(await found('q=ther')).toEqual(['currency:ethereum', 'currency:tether']);
    // A prefix of a slug outranks a name containing the text, whatever the family order says.
    expect(await found('q=no')).toEqual(['currency:no-rank', 'currency:also-no-rank']);
  });

  it('answers at most `limit` matches, the best ones', async () => {
    expect(await found('q=b&limit=2')).toEqual(['currency:bitcoin', 'exchange:binance']);
    expect(await found('q=a&limit=20')).toHaveLength(new Set(await found('q=a&limit=20')).size);
  });

  it('gives platforms a null symbol', async () => {
    const res = await find('q=kraken');
    expect(res.body.data).toEqual([{ type: 'exchange', slug: 'kraken', name: 'Kraken', symbol: null }]);
  });
});

describe('what is searched', () => {
  it('finds a record by a former slug and answers its current slug', async () => {
    expect(await found('q=tether-usd')).toEqual(['currency:tether']);
    expect(await found('q=MAKERDAO')).toEqual(['protocol:maker']);
    expect(await found('q=bybit-old')).toEqual(['exchange:bybit']);
  });

  it.each([
    ['an unpublished currency', 'secret'],
    ['an unpublished currency’s symbol', 'SEC'],
    ['a delisted currency', 'dead'],
    ['an unpublished exchange', 'hidden'],
    ['a delisted exchange and its former slug', 'gone'],
    ['a delisted wallet', 'bitbox'],
  ])('never matches %s', async (_, q) => {
    expect(await found(`q=${q}`)).toEqual([]);
  });

  it('matches the published record of a name an unpublished one shares', async () => {
    expect(await found('q=ledger')).toEqual(['wallet:ledger']);
  });
});

describe('validation', () => {
  it.each([
    ['', 'q is required'],
    ['q=', 'q must not be empty'],
    ['q=%20%20%20', 'q must not be empty'],
    [`q=${'a'.repeat(65)}`, 'q must not be longer than 64 characters'],
    ['q=aave&limit=0', 'limit must not be less than 1'],
    ['q=aave&limit=21', 'limit must not be greater than 20'],
    ['q=aave&limit=1.0', 'limit must be an integer'],
    ['q=aave&offset=1', 'property offset should not exist'],
    ['q=aave&q=b', 'q must not be repeated'],
  ])('refuses %j naming the parameter', async (query, message) => {
    const res = await find(query);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.message).toContain(message);
  });

  it('trims the text: 64 characters between blanks are taken', async () => {
    const text = `aave${'x'.repeat(60)}`;
    expect(await found(`q=%20${text}%20`)).toEqual([]);
  });
});

it('takes one unit of budget', async () => {
  const event = () => apiEvent('/api/v1/search?q=aave', { keyId: 'search-budget', perMinute: 10 });
  const first = await invoke(search, event());
  const second = await invoke(search, event());
  expect(Number(first.headers['x-ratelimit-remaining']) - Number(second.headers['x-ratelimit-remaining'])).toBe(1);
  expect(Number(second.headers['x-ratelimit-remaining'])).toBe(8);
});

it('stores each platform and currency version’s records beside its blocks, and deletes them with the version', async () => {
  const chunk = async (version: string) =>
    (
      await table.client.send(
        new GetCommand({ TableName: table.tableName, Key: documentBlockKey(searchChunkName(version, 0)) }),
      )
    ).Item;
  const before = (await readPointer(table.client, table.tableName))!.families.currencies!.version!;
  expect(await chunk(before)).toBeDefined();

  const renamed = dataset();
  renamed.currencies[0] = { ...renamed.currencies[0], name: 'Bitcoin Renamed' };
  const later = () => new Date(NOW.getTime() + 60_000);
  await importDataset(renamed, { client: table.client, tableName: table.tableName, now: later, retireAfterMs: 0 });
  // The next import that publishes deletes the replaced version, its records with it.
  renamed.exchanges[0] = { ...renamed.exchanges[0], name: 'Binance Renamed' };
  await importDataset(renamed, {
    client: table.client,
    tableName: table.tableName,
    now: later,
    retireAfterMs: 0,
    recordHistory: false,
  });
  const after = (await readPointer(table.client, table.tableName))!.families.currencies!.version!;
  expect(after).not.toBe(before);
  expect(await chunk(after)).toBeDefined();
  expect(await chunk(before)).toBeUndefined();
  expect(await found('q=renamed')).toEqual(['currency:bitcoin', 'exchange:binance']);
});

describe('a served version stored without search records (imported before versions carried them)', () => {
  let old: TestTable;
  beforeAll(async () => {
    old = await startTestTable();
    await importDataset(fixtureDataset(), { client: old.client, tableName: old.tableName, now: () => NOW });
  });
  afterAll(() => old.close());

  it('contributes nothing to a search, the other families answer', async () => {
    const version = (await readPointer(old.client, old.tableName))!.families.currencies!.version!;
    await old.client.send(
      new DeleteCommand({ TableName: old.tableName, Key: documentBlockKey(searchChunkName(version, 0)) }),
    );
    const res = await invoke(old.api({ clock: () => NOW }).search, apiEvent('/api/v1/search?q=b'));
    expect(res.body.data.map((hit: { slug: string }) => hit.slug)).toEqual(['binance', 'bybit', 'coinbase']);
  });
});

describe('the pointer read ahead (ADR 0019)', () => {
  let ahead: TestTable;
  beforeAll(async () => {
    ahead = await startTestTable();
    await importDataset(dataset(), { client: ahead.client, tableName: ahead.tableName, now: () => NOW });
  });
  afterAll(() => ahead.close());

  /** A search and what it read: its GetItem and BatchGetItem calls (its quota counter is an UpdateItem). */
  const searched = async (api: TestApi, q: string) => {
    const { result, accounting } = await withRequestAccounting(() =>
      invoke(api.search, apiEvent(`/api/v1/search?q=${q}`)),
    );
    expect(result.status).toBe(200);
    const { calls } = accounting;
    return {
      slugs: (result.body.data as { slug: string }[]).map((hit) => hit.slug),
      reads: calls.filter((call) => call.command !== 'UpdateItem').length,
      readCapacity: accounting.summary().readCapacity,
    };
  };

  it('reads a new catalog version’s search records before a search names it: the first search after a publish reads nothing but its quota counter', async () => {
    const CACHE_MS = 10_000;
    const published = NOW.getTime() + 60_000;
    let now = published;
    const warm = ahead.api({ clock: () => new Date(now), env: { SNAPSHOT_CACHE_MS: String(CACHE_MS) } });
    const cold = await searched(warm, 'renamed');
    // A version's first search on an instance reads its chunks (and the pointer).
    expect(cold.reads).toBeGreaterThan(1);
    const warmed = await searched(warm, 'renamed');
    expect(warmed).toMatchObject({ slugs: [], reads: 0 });

    const renamed = dataset();
    renamed.currencies[0] = { ...renamed.currencies[0], name: 'Bitcoin Renamed' };
    renamed.exchanges[0] = { ...renamed.exchanges[0], name: 'Binance Renamed' };
    await importDataset(renamed, { client: ahead.client, tableName: ahead.tableName, now: () => new Date(published) });

    // From half the pointer's cache time: answered from the cached pointer, the new one read beside it.
    now += CACHE_MS / 2;
    expect(await searched(warm, 'renamed')).toMatchObject({ slugs: [], reads: 0 });
    await warm.deps.stores.snapshot.settled();

    const first = await searched(warm, 'renamed');
    expect(first).toEqual({ slugs: ['bitcoin', 'binance'], reads: 0, readCapacity: warmed.readCapacity });
    // An instance that did not read ahead pays the reads at its first search of the version.
    const fresh = await searched(ahead.api({ clock: () => new Date(now) }), 'renamed');
    expect(fresh.slugs).toEqual(first.slugs);
    expect(fresh.reads).toBeGreaterThan(1);
  });
});
