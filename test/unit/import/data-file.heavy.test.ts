/**
 * What a data file may hold (README, "Data import"): valid UTF-8 text without lone surrogates,
 * slugs of [a-z0-9._-], former slugs naming one record only, timestamps within years 1970-9999.
 * Each refusal names its place. Files are built byte by byte here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataFileError, type PlatformRecord, parseAccounts, parseDataset } from '../../../shared/import/dataset';
import { invalidUtf8Runs } from '../../../shared/import/json-text';
import { crossRecordErrors } from '../../../shared/import/validate';
import { readDataFile } from '../../../tools/cli';
import { fixtureDataset } from '../../fixtures/dataset';

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

describe('platform records', () => {
  it('keep their family as the type of `type` (the compiler checks the assignment; the run checks the values)', () => {
    const types: PlatformRecord['type'][] = ['exchange', 'wallet', 'protocol', undefined];
    const dataset = parseDataset(fixtureDataset());
    const given = [...dataset.exchanges!, ...dataset.wallets!, ...dataset.protocols!].map((p) => p.type);
    expect(given.length).toBeGreaterThan(0);
    for (const type of given) expect(types).toContain(type);
  });
});

describe('text: valid UTF-8, no lone surrogate', () => {
  it.each<[string, string, number[] | string, string]>([
    ['the byte FF', 'AC<<x>>ME', [0xff], 'exchanges[3].name: invalid UTF-8'],
    ['an encoded surrogate (ED A0 80)', 'AC<<x>>ME', [0xed, 0xa0, 0x80], 'exchanges[3].name: invalid UTF-8'],
    ['an overlong "/" (C0 AF)', 'a<<x>>', [0xc0, 0xaf], 'exchanges[3].name: invalid UTF-8'],
    [
      'a code point beyond U+10FFFF (F4 90 80 80)',
      'a<<x>>',
      [0xf4, 0x90, 0x80, 0x80],
      'exchanges[3].name: invalid UTF-8',
    ],
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
      [
        'wallets[1].name: invalid UTF-8',
        'currencies[2].symbol: lone surrogate',
        'earn_offers[4].product_name: invalid UTF-8',
        'borrow_offers[0].borrow_apy: must be string',
      ].sort(),
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
    const accounts = {
      users: [
        { id: 'u<<ff>>', premium: false, keys: [] },
        { id: '<<lone>>', premium: false, keys: [] },
      ],
    };
    const idRule = 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":", "@" and "-"';
    expect(errorsOf(() => parseAccounts(fileBytes(accounts, { ff: [0xff], lone: '\\udfff' })))).toEqual([
      'users[0].id: invalid UTF-8',
      'users[1].id: lone surrogate',
      `users[0].id: ${idRule}`,
      `users[1].id: ${idRule}`,
    ]);
    // U+FFFD written in the file is text, refused here only by the user id's own rule.
    expect(errorsOf(() => parseAccounts(fileBytes({ users: [{ id: 'u\uFFFD', premium: false, keys: [] }] })))).toEqual([
      `users[0].id: ${idRule}`,
    ]);
  });

  it('finds exactly the byte strings that a strict UTF-8 decoder refuses', () => {
    // A deterministic generator (numbers from a linear congruential generator, Numerical Recipes' constants).
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    // Whole characters at the edges of each length, and single bytes at the edges of each range.
    const characters = [
      [0x41],
      [0xc2, 0x80],
      [0xdf, 0xbf],
      [0xe0, 0xa0, 0x80],
      [0xed, 0x9f, 0xbf],
      [0xee, 0x80, 0x80],
      [0xef, 0xbf, 0xbd],
      [0xf0, 0x90, 0x80, 0x80],
      [0xf4, 0x8f, 0xbf, 0xbf],
    ];
    const singles = [
      0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
    ];
    const piece = () =>
      next() % 4 === 0 ? [singles[next() % singles.length]] : characters[next() % characters.length];
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

  it.each(['', 'a/b', 'a#b', 'UPPER', '../etc', '-a', '.a', '_a', 'a b', 'café', 'a?b', 'a%2Fb', 'a'.repeat(257)])(
    'refuses %p as a slug and as a former slug, by place',
    (slug) => {
      const errors = errorsOf(() => parseDataset(withSlugs(slug, ['ok', slug])));
      expect(errors.map((e) => e.split(':')[0]).sort()).toEqual([
        'currencies[1].previous_slugs[1]',
        'exchanges[0].slug',
      ]);
    },
  );

  const complete = (dataset: unknown) => parseDataset(dataset);

  it('refuses a former slug that is another record’s current slug, hidden records included', () => {
    const dataset: any = fixtureDataset();
    dataset.exchanges.find((e: any) => e.slug === 'kraken').previous_slugs = ['hidden-ex'];
    dataset.currencies.find((c: any) => c.slug === 'bitcoin').previous_slugs = ['btc', 'ethereum'];
    const errors = crossRecordErrors(complete(dataset));
    expect(errors.map((e) => e.split(':')[0]).sort()).toEqual([
      'currencies[0].previous_slugs[1]',
      'exchanges[1].previous_slugs[0]',
    ]);
  });

  it('refuses a former slug shared by two records or equal to the record’s own slug, and accepts one repeated on its record', () => {
    const dataset: any = fixtureDataset();
    dataset.protocols[0].previous_slugs = ['makerdao'];
    dataset.wallets[0].previous_slugs = ['trezor'];
    dataset.wallets[1].previous_slugs = ['argent-old', 'argent-old'];
    const errors = crossRecordErrors(complete(dataset));
    expect(errors.map((e) => e.split(':')[0]).sort()).toEqual([
      'protocols[4].previous_slugs[0]',
      'wallets[0].previous_slugs[0]',
    ]);
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

  it.each(['0000-01-01T00:00:00Z', '1969-12-31T23:59:59.999Z', '0001-01-01T00:00:00.000+00:00'])(
    'refuses %p in every timestamp field, by place',
    (t) => {
      const dataset: any = fixtureDataset();
      for (const [, set] of places) set(dataset, t);
      const errors = errorsOf(() => parseDataset(dataset));
      expect(errors).toEqual(places.map(([place]) => `${place}: must be within years 1970 to 9999`));
    },
  );

  it.each(['1970-01-01T00:00:00Z', '1970-01-01T00:00:00.000+00:00', '9999-12-31T23:59:59.999Z'])('accepts %p', (t) => {
    const dataset: any = fixtureDataset();
    for (const [, set] of places) set(dataset, t);
    expect(errorsOf(() => parseDataset(dataset))).toEqual([]);
  });

  it.each([
    '2026-02-30T00:00:00Z',
    '2025-02-29T12:00:00Z',
    '2100-02-29T00:00:00Z',
    '2026-04-31T00:00:00.000Z',
    '2026-01-00T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '9999-12-31T24:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T23:59:60Z',
  ])('refuses %p, which is not a real instant, in every timestamp field, by place', (t) => {
    const dataset: any = fixtureDataset();
    for (const [, set] of places) set(dataset, t);
    const errors = errorsOf(() => parseDataset(dataset));
    expect(errors).toEqual(
      places.map(
        ([place]) => `${place}: must be a real instant (a day of its month, hours 00-23, minutes and seconds 00-59)`,
      ),
    );
  });

  it.each([
    ['2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.999Z'],
    ['2000-02-29T00:00:00+00:00', '2000-02-29T00:00:00.000Z'],
    ['9999-12-31T23:59:59.9999999Z', '9999-12-31T23:59:59.999Z'],
  ])('accepts %p, the instant it names (%p)', (t, instant) => {
    const dataset: any = fixtureDataset();
    for (const [, set] of places) set(dataset, t);
    expect(errorsOf(() => parseDataset(dataset))).toEqual([]);
    expect(new Date(Date.parse(t)).toISOString()).toBe(instant);
  });

  it('applies to an account’s premium_until', () => {
    const accounts = (until: string) => ({ users: [{ id: 'u1', premium: true, premium_until: until, keys: [] }] });
    expect(errorsOf(() => parseAccounts(accounts('1900-01-01T00:00:00Z')))).toEqual([
      'users[0].premium_until: must be within years 1970 to 9999',
    ]);
    expect(errorsOf(() => parseAccounts(accounts('2026-02-30T00:00:00Z')))).toEqual([
      'users[0].premium_until: must be a real instant (a day of its month, hours 00-23, minutes and seconds 00-59)',
    ]);
    expect(errorsOf(() => parseAccounts(accounts('2027-01-01T00:00:00Z')))).toEqual([]);
  });
});

describe('a member named twice, at any depth', () => {
  /** The file's text with `"<name>": <value>` added before the first member of the object at `anchor`. */
  const withMember = (anchor: string, member: string) => {
    const text = JSON.stringify(fixtureDataset());
    const at = text.indexOf(anchor) + anchor.length;
    expect(text.indexOf(anchor)).toBeGreaterThanOrEqual(0);
    return Buffer.from(`${text.slice(0, at)}${member},${text.slice(at)}`, 'utf8');
  };

  it.each<[string, string, string, string]>([
    ['a family', '{', '"exchanges": []', 'exchanges'],
    ['a record field', '"exchanges":[{', '"name": "Other"', 'exchanges[0].name'],
    [
      'a nested field',
      '"exchanges":[{"type":"exchange","slug":"binance","name":"Binance","url":"https://binance.example","logo64":"https://img.example/binance.png","stats":{',
      '"num_coins": 1',
      'exchanges[0].stats.num_coins',
    ],
    ['an escaped spelling of a name', '"exchanges":[{', '"\\u006eame": "Other"', 'exchanges[0].name'],
  ])('%s is refused at its place', (_, anchor, member, place) => {
    expect(errorsOf(() => parseDataset(withMember(anchor, member)))).toEqual([
      `${place}: duplicate field (named twice in its object)`,
    ]);
  });

  it('refuses an accounts file whose key says revoked twice', () => {
    const text =
      '{"users":[{"id":"u1","premium":true,"keys":[{"key":"k_0123456789abcdef0123456789abcdef","revoked":true,"revoked":false}]}]}';
    expect(errorsOf(() => parseAccounts(Buffer.from(text, 'utf8')))).toEqual([
      'users[0].keys[0].revoked: duplicate field (named twice in its object)',
    ]);
  });

  it('accepts the same name in different objects, and a string that looks like a member', () => {
    const dataset: any = fixtureDataset();
    dataset.exchanges[0].name = '"name": "x", "name":';
    expect(errorsOf(() => parseDataset(Buffer.from(JSON.stringify(dataset), 'utf8')))).toEqual([]);
  });
});

