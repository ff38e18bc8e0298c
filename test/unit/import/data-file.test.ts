/**
 * What a data file may hold (README, "Data import"): valid UTF-8 text without lone surrogates,
 * slugs of [a-z0-9._-], former slugs naming one record only, timestamps within years 1970-9999.
 * Each refusal names its place. Files are built byte by byte here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crossRecordErrors } from '../../../shared/import/importer';
import { invalidUtf8Runs } from '../../../shared/schemas/json-text';
import { DataFileError, parseAccounts, parseDataset } from '../../../shared/schemas/dataset';
import { readDataFile } from '../../../scripts/cli';
import { fixtureDataset } from '../../fixtures/dataset';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** The JSON text of `value` as UTF-8, each `<<name>>` in it replaced by the raw bytes `raw[name]`. */
function fileBytes(value: unknown, raw: Record<string, number[] | string> = {}): Buffer {
  const text = JSON.stringify(value);
  const parts: Buffer[] = [];
  let last = 0;
  for (const match of text.matchAll(/<<(\w+)>>/g)) {
    parts.push(Buffer.from(text.slice(last, match.index), 'utf8'));
    const bytes = raw[match[1]];
    parts.push(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : Buffer.from(bytes));
    last = match.index! + match[0].length;
  }
  parts.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(parts);
}

/** The errors a refusal names, or `[]` when the file is accepted. */
function errorsOf(parse: () => unknown): string[] {
  try {
    parse();
    return [];
  } catch (error) {
    if (error instanceof DataFileError) return error.errors;
    throw error;
  }
}

const withName = (name: string): any => {
  const dataset: any = fixtureDataset();
  dataset.exchanges[3].name = name;
  return dataset;
};

