/**
 * CSV answers (CONTRACT §12, docs/api.md "CSV") through the local gateway on the embedded
 * DynamoDB, read back with a real RFC 4180 parser (csv-parse) and compared field by field with the
 * JSON answer of the same request: offer lists with filters, sorts, paging and `snapshot` (after a
 * newer import), history windows of one offer and of several; names with commas, quotes and line breaks and a formula-looking
 * name from the data file; the pagination headers; `Vary`, an ETag per representation and `304`
 * for each; gzip; errors that stay JSON; and the DynamoDB work, the same as the JSON answer's.
 */
import { parse } from 'csv-parse/sync';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { importDataset } from '../../shared/import/importer';
import { setLogSink } from '../../shared/platform/logger';
import { NOW } from '../fixtures/dataset';
import { type Dataset, offersDataset, revise } from '../fixtures/offers-1-2';
import { get, type TestResponse } from '../helpers/client';

const KEY = 'csv_key_0123456789abcdefghijklmnopqrstu';
const CSV = { Accept: 'text/csv' };
const HOUR = 3_600_000;

type Json = Record<string, any>;

/** Names a spreadsheet or a naive split would get wrong, put in the data file itself. */
const TRICKY: Record<number, Json> = {
  1: { product_name: '=HYPERLINK("http://x","y")', compositeKey: '+SUM(1,2)' },
  4: { product_name: 'Comma, "quoted"\r\nand\nbroken lines', link: '@evil' },
  7: { product_name: '-5', compositeKey: '-2+3', link: '\tindented' },
};

function dataset(): Dataset {
  const data = offersDataset(30, 21) as Json;
  for (const offer of data.earn_offers as Json[]) {
    Object.assign(offer, TRICKY[offer.id] ?? {}, { published: true });
    if (offer.id === 1) {
      offer.apy = '-0.5';
      offer.reward_assets = [
        { slug: 'aave', symbol: 'AAVE', name: 'Aave' },
        { slug: 'comp', symbol: 'COMP', name: 'Compound, "governance"' },
      ];
    }
  }
  const hourly = (count: number, apy: (i: number) => string, tvl: (i: number) => string | null) =>
    Array.from({ length: count }, (_, i) => ({
      timestamp: new Date(NOW.getTime() - (count - i) * HOUR).toISOString(),
      apy: apy(i),
      tvl: tvl(i),
    }));
  data.earn_history = [
    {
      offer_id: 1,
      points: hourly(
        30,
        (i) => (i % 3 === 0 ? '-0.5' : `4.${i}0`),
        (i) => (i % 4 ? `100${i}.5` : null),
      ),
    },
    {
      offer_id: 4,
      points: hourly(
        5,
        (i) => String(i),
        () => '7',
      ),
    },
  ];
  data.borrow_history = [
    {
      offer_id: 1,
      points: hourly(
        10,
        (i) => `-${i}.25`,
        () => null,
      ).map(({ tvl: _tvl, ...p }) => p),
    },
  ];
  return data as Dataset;
}

const A = dataset();
const B = revise(A, 22).dataset;

let stack: LocalStack;
let lines: string[] = [];

beforeAll(async () => {
  stack = await startLocalStack({
    dataset: A,
    accounts: { users: [{ id: 'c', premium: true, keys: [{ key: KEY, per_minute: 100_000, per_month: 10_000_000 }] }] },
    // No cache: the CSV and the JSON answer of a request each do the reads the request needs.
    env: { SNAPSHOT_CACHE_MS: '0', READ_CACHE_MB: '0' },
    clock: () => NOW,
  });
  setLogSink((line) => lines.push(line));
}, 120_000);
afterAll(async () => {
  setLogSink(() => undefined);
  await stack?.close();
});

const request = (path: string, headers: Record<string, string> = {}) => get(stack.url, path, { key: KEY, headers });

/** The rows of a CSV answer as objects by header name, parsed strictly (RFC 4180, CRLF records). */
function records(res: TestResponse): Record<string, string>[] {
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.raw.endsWith('\r\n')).toBe(true);
  expect(res.raw.charCodeAt(0)).not.toBe(0xfeff);
  const [header, ...rows] = parse(res.raw, { record_delimiter: '\r\n', relax_quotes: false }) as string[][];
  for (const row of rows) expect(row).toHaveLength(header.length);
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
}

