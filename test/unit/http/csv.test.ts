/**
 * The CSV representation (shared/http/csv.ts; CONTRACT §12, docs/api.md "CSV"), read back with a
 * real RFC 4180 parser (csv-parse): the columns of each family from its schema, fields with
 * commas, quotes and line breaks, the formula rule (text that would run as a formula keeps a
 * leading `'`, decimals never do), `null` as an empty field, history rows with the offer id first,
 * and which Accept values ask for CSV.
 */
import { parse } from 'csv-parse/sync';
import * as z from 'zod/mini';
import { apiEvent } from '../../../local/events';
import { acceptsCsv, columnsOf, csvField, historyCsv, offerColumnsOf, offersCsv } from '../../../shared/http/csv';
import type { ApiEvent } from '../../../shared/http/http';

/** The rows of a CSV text as csv-parse reads it (strict RFC 4180: quotes, CRLF, no BOM). */
const rows = (text: string): string[][] => parse(text, { bom: false, relax_quotes: false, record_delimiter: '\r\n' });

const ref = (slug: string) => ({ slug, symbol: slug.toUpperCase(), name: `${slug} name` });

const earnOffer = (overrides: Record<string, unknown> = {}) => ({
  id: 7,
  compositeKey: 'earn:7',
  platform: { type: 'exchange', slug: 'binance', name: 'Binance' },
  chain: null,
  asset: ref('tether'),
  reward_assets: [ref('aave'), ref('compound')],
  product_type: 'flexible',
  product_name: 'Simple Earn',
  duration_days: null,
  apy: '-0.5',
  estimated_apy: '5.50',
  estimated_apy_updated_at: '2026-11-20T10:00:00.000Z',
  tvl: '12345678901234567890.000000000000000001',
  min_amount: null,
  max_amount: '1000',
  available: true,
  available_updated_at: '2026-11-20T10:00:00.000Z',
  link: 'https://example.com/earn/7',
  updated_at: '2026-11-20T10:00:00.000Z',
  ...overrides,
});

describe('columns', () => {
  it('flattens the earn schema in field order: objects with dots, reward_assets as one column', () => {
    expect(offerColumnsOf('earn').map((c) => c.name)).toEqual([
      'id',
      'compositeKey',
      'platform.type',
      'platform.slug',
      'platform.name',
      'chain.slug',
      'chain.symbol',
      'chain.name',
      'asset.slug',
      'asset.symbol',
      'asset.name',
      'reward_assets',
      'product_type',
      'product_name',
      'duration_days',
      'apy',
      'estimated_apy',
      'estimated_apy_updated_at',
      'tvl',
      'min_amount',
      'max_amount',
      'available',
      'available_updated_at',
      'link',
      'updated_at',
    ]);
  });

  it('gives borrow and collateral a column for every scalar of their schemas', () => {
    for (const family of ['borrow', 'collateral'] as const) {
      const names = offerColumnsOf(family).map((c) => c.name);
      expect(names.slice(0, 2)).toEqual(['id', 'compositeKey']);
      expect(names).toEqual(expect.arrayContaining(['platform.slug', 'asset.symbol', 'is_active', 'updated_at']));
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it('refuses a field it cannot write as one column (an array of plain objects, a record)', () => {
    expect(() => columnsOf({ things: z.array(z.object({ name: z.string() })) })).toThrow('things');
    expect(() => columnsOf({ map: z.record(z.string(), z.string()) })).toThrow('map');
  });
});

describe('csvField', () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+1+2', "'+1+2"],
    ['-cmd', "'-cmd"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\r=1', `"'\r=1"`],
  ])('keeps %j as text with a leading quote', (value, field) => {
    expect(csvField(value)).toBe(field);
  });

  it.each(['-0.5', '-1', '-12345678901234567890.000000000000000001', '0', '5.50'])(
    'never alters the decimal %s',
    (value) => {
      expect(csvField(value)).toBe(value);
    },
  );

  it('quotes a field with a comma, a quote or a line break, doubling quotes; null is empty', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(9007199254740991)).toBe('9007199254740991');
    expect(csvField(false)).toBe('false');
    expect(csvField('a=b')).toBe('a=b');
  });
});