describe('text: valid UTF-8, no lone surrogate', () => {
  it.each<[string, string, number[] | string, string]>([
    ['the byte FF', 'AC<<x>>ME', [0xff], 'exchanges[3].name: invalid UTF-8'],
    ['an encoded surrogate (ED A0 80)', 'AC<<x>>ME', [0xed, 0xa0, 0x80], 'exchanges[3].name: invalid UTF-8'],
    ['an overlong "/" (C0 AF)', 'a<<x>>', [0xc0, 0xaf], 'exchanges[3].name: invalid UTF-8'],
    ['a code point beyond U+10FFFF (F4 90 80 80)', 'a<<x>>', [0xf4, 0x90, 0x80, 0x80], 'exchanges[3].name: invalid UTF-8'],
    ['a sequence cut short (E2 82)', 'a<<x>>', [0xe2, 0x82], 'exchanges[3].name: invalid UTF-8'],
    ['a lone continuation byte (80)', '<<x>>', [0x80], 'exchanges[3].name: invalid UTF-8'],
    ['an escaped lone high surrogate', 'AC<<x>>ME', '\\ud800', 'exchanges[3].name: lone surrogate'],
    ['an escaped lone low surrogate', 'AC<<x>>ME', '\\uDC00', 'exchanges[3].name: lone surrogate'],
    ['an escaped pair in the wrong order', '<<x>>', '\\udc00\\ud800', 'exchanges[3].name: lone surrogate'],
  ])('%s is refused at its place, once', (_, name, raw, error) => {
    const errors = errorsOf(() => parseDataset(fileBytes(withName(name), { x: raw })));
    expect(errors).toEqual([error]);
  });

  it.each<[string, string, number[] | string, string]>([
    ['U+FFFD written in the file', 'AC<<x>>ME', [0xef, 0xbf, 0xbd], 'AC\uFFFDME'],
    ['U+FFFD escaped', 'AC<<x>>ME', '\\ufffd', 'AC\uFFFDME'],
    ['a 4-byte character', 'coin <<x>>', [0xf0, 0x9f, 0x98, 0x80], 'coin \u{1F600}'],
    ['an escaped surrogate pair', 'coin <<x>>', '\\ud83d\\ude00', 'coin \u{1F600}'],
    ['the largest code point', '<<x>>', [0xf4, 0x8f, 0xbf, 0xbf], '\u{10FFFF}'],
  ])('%s is accepted and kept as written', (_, name, raw, expected) => {
    expect(parseDataset(fileBytes(withName(name), { x: raw })).exchanges![3].name).toBe(expected);
  });

  it('names every bad string, together with the other errors of the file', () => {
    const dataset: any = fixtureDataset();
    dataset.wallets[1].name = 'x<<ff>>';
    dataset.currencies[2].symbol = '<<lone>>';
    dataset.earn_offers[4].product_name = 'p<<ff>>q<<ff>>';
    dataset.borrow_offers[0].borrow_apy = 5;
    const errors = errorsOf(() => parseDataset(fileBytes(dataset, { ff: [0xff], lone: '\\ud834' })));
    expect(errors.sort()).toEqual(
      ['wallets[1].name: invalid UTF-8', 'currencies[2].symbol: lone surrogate', 'earn_offers[4].product_name: invalid UTF-8', 'borrow_offers[0].borrow_apy: must be string'].sort(),
    );
  });

  it('places a bad field name at its object, and a bad byte outside any string at its offset', () => {
    const dataset: any = fixtureDataset();
    dataset.protocols[2]['na<<ff>>me'] = 'x';
    const inKey = errorsOf(() => parseDataset(fileBytes(dataset, { ff: [0xff] })));
    expect(inKey).toContain('protocols[2]: a field name: invalid UTF-8');

    const text = Buffer.from('{"exchanges": []}', 'utf8');
    const outside = Buffer.concat([text.subarray(0, 14), Buffer.from([0xff]), text.subarray(14)]);
    const errors = errorsOf(() => parseDataset(outside));
    expect(errors[0]).toBe('byte 14: invalid UTF-8');
    expect(errors.slice(1)).toEqual([expect.stringMatching(/^\(file\): not valid JSON/)]);
  });

  it('refuses a lone surrogate in a value already in memory too', () => {
    const dataset: any = fixtureDataset();
    dataset.currencies[0].name = 'Bit\ud800coin';
    expect(errorsOf(() => parseDataset(dataset))).toEqual(['currencies[0].name: lone surrogate']);
  });

  it('reads an accounts file from its bytes by the same rules', () => {
    const accounts = { users: [{ id: 'u<<ff>>', premium: false, keys: [] }, { id: '<<lone>>', premium: false, keys: [] }] };
    expect(errorsOf(() => parseAccounts(fileBytes(accounts, { ff: [0xff], lone: '\\udfff' })))).toEqual([
      'users[0].id: invalid UTF-8',
      'users[1].id: lone surrogate',
    ]);
    expect(parseAccounts(fileBytes({ users: [{ id: 'u\uFFFD', premium: false, keys: [] }] })).users[0].id).toBe('u\uFFFD');
  });

  it('finds exactly the byte strings that a strict UTF-8 decoder refuses', () => {
    // A deterministic generator (numbers from a linear congruential generator, Numerical Recipes' constants).
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    // Whole characters at the edges of each length, and single bytes at the edges of each range.
    const characters = [[0x41], [0xc2, 0x80], [0xdf, 0xbf], [0xe0, 0xa0, 0x80], [0xed, 0x9f, 0xbf], [0xee, 0x80, 0x80], [0xef, 0xbf, 0xbd], [0xf0, 0x90, 0x80, 0x80], [0xf4, 0x8f, 0xbf, 0xbf]];
    const singles = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
    const piece = () => (next() % 4 === 0 ? [singles[next() % singles.length]] : characters[next() % characters.length]);
    const disagreements: number[][] = [];
    let refused = 0;
    for (let n = 0; n < 20_000; n++) {
      const bytes = Uint8Array.from(Array.from({ length: 1 + (next() % 4) }, piece).flat());
      let valid = true;
      try {
        decoder.decode(bytes);
      } catch {
        valid = false;
        refused++;
      }
      if ((invalidUtf8Runs(bytes).length === 0) !== valid) disagreements.push([...bytes]);
    }
    expect(disagreements).toEqual([]);
    expect(refused).toBeGreaterThan(1_000); // both kinds were tried
    expect(refused).toBeLessThan(19_000);
  });
});