/**
 * What §12 says a JSON value becomes in a field: null empty, references as slugs joined by `|`,
 * text that would start a formula (and is not a decimal) with a leading `'`, anything else as JSON
 * writes it.
 */
function expectedField(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return expectedField(value.map((ref: Json) => ref.slug).join('|') || null);
  const text = String(value);
  return /^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
}

const at = (value: Json, path: string): unknown =>
  path.split('.').reduce<unknown>((v, key) => (v === null || v === undefined ? null : (v as Json)[key]), value);

/** Every leaf of a JSON value by dotted path (arrays are leaves), `null` objects included as leaves. */
const leaves = (value: Json, prefix = ''): string[] =>
  Object.entries(value).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? leaves(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );

/** The CSV rows equal the JSON values, field by field, and no field of the JSON is missing. */
function expectSameRows(rows: Record<string, string>[], values: Json[]) {
  expect(rows).toHaveLength(values.length);
  values.forEach((value, i) => {
    const row = rows[i];
    for (const column of Object.keys(row))
      expect([column, row[column]]).toEqual([column, expectedField(at(value, column))]);
    for (const leaf of leaves(value).filter((path) => at(value, path) !== null))
      expect(Object.keys(row)).toContain(leaf);
  });
}

async function both(path: string): Promise<{ json: TestResponse; csv: TestResponse }> {
  const [json, csv] = await Promise.all([request(path), request(path, CSV)]);
  expect([json.status, csv.status]).toEqual([200, 200]);
  return { json, csv };
}

const LISTS = [
  '/api/v1/earn',
  '/api/v1/earn?sort=apy_asc&limit=7&offset=3',
  '/api/v1/earn?chain=ethereum,arbitrum&min_apy=3&sort=tvl_desc&limit=5',
  '/api/v1/earn?asset=tether,usd-coin&available=true&sort=updated_desc',
  '/api/v1/earn?ids=1,4,7,10&sort=apy_desc',
  '/api/v1/borrow?min_tvl=1e6&is_active=true&limit=4&offset=2',
  '/api/v1/borrow?platform_type=protocol,exchange&sort=apy_asc',
  '/api/v1/collateral?is_active=true&limit=3&offset=1',
  '/api/v1/collateral?chain=base&sort=updated_desc',
];

describe('offer lists', () => {
  it.each(LISTS)('%s: the CSV is the JSON page, field by field, with its pagination in headers', async (path) => {
    const { json, csv } = await both(path);
    expectSameRows(records(csv), json.body.data);
    const { total, snapshot } = json.body.pagination;
    expect(csv.headers['x-total-count']).toBe(String(total));
    expect(csv.headers['x-snapshot']).toBe(snapshot);
    expect(csv.headers.link).toBe(json.headers.link);
    expect(csv.headers['last-modified']).toBe(json.headers['last-modified']);
  });

  it('keeps the data file names as text: commas, quotes and line breaks round-trip, a formula gets a leading quote', async () => {
    const rows = records(await request('/api/v1/earn?ids=1,4,7', CSV));
    const byId = Object.fromEntries(rows.map((row) => [row.id, row]));
    expect(byId['1'].product_name).toBe(`'=HYPERLINK("http://x","y")`);
    expect(byId['1'].compositeKey).toBe(`'+SUM(1,2)`);
    expect(byId['1'].apy).toBe('-0.5');
    expect(byId['1'].reward_assets).toBe('aave|comp');
    expect(byId['4'].product_name).toBe('Comma, "quoted"\r\nand\nbroken lines');
    expect(byId['4'].link).toBe("'@evil");
    // A name that is a decimal is a number to a spreadsheet too, not a formula: left as it is.
    expect(byId['7'].product_name).toBe('-5');
    expect(byId['7'].compositeKey).toBe("'-2+3");
    expect(byId['7'].link).toBe("'\tindented");
  });

  it('reads a pinned version after a newer import, as the JSON answer does', async () => {
    const before = await request('/api/v1/earn?limit=10&sort=apy_desc');
    const snapshot = before.body.pagination.snapshot as string;
    await importDataset(B, { client: stack.clients.client, tableName: stack.tableName, now: () => NOW });
    const path = `/api/v1/earn?limit=10&sort=apy_desc&snapshot=${snapshot}`;
    const { json, csv } = await both(path);
    expect(json.body.data).toEqual(before.body.data);
    expectSameRows(records(csv), json.body.data);
    expect(csv.headers['x-snapshot']).toBe(snapshot);
    expect((await request('/api/v1/earn?limit=10&sort=apy_desc', CSV)).headers['x-snapshot']).not.toBe(snapshot);
  });

  it('follows Link with Accept: text/csv through every page of one version', async () => {
    const first = await request('/api/v1/borrow?limit=4', CSV);
    const all: Record<string, string>[] = [...records(first)];
    let next = /<([^>]*)>; rel="next"/.exec(first.headers.link ?? '')?.[1];
    while (next) {
      const page = await request(next, CSV);
      all.push(...records(page));
      next = /<([^>]*)>; rel="next"/.exec(page.headers.link ?? '')?.[1];
    }
    expect(all.map((r) => Number(r.id))).toHaveLength(Number(first.headers['x-total-count']));
    const whole = await request(`/api/v1/borrow?limit=200&snapshot=${first.headers['x-snapshot']}`);
    expectSameRows(all, whole.body.data);
  });
});