describe('bounds: what is valid can be stored', () => {
  const deepArray = (levels: number, inner: string) => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

  it('refuses nesting deeper than 32 levels at its place, a lone surrogate inside it included, without overflowing the stack', () => {
    const text = JSON.stringify(fixtureDataset()).replace(
      '"platforms":["ios","android"]',
      `"platforms":${deepArray(200_000, '"\\ud800"')}`,
    );
    const errors = errorsOf(() => parseDataset(Buffer.from(text, 'utf8')));
    // The file is level 1, wallets 2, a wallet 3, its stats 4, platforms 5: level 33 is 28 arrays further in.
    expect(errors).toContain(`wallets[0].stats.platforms${'[0]'.repeat(28)}: nested deeper than 32 levels`);
    expect(errors.filter((e) => e.includes('lone surrogate') || e.includes('nested deeper'))).toHaveLength(1);
  });

  it('accepts 32 levels', () => {
    const errors = errorsOf(() => parseDataset(Buffer.from(`{"exchanges":[{"stats":${deepArray(29, '1')}}]}`, 'utf8')));
    expect(errors.some((e) => e.includes('nested deeper'))).toBe(false);
    const deeper = errorsOf(() => parseDataset(Buffer.from(`{"exchanges":[{"stats":${deepArray(30, '1')}}]}`, 'utf8')));
    expect(deeper).toContain(`exchanges[0].stats${'[0]'.repeat(29)}: nested deeper than 32 levels`);
  });

  it.each([
    '01.5',
    '00',
    '007',
    '-0',
    '-0.00',
    '+1',
    ' 1',
    '1 ',
    '1e5',
    '.5',
    '5.',
    '1'.repeat(65),
    `0.${'1'.repeat(63)}`,
  ])('refuses the decimal %p by place', (apy) => {
    const dataset: any = fixtureDataset();
    dataset.earn_offers[0].apy = apy;
    dataset.earn_history[0].points[0].apy = apy;
    const errors = errorsOf(() => parseDataset(dataset));
    expect(errors.map((e) => e.split(':')[0]).sort()).toEqual(['earn_history[0].points[0].apy', 'earn_offers[0].apy']);
  });

  it.each(['0', '0.0', '5.0', '-0.5', '-12.340', '1'.repeat(64), `0.${'0'.repeat(62)}`])(
    'accepts the decimal %p as given',
    (apy) => {
      const dataset: any = fixtureDataset();
      dataset.earn_offers[0].apy = apy;
      expect(parseDataset(dataset).earn_offers![0].apy).toBe(apy);
    },
  );

  it('refuses a string over 2,048 characters by place, counting a surrogate pair as one', () => {
    const dataset: any = fixtureDataset();
    dataset.earn_offers[0].product_name = 'x'.repeat(2049);
    dataset.earn_offers[1].product_name = '\u{1F600}'.repeat(2048);
    dataset.currencies[0].name = 'y'.repeat(500_000);
    expect(errorsOf(() => parseDataset(Buffer.from(JSON.stringify(dataset), 'utf8')))).toEqual([
      'currencies[0].name: longer than 2,048 characters',
      'earn_offers[0].product_name: longer than 2,048 characters',
      'currencies[0]: the record is 500421 bytes of JSON, more than 16384',
    ]);
  });

  it('refuses an array of more than 64 elements inside a record by place, and accepts 64', () => {
    const dataset: any = fixtureDataset();
    dataset.earn_offers[0].reward_assets = Array.from({ length: 65 }, (_, i) => ({
      slug: `a${i}`,
      symbol: 'A',
      name: 'A',
    }));
    dataset.wallets[0].stats = {
      ...dataset.wallets[0].stats,
      platforms: Array.from({ length: 64 }, (_, i) => `p${i}`),
    };
    dataset.currencies[0].previous_slugs = Array.from({ length: 70 }, (_, i) => `old-${i}`);
    expect(errorsOf(() => parseDataset(dataset))).toEqual([
      'currencies[0].previous_slugs: more than 64 elements (70)',
      'earn_offers[0].reward_assets: more than 64 elements (65)',
    ]);
  });

  it('refuses a record over 16,384 bytes of JSON by place; history series are not records', () => {
    const dataset: any = fixtureDataset();
    // 64 assets of 2,048-character names: within every other bound, far beyond what one item holds.
    dataset.earn_offers[0].reward_assets = Array.from({ length: 64 }, (_, i) => ({
      slug: `a${i}`,
      symbol: 'A',
      name: 'é'.repeat(2048),
    }));
    dataset.earn_history[0].points = Array.from({ length: 2000 }, (_, i) => ({
      timestamp: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(),
      apy: '4.1',
      tvl: null,
    }));
    const errors = errorsOf(() => parseDataset(dataset));
    expect(errors).toEqual([
      expect.stringMatching(/^earn_offers\[0\]: the record is \d+ bytes of JSON, more than 16384$/),
    ]);
  });

  it('bounds an account: user ids of 1 to 128 characters of [A-Za-z0-9._:@-], limits of at most 15 digits', () => {
    const key = (extra: object) => ({ key: 'k_0123456789abcdef0123456789abcdef', ...extra });
    const file = {
      users: [
        { id: 'u'.repeat(2048), premium: true, keys: [] },
        { id: 'a b', premium: true, keys: [] },
        { id: '', premium: true, keys: [] },
        {
          id: 'user.1:team@example-org_x',
          premium: true,
          keys: [key({ per_minute: 999_999_999_999_999, per_month: 1e15 })],
        },
        { id: 'u'.repeat(128), premium: true, keys: [key({ per_minute: 0 })] },
      ],
    };
    const idRule = 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":", "@" and "-"';
    const limitRule = 'must be a positive integer of at most 15 digits (999999999999999)';
    expect(errorsOf(() => parseAccounts(file))).toEqual([
      `users[0].id: ${idRule}`,
      `users[1].id: ${idRule}`,
      `users[2].id: ${idRule}`,
      `users[3].keys[0].per_month: ${limitRule}`,
      `users[4].keys[0].per_minute: ${limitRule}`,
    ]);
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