describe('slugs', () => {
  const withSlugs = (slug: string, previous: string[] = []) => {
    const dataset: any = fixtureDataset();
    dataset.exchanges[0].slug = slug;
    dataset.currencies[1].previous_slugs = previous;
    return dataset;
  };

  it.each(['a', '0', 'a.b_c-1', 'binance-2', '9lives', 'a'.repeat(256)])('accepts %p', (slug) => {
    expect(errorsOf(() => parseDataset(withSlugs(slug, [slug])))).toEqual([]);
  });

  it.each(['', 'a/b', 'a#b', 'UPPER', '../etc', '-a', '.a', '_a', 'a b', 'café', 'a?b', 'a%2Fb', 'a'.repeat(257)])('refuses %p as a slug and as a former slug, by place', (slug) => {
    const errors = errorsOf(() => parseDataset(withSlugs(slug, ['ok', slug])));
    expect(errors.map((e) => e.split(':')[0]).sort()).toEqual(['currencies[1].previous_slugs[1]', 'exchanges[0].slug']);
  });

  const complete = (dataset: unknown) => parseDataset(dataset);

  it('refuses a former slug that is another record’s current slug, hidden records included', () => {
    const dataset: any = fixtureDataset();
    dataset.exchanges.find((e: any) => e.slug === 'kraken').previous_slugs = ['hidden-ex'];
    dataset.currencies.find((c: any) => c.slug === 'bitcoin').previous_slugs = ['btc', 'ethereum'];
    const errors = crossRecordErrors(complete(dataset));
    expect(errors.map((e) => e.split(':')[0]).sort()).toEqual(['currencies[0].previous_slugs[1]', 'exchanges[1].previous_slugs[0]']);
  });

  it('refuses a former slug shared by two records or equal to the record’s own slug, and accepts one repeated on its record', () => {
    const dataset: any = fixtureDataset();
    dataset.protocols[0].previous_slugs = ['makerdao'];
    dataset.wallets[0].previous_slugs = ['trezor'];
    dataset.wallets[1].previous_slugs = ['argent-old', 'argent-old'];
    const errors = crossRecordErrors(complete(dataset));
    expect(errors.map((e) => e.split(':')[0]).sort()).toEqual(['protocols[4].previous_slugs[0]', 'wallets[0].previous_slugs[0]']);
  });

  it('lets families use the same slugs as each other', () => {
    const dataset: any = fixtureDataset();
    dataset.wallets[0].previous_slugs = ['binance'];
    dataset.currencies[0].previous_slugs = ['aave'];
    expect(crossRecordErrors(complete(dataset))).toEqual([]);
  });
});

describe('timestamps: years 1970 to 9999', () => {
  const places: [string, (d: any, t: string) => void][] = [
    ['exchanges[0].updated_at', (d, t) => (d.exchanges[0].updated_at = t)],
    ['wallets[1].updated_at', (d, t) => (d.wallets[1].updated_at = t)],
    ['protocols[2].updated_at', (d, t) => (d.protocols[2].updated_at = t)],
    ['currencies[3].updated_at', (d, t) => (d.currencies[3].updated_at = t)],
    ['earn_offers[0].updated_at', (d, t) => (d.earn_offers[0].updated_at = t)],
    ['borrow_offers[1].synced_at', (d, t) => (d.borrow_offers[1].synced_at = t)],
    ['borrow_offers[1].updated_at', (d, t) => (d.borrow_offers[1].updated_at = t)],
    ['collateral_offers[2].updated_at', (d, t) => (d.collateral_offers[2].updated_at = t)],
    ['earn_history[0].points[0].timestamp', (d, t) => (d.earn_history[0].points[0].timestamp = t)],
    ['borrow_history[0].points[1].timestamp', (d, t) => (d.borrow_history[0].points[1].timestamp = t)],
  ];

  it.each(['0000-01-01T00:00:00Z', '1969-12-31T23:59:59.999Z', '0001-01-01T00:00:00.000+00:00'])('refuses %p in every timestamp field, by place', (t) => {
    const dataset: any = fixtureDataset();
    for (const [, set] of places) set(dataset, t);
    const errors = errorsOf(() => parseDataset(dataset));
    expect(errors).toEqual(places.map(([place]) => `${place}: must be within years 1970 to 9999`));
  });

  it.each(['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000+00:00', '9999-12-31T23:59:59.999Z'])('accepts %p', (t) => {
    const dataset: any = fixtureDataset();
    for (const [, set] of places) set(dataset, t);
    expect(errorsOf(() => parseDataset(dataset))).toEqual([]);
  });

  it('applies to an account’s premium_until', () => {
    const accounts = (until: string) => ({ users: [{ id: 'u1', premium: true, premium_until: until, keys: [] }] });
    expect(errorsOf(() => parseAccounts(accounts('1900-01-01T00:00:00Z')))).toEqual(['users[0].premium_until: must be within years 1970 to 9999']);
    expect(errorsOf(() => parseAccounts(accounts('2027-01-01T00:00:00Z')))).toEqual([]);
  });
});

describe('files read by the command line and npm start', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'data-file-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are read as bytes, so a bad byte is refused by place and a good file is read whole', () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, fileBytes(withName('AC<<x>>ME'), { x: [0xff] }));
    expect(errorsOf(() => parseDataset(readDataFile(bad)))).toEqual(['exchanges[3].name: invalid UTF-8']);

    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify(fixtureDataset()));
    expect(parseDataset(readDataFile(good))).toEqual(parseDataset(fixtureDataset()));
  });
});