describe('history', () => {
  it.each([
    ['earn', 1, '24h'],
    ['earn', 1, '1w'],
    ['earn', 4, 'all'],
    ['borrow', 1, '24h'],
    ['earn', 7, '24h'],
  ])('%s %s period=%s: one row per point, the offer id first, equal to the JSON points', async (family, id, period) => {
    const { json, csv } = await both(`/api/v1/${family}/${id}/history?period=${period}`);
    const rows = records(csv);
    const expected = (json.body.data as Json[]).map((point) => ({ id: String(id), ...point }));
    expect(Object.keys(rows[0] ?? {})).toEqual(rows.length ? Object.keys(expected[0]) : []);
    expectSameRows(rows, expected);
    expect(csv.raw.split('\r\n')[0]).toBe(family === 'earn' ? 'id,timestamp,apy,tvl' : 'id,timestamp,apy');
    expect(csv.headers.etag).toBeUndefined();
  });

  it.each([
    ['earn', '4,7,1,999', 'period=1w'],
    ['earn', '1,4', 'from=2026-11-19T09:00:00Z&interval=4h'],
    ['borrow', '2,1', 'period=24h'],
  ])(
    "%s ids=%s %s: every entry's points in the order of ids, each row with its offer id, equal to the JSON answer",
    async (family, ids, window) => {
      const { json, csv } = await both(`/api/v1/${family}/history?ids=${ids}&${window}`);
      const expected = (json.body.data as Json[]).flatMap((entry) =>
        (entry.data as Json[]).map((point) => ({ id: String(entry.id), ...point })),
      );
      const rows = records(csv);
      expect(Object.keys(rows[0])).toEqual(Object.keys(expected[0]));
      expectSameRows(rows, expected);
      expect(csv.headers.vary).toBe('Accept, Accept-Encoding');
    },
  );

  it('writes the rows of several offers, the first id first', async () => {
    const rows = records(await request('/api/v1/earn/history?ids=4,1&period=1w', CSV));
    const ids = [...new Set(rows.map((r) => r.id))];
    expect(ids).toEqual(['4', '1']);
  });

  it('writes the negative decimals of the file byte for byte, then the value the import recorded at NOW', async () => {
    const rows = records(await request('/api/v1/borrow/1/history?period=24h', CSV));
    const offer = A.borrow_offers.find((o) => o.id === 1)!;
    expect(rows.map((r) => r.apy)).toEqual([...Array.from({ length: 10 }, (_, i) => `-${i}.25`), offer.net_borrow_apy]);
    // In the bucket of NOW's hour, which a 1 h point is dated by.
    expect(rows.at(-1)!.timestamp).toBe(new Date(Math.floor(NOW.getTime() / HOUR) * HOUR).toISOString());
  });
});

