/**
 * A list's total travels with its page (docs/data-model.md, "Access patterns"): every member of a
 * view carries the view's size, so a page is one Query and no read of the view's aggregate item.
 * A page past the end, and a version written before members carried the size, read the aggregate
 * item after the page; the answers are the same either way.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { importDataset } from '../../shared/import/importer';
import { VIEW_ATTRIBUTE, VIEW_SIZE_ATTRIBUTE } from '../../shared/keys';
import { withRequestAccounting } from '../../shared/observability/dynamo-accounting';
import { fixtureDataset } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestApi, type TestTable } from '../helpers/embedded';
import { injectFaults, type Call } from '../helpers/faults';

let table: TestTable;
let api: TestApi;

beforeAll(async () => {
  table = await startTestTable();
  await importDataset(fixtureDataset(), { client: table.client, tableName: table.tableName });
  // Warm, as the service runs: the served versions cached, the data read on every request.
  api = table.api({ env: { READ_CACHE_MB: '0', SNAPSHOT_CACHE_MS: '600000' } });
});
afterAll(() => table.close());

const FUNCTION_OF = { exchanges: 'platforms', currencies: 'currencies', earn: 'offers', borrow: 'offers', collateral: 'offers' } as const;
type ListFamily = keyof typeof FUNCTION_OF;

/** A request's data reads (the quota's counter writes left out) and its round trips. */
async function observe(family: ListFamily, path: string) {
  const handler = api[FUNCTION_OF[family]];
  await invoke(handler, apiEvent(path));
  const calls: Call[] = [];
  const capture = injectFaults(table.clients(), (call) => void calls.push(call));
  try {
    const { result, accounting } = await withRequestAccounting(() => invoke(handler, apiEvent(path)));
    expect(result.status).toBe(200);
    return { body: result.body, reads: calls.filter((c) => c.command !== 'UpdateItemCommand').map((c) => c.command).sort(), roundTrips: accounting.summary().roundTrips };
  } finally {
    capture.remove();
  }
}

/** The list's length, counted from its items (every list of the fixture fits one page of 200). */
async function counted(family: ListFamily, query: string): Promise<number> {
  const { body } = await observe(family, `/api/v1/${family}?${query}${query ? '&' : ''}limit=200`);
  expect(body.data.length).toBeLessThan(200);
  return body.data.length;
}

const LISTS: [ListFamily, string][] = [
  ['exchanges', ''],
  ['currencies', ''],
  ['earn', ''],
  ['earn', 'asset=bitcoin'],
  ['earn', 'platform_type=exchange&asset=bitcoin'],
  ['borrow', 'sort=apy_desc'],
  ['collateral', 'platform=binance'],
];

it.each(LISTS)('%s?%s: a page is one Query, and its total is the length of the list', async (family, query) => {
  const total = await counted(family, query);
  expect(total).toBeGreaterThan(1);
  const { body, reads, roundTrips } = await observe(family, `/api/v1/${family}?${query}${query ? '&' : ''}limit=1&offset=1`);
  expect(body.data).toHaveLength(1);
  expect(body.pagination).toMatchObject({ total, has_more: total > 2 });
  expect(reads).toEqual(['QueryCommand']);
  expect(roundTrips).toBe(1);
});

it('a page past the end reads the view size after the page, and reports the total', async () => {
  const total = await counted('earn', '');
  const { body, reads, roundTrips } = await observe('earn', `/api/v1/earn?offset=${total + 5}`);
  expect(body.data).toEqual([]);
  expect(body.pagination).toMatchObject({ total, has_more: false });
  expect(reads).toEqual(['GetItemCommand', 'QueryCommand']);
  expect(roundTrips).toBe(2);
});

it('an empty view answers total 0 from its first page alone', async () => {
  const { body, reads } = await observe('earn', '/api/v1/earn?asset=no-such-asset');
  expect(body).toMatchObject({ data: [], pagination: { total: 0, has_more: false } });
  expect(reads).toEqual(['QueryCommand']);
});

it.each([
  // The bound alone: no position range to read.
  ['apy_asc', ['QueryCommand']],
  // The bound and the first page, in parallel.
  ['apy_desc', ['QueryCommand', 'QueryCommand']],
])('min_apy above every offer, %s: total 0 without a view size', async (sort, expected) => {
  const { body, reads, roundTrips } = await observe('earn', `/api/v1/earn?min_apy=1e9&sort=${sort}`);
  expect(body).toMatchObject({ data: [], pagination: { total: 0, has_more: false } });
  expect(reads).toEqual(expected);
  expect(roundTrips).toBe(1);
});

it('min_apy with tvl_desc takes the view size from the first match', async () => {
  const { body, reads } = await observe('earn', '/api/v1/earn?min_apy=0&sort=tvl_desc&limit=1');
  expect(body.pagination.total).toBe(await counted('earn', ''));
  expect(reads.every((command) => command === 'QueryCommand')).toBe(true);
});

it('a currency detail reads its record and one Query per offer family, no view sizes', async () => {
  const { body, reads, roundTrips } = await observe('currencies', '/api/v1/currencies/bitcoin');
  expect(body.earn_offers.length).toBeGreaterThan(0);
  expect(reads).toEqual(['GetItemCommand', 'QueryCommand', 'QueryCommand', 'QueryCommand']);
  expect(roundTrips).toBe(1);
});

// Last: it rewrites the stored earn views.
it('a version written before members carried the size answers the same, reading the view size beside', async () => {
  const before = await observe('earn', '/api/v1/earn?limit=2&offset=1');
  const filtered = await observe('earn', '/api/v1/earn?asset=bitcoin&limit=1');
  const members = (await table.items()).filter((item) => String(item[VIEW_ATTRIBUTE] ?? '').includes('#earn') && item[VIEW_SIZE_ATTRIBUTE] !== undefined);
  expect(members.length).toBeGreaterThan(0);
  for (const { PK, SK } of members) {
    await table.client.send(new UpdateCommand({ TableName: table.tableName, Key: { PK, SK }, UpdateExpression: 'REMOVE #n', ExpressionAttributeNames: { '#n': VIEW_SIZE_ATTRIBUTE } }));
  }
  const after = await observe('earn', '/api/v1/earn?limit=2&offset=1');
  expect(after.body).toEqual(before.body);
  expect(after.reads).toEqual(['GetItemCommand', 'QueryCommand']);
  expect((await observe('earn', '/api/v1/earn?asset=bitcoin&limit=1')).body).toEqual(filtered.body);
});
