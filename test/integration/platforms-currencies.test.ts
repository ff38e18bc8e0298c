/**
 * Platform and currency lists and details through the real handlers on the embedded DynamoDB
 * (docs/api.md: "Parameters", "Orderings", "Visibility and platform references").
 */
import { importDataset } from '../../shared/import/importer';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable } from '../helpers/embedded';

let table: TestTable;
let platforms: TestApi['platforms'], currencies: TestApi['currencies'];

beforeAll(async () => {
  table = await startTestTable();
  await importDataset(fixtureDataset(), { client: table.client, tableName: table.tableName, now: () => NOW });
  ({ platforms, currencies } = table.api({ clock: () => NOW }));
});
afterAll(() => table.close());

const slugs = (body: { data: { slug: string }[] }) => body.data.map((r) => r.slug);
const list = (path: string) => invoke(path.includes('currencies') ? currencies : platforms, apiEvent(path));

describe('orderings', () => {
  it('orders exchanges by weekly visits descending, ties by slug, nulls last', async () => {
    expect(slugs((await list('/api/v1/exchanges')).body)).toEqual(['binance', 'bybit', 'coinbase', 'kraken', 'okx']);
  });

  it('orders wallets by lowercased name, then slug', async () => {
    expect(slugs((await list('/api/v1/wallets')).body)).toEqual(['argent', 'ledger', 'trezor', 'zengo']);
  });

  it('orders protocols by exact TVL descending, nulls last', async () => {
    // lido's TVL has 42 digits, compound's differs from aave's in the 24th decimal: no float gets these right.
    expect(slugs((await list('/api/v1/protocols')).body)).toEqual(['lido', 'aave', 'maker', 'compound', 'curve']);
  });

  it('orders currencies by market-cap rank ascending, nulls last by slug', async () => {
    expect(slugs((await list('/api/v1/currencies')).body)).toEqual([
      'bitcoin',
      'ethereum',
      'tether',
      'also-no-rank',
      'no-rank',
    ]);
  });
});

describe('pagination', () => {
  it('applies limit and offset with an exact total', async () => {
    const res = await list('/api/v1/exchanges?limit=2&offset=1');
    expect(slugs(res.body)).toEqual(['bybit', 'coinbase']);
    expect(res.body.pagination).toEqual({
      total: 5,
      offset: 1,
      limit: 2,
      has_more: true,
      snapshot: expect.any(String),
    });
  });

  it('says there is no more on the last page and past the end', async () => {
    expect((await list('/api/v1/exchanges?limit=2&offset=3')).body.pagination).toEqual({
      total: 5,
      offset: 3,
      limit: 2,
      has_more: false,
      snapshot: expect.any(String),
    });
    const past = await list('/api/v1/exchanges?offset=10');
    expect(past.body).toEqual({
      data: [],
      pagination: { total: 5, offset: 10, limit: 50, has_more: false, snapshot: expect.any(String) },
    });
  });

  it.each([
    ['limit=0', 'limit must not be less than 1'],
    ['limit=201', 'limit must not be greater than 200'],
    ['limit=99999999999999999999', 'limit must not be greater than 200'],
    ['limit=abc', 'limit must be an integer'],
    ['limit=+5', 'limit must be an integer'],
    ['limit=1.0', 'limit must be an integer'],
    ['offset=-1', 'offset must not be less than 0'],
    ['offset=-0', 'offset must be an integer'],
    ['offset=', 'offset must not be empty'],
    ['limit=5&limit=6', 'limit must not be repeated'],
    ['sort=apy_desc', 'property sort should not exist'],
  ])('refuses %s', async (query, message) => {
    const res = await list(`/api/v1/currencies?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: 'validation_error',
      message: expect.any(String),
      details: { message: [message] },
    });
  });
});

describe('details', () => {
  it('returns a platform with its family type', async () => {
    const res = await list('/api/v1/wallets/ledger');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'wallet',
      slug: 'ledger',
      name: 'Ledger',
      updated_at: '2026-11-01T00:00:00.000Z',
    });
  });

  it('redirects a former slug to the current one, query string kept', async () => {
    const res = await list('/api/v1/exchanges/bybit-old?limit=5&x=%20y');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/api/v1/exchanges/bybit?limit=5&x=%20y');
    expect(res.raw).toBe('');
  });

  it('redirects a former currency slug', async () => {
    const res = await list('/api/v1/currencies/tether-usd');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/api/v1/currencies/tether');
  });

  it.each([
    '/api/v1/exchanges/hidden-ex',
    '/api/v1/exchanges/gone-ex',
    '/api/v1/exchanges/gone-old',
    '/api/v1/exchanges/nope',
    '/api/v1/wallets/bitbox',
    '/api/v1/wallets/ledger-live',
    '/api/v1/protocols/binance',
    '/api/v1/currencies/secret-coin',
    '/api/v1/currencies/dead-coin',
  ])('answers 404 not_found for %s', async (path) => {
    const res = await list(path);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('validates the query before the lookup, after the redirect', async () => {
    expect((await list('/api/v1/exchanges/nope?limit=5')).status).toBe(400);
    expect((await list('/api/v1/exchanges/bybit-old?limit=5')).status).toBe(301);
  });

  it('never lists hidden or delisted records', async () => {
    const all = await Promise.all(
      ['exchanges', 'wallets', 'protocols', 'currencies'].map((f) => list(`/api/v1/${f}?limit=200`)),
    );
    const listed = all.flatMap((res) => slugs(res.body));
    for (const hidden of ['hidden-ex', 'gone-ex', 'ledger-live', 'bitbox', 'secret-coin', 'dead-coin'])
      expect(listed).not.toContain(hidden);
  });
});