describe('negotiation and caching', () => {
  it('says Vary: Accept on both representations, and JSON stays the answer of 1.2 byte for byte', async () => {
    const [plain, json, any, csv] = await Promise.all([
      request('/api/v1/earn?limit=5'),
      request('/api/v1/earn?limit=5', { Accept: 'application/json' }),
      request('/api/v1/earn?limit=5', { Accept: 'text/*, */*' }),
      request('/api/v1/earn?limit=5', CSV),
    ]);
    for (const res of [plain, json, any, csv]) expect(res.headers.vary).toBe('Accept, Accept-Encoding');
    expect(json.raw).toBe(plain.raw);
    expect(any.raw).toBe(plain.raw);
    expect([json.headers.etag, any.headers.etag]).toEqual([plain.headers.etag, plain.headers.etag]);
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(plain.headers['x-total-count']).toBeUndefined();
    expect(csv.headers.etag).not.toBe(plain.headers.etag);
    const history = await request('/api/v1/earn/1/history?period=24h');
    expect(history.headers.vary).toBe('Accept, Accept-Encoding');
  });

  it('answers 304 to each representation with its own ETag only', async () => {
    const path = '/api/v1/collateral?limit=5';
    const { json, csv } = await both(path);
    const csvAgain = await request(path, { ...CSV, 'If-None-Match': csv.headers.etag });
    expect(csvAgain.status).toBe(304);
    expect(csvAgain.raw).toBe('');
    expect(csvAgain.headers.etag).toBe(csv.headers.etag);
    expect(csvAgain.headers.vary).toBe('Accept, Accept-Encoding');
    const jsonAgain = await request(path, { 'If-None-Match': json.headers.etag });
    expect(jsonAgain.status).toBe(304);
    const crossed = await request(path, { ...CSV, 'If-None-Match': json.headers.etag });
    expect(crossed.status).toBe(200);
    expect(crossed.raw).toBe(csv.raw);
    const crossedBack = await request(path, { 'If-None-Match': csv.headers.etag });
    expect(crossedBack.status).toBe(200);
    expect(crossedBack.raw).toBe(json.raw);
  });

  it('compresses a large CSV like any answer, with its own tag', async () => {
    const path = '/api/v1/earn?limit=30';
    const plain = await request(path, CSV);
    const gzip = await request(path, { ...CSV, 'Accept-Encoding': 'gzip' });
    expect(Buffer.byteLength(plain.raw)).toBeGreaterThan(1024);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.raw).toBe(plain.raw);
    expect(gzip.headers.etag).toBe(plain.headers.etag.replace(/"$/, '-gzip"'));
  });

  it('keeps errors as JSON envelopes', async () => {
    const invalid = await request('/api/v1/earn?limit=0', CSV);
    expect(invalid.status).toBe(400);
    expect(invalid.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(invalid.body.error.code).toBe('validation_error');
    const missing = await request('/api/v1/earn/999999/history', CSV);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const collateral = await request('/api/v1/collateral/1/history', CSV);
    expect(collateral.status).toBe(404);
    expect(collateral.body.error.code).toBe('not_found');
    const gone = await request('/api/v1/borrow?snapshot=v19990101T0000Z-dead', CSV);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('snapshot_expired');
  });
});

describe('cost', () => {
  /** The DynamoDB work of one request, from its request-metrics line. */
  async function workOf(path: string, headers: Record<string, string>) {
    lines = [];
    expect((await request(path, headers)).status).toBe(200);
    const [emf] = lines.map((line) => JSON.parse(line)).filter((entry) => entry._aws !== undefined);
    return { reads: emf.ConsumedReadCapacity, calls: emf.DynamoCalls, roundTrips: emf.RoundTrips };
  }

  it.each([
    '/api/v1/earn?limit=50&sort=tvl_desc&chain=ethereum',
    '/api/v1/collateral?limit=2',
    '/api/v1/earn/1/history?period=1w',
  ])('%s: the CSV answer does the DynamoDB work of the JSON one', async (path) => {
    const json = await workOf(path, {});
    const csv = await workOf(path, CSV);
    expect(json.reads).toBeGreaterThan(0);
    expect(csv).toEqual(json);
  });
});