describe('offersCsv', () => {
  const tricky = [
    earnOffer(),
    earnOffer({
      id: 8,
      platform: null,
      reward_assets: [],
      product_name: 'Comma, "quoted"\r\nand\nbroken',
      compositeKey: '=HYPERLINK("http://x","y")',
      link: '@evil',
    }),
  ];
  const text = offersCsv(
    'earn',
    tricky.map((o) => JSON.stringify(o)),
  );

  it('is a header row and one CRLF-ended row per offer, without BOM', () => {
    expect(text.startsWith('id,compositeKey,platform.type,')).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.charCodeAt(0)).not.toBe(0xfeff);
    const parsed = rows(text);
    expect(parsed).toHaveLength(3);
    expect(parsed.every((row) => row.length === offerColumnsOf('earn').length)).toBe(true);
  });

  it('reads back as the JSON values: dotted fields, slugs joined by |, null empty, decimals byte-exact', () => {
    const [header, first, second] = rows(text);
    const one = Object.fromEntries(header.map((name, i) => [name, first[i]]));
    expect(one).toMatchObject({
      id: '7',
      'platform.slug': 'binance',
      'chain.slug': '',
      'asset.symbol': 'TETHER',
      reward_assets: 'aave|compound',
      duration_days: '',
      apy: '-0.5',
      estimated_apy: '5.50',
      tvl: '12345678901234567890.000000000000000001',
      available: 'true',
    });
    const two = Object.fromEntries(header.map((name, i) => [name, second[i]]));
    expect(two).toMatchObject({
      'platform.type': '',
      'platform.name': '',
      reward_assets: '',
      product_name: 'Comma, "quoted"\r\nand\nbroken',
      compositeKey: `'=HYPERLINK("http://x","y")`,
      link: "'@evil",
    });
  });

  it('is the header row alone for an empty page', () => {
    expect(rows(offersCsv('collateral', []))).toEqual([offerColumnsOf('collateral').map((c) => c.name)]);
  });
});

describe('historyCsv', () => {
  it('writes one row per point, the offer id first, entries in their order', () => {
    const text = historyCsv('earn', [
      {
        id: 12,
        points: [
          { timestamp: '2026-11-20T09:00:00.000Z', apy: '-0.5', tvl: null },
          { timestamp: '2026-11-20T10:00:00.000Z', apy: '4.10', tvl: '1000.5' },
        ],
      },
      { id: 3, points: [] },
      { id: 5, points: [{ timestamp: '2026-11-20T10:00:00.000Z', apy: '7', tvl: '2' }] },
    ]);
    expect(rows(text)).toEqual([
      ['id', 'timestamp', 'apy', 'tvl'],
      ['12', '2026-11-20T09:00:00.000Z', '-0.5', ''],
      ['12', '2026-11-20T10:00:00.000Z', '4.10', '1000.5'],
      ['5', '2026-11-20T10:00:00.000Z', '7', '2'],
    ]);
  });

  it('has no tvl column for borrow', () => {
    expect(rows(historyCsv('borrow', []))).toEqual([['id', 'timestamp', 'apy']]);
  });
});

describe('acceptsCsv', () => {
  const withAccept = (...values: string[]): ApiEvent => ({
    ...apiEvent('/api/v1/earn'),
    headers: {},
    multiValueHeaders: { Accept: values },
  });

  it.each([
    ['text/csv'],
    ['TEXT/CSV; charset=utf-8'],
    ['text/csv, */*;q=0.5'],
    ['application/json;q=0.5, text/csv'],
    ['text/csv;q=0.9, application/*;q=0.1'],
  ])('CSV for %j', (value) => {
    expect(acceptsCsv(withAccept(value))).toBe(true);
  });

  it.each([
    [''],
    ['*/*'],
    ['text/*'],
    ['application/json'],
    ['text/csv, application/json'],
    ['application/json, text/csv'],
    ['text/csv;q=0'],
    ['text/csv;q=0.5, */*'],
    ['text/html,application/xhtml+xml,*/*;q=0.8'],
  ])('JSON for %j', (value) => {
    expect(acceptsCsv(withAccept(value))).toBe(false);
  });

  it('reads several Accept fields as one list', () => {
    expect(acceptsCsv(withAccept('application/json;q=0.1', 'text/csv'))).toBe(true);
  });
});
