/**
 * Bad text, slugs and timestamps never enter (README, "Data import"), on the embedded DynamoDB
 * through the real import: files go in as bytes, as every path reads them, and a refused file
 * writes nothing, through the library, the `npm run import` command and `npm start --data`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main as importMain } from '../../scripts/import';
import { WebhookStore } from '../../shared/data/webhook-store';
import { DataFileError } from '../../shared/import/dataset';
import { importDataset, readPointer } from '../../shared/import/importer';
import { setLogSink } from '../../shared/platform/logger';
import { UsageError } from '../../tools/cli';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { invoke } from '../helpers/client';
import { apiEvent, startTestTable, type TestTable } from '../helpers/embedded';

const ROOT = join(__dirname, '..', '..');

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

/** The served file: a name holding U+FFFD written in the file, which is legitimate text. */
function goodFile(): Buffer {
  const dataset: any = fixtureDataset();
  dataset.exchanges.find((e: any) => e.slug === 'kraken').name = 'Kra<<fffd>>ken';
  return fileBytes(dataset, { fffd: [0xef, 0xbf, 0xbd] });
}

/** Bad text: the byte FF, an encoded surrogate, an escaped lone surrogate. */
function badTextFile(): Buffer {
  const dataset: any = fixtureDataset();
  dataset.exchanges[3].name = 'AC<<ff>>ME';
  dataset.wallets[0].name = 'x<<surrogate>>';
  dataset.currencies[1].symbol = 'E<<escaped>>';
  return fileBytes(dataset, { ff: [0xff], surrogate: [0xed, 0xa0, 0x80], escaped: '\\ud800' });
}
const BAD_TEXT_ERRORS = [
  'exchanges[3].name: invalid UTF-8',
  'wallets[0].name: invalid UTF-8',
  'currencies[1].symbol: lone surrogate',
];

/** Bad slugs and timestamps. */
function badSlugFile(): Buffer {
  const dataset: any = fixtureDataset();
  dataset.exchanges[0].slug = '../etc';
  dataset.protocols[1].previous_slugs = ['UPPER'];
  dataset.earn_history[0].points[0].timestamp = '0000-01-01T00:00:00.000Z';
  return fileBytes(dataset);
}
const BAD_SLUG_ERRORS = [
  'exchanges[0].slug:',
  'protocols[1].previous_slugs[0]:',
  'earn_history[0].points[0].timestamp:',
];
/** A former slug naming a hidden record, which then answered 301 instead of 404. */
function formerSlugFile(): Buffer {
  const dataset: any = fixtureDataset();
  dataset.exchanges.find((e: any) => e.slug === 'kraken').previous_slugs = ['hidden-ex'];
  return fileBytes(dataset);
}

/** Data the database would refuse at write time, or silently change, before the bounds: each refused by place now. */
function duplicateFamilyFile(): Buffer {
  // `exchanges` twice: JSON.parse kept the second one, a list of one exchange, and dropped four.
  const text = JSON.stringify(fixtureDataset());
  return Buffer.from(`{"exchanges":[${JSON.stringify(fixtureDataset().exchanges[0])}],${text.slice(1)}`, 'utf8');
}
function hugeStringFile(): Buffer {
  const dataset: any = fixtureDataset();
  dataset.earn_offers[2].product_name = 'p'.repeat(500_000); // "Item size has exceeded the maximum allowed size" at write time
  return fileBytes(dataset);
}
function longDecimalFile(): Buffer {
  const dataset: any = fixtureDataset();
  dataset.earn_offers[0].apy = `1${'0'.repeat(999)}`; // an index key over 1,024 bytes
  return fileBytes(dataset);
}
function deepFile(): Buffer {
  // Deep nesting with a lone surrogate: the stack overflowed instead of a refusal.
  const text = JSON.stringify(fixtureDataset()).replace(
    '"additional_services":["staking"]',
    `"additional_services":${'['.repeat(100_000)}"\\ud800"${']'.repeat(100_000)}`,
  );
  return Buffer.from(text, 'utf8');
}
function notAnInstantFile(): Buffer {
  const dataset: any = fixtureDataset();
  dataset.currencies[0].updated_at = '2026-02-30T00:00:00.000Z'; // served as 2026-03-02
  dataset.earn_history[0].points[3].timestamp = '9999-12-31T24:00:00Z'; // served as +010000-01-01
  return fileBytes(dataset);
}

/** A file at the bounds: every value stored and served as given. */
function atBoundsFile(): { file: Buffer; dataset: any } {
  const dataset: any = fixtureDataset();
  const offer = dataset.earn_offers[0];
  offer.product_name = '\u20ac'.repeat(2048); // 2,048 characters of 3 bytes each
  offer.apy = `9${'9'.repeat(62)}0`; // 64 characters: the longest APY sort key
  offer.asset = { slug: 'a'.repeat(256), symbol: 'S', name: 'N' };
  offer.reward_assets = Array.from({ length: 64 }, (_, i) => ({ slug: `r${i}`, symbol: 'R', name: 'Reward' }));
  dataset.currencies[0].updated_at = '2024-02-29T23:59:59.9999Z';
  return { file: fileBytes(dataset), dataset };
}

let table: TestTable;
const DEMO_ACCOUNTS = join(__dirname, '..', '..', 'data', 'demo-accounts.json');
let dir: string;

const exchange = async (slug: string) =>
  invoke(
    table.api({ clock: () => NOW }).platforms,
    apiEvent(`/api/v1/exchanges/${slug}`, { keyId: 'k-validation', perMinute: 1e6, perMonth: 1e8 }),
  );

/** Every item of the table but the quota counters the requests above write. */
async function dataItems(): Promise<unknown[]> {
  const items = await table.items();
  return items
    .filter((item) => !String(item.PK).startsWith('QUOTA#'))
    .sort((a, b) => `${a.PK}|${a.SK}`.localeCompare(`${b.PK}|${b.SK}`));
}

beforeAll(async () => {
  setLogSink(() => undefined);
  dir = mkdtempSync(join(tmpdir(), 'import-validation-'));
  table = await startTestTable();
  await importDataset(goodFile(), { client: table.client, tableName: table.tableName, now: () => NOW });
}, 120_000);

afterAll(async () => {
  await table?.close();
  rmSync(dir, { recursive: true, force: true });
  setLogSink(() => undefined);
});

it('serves a file read from its bytes, U+FFFD written in it included, unchanged', async () => {
  const kraken = await exchange('kraken');
  expect(kraken.status).toBe(200);
  expect(kraken.body.name).toBe('Kra\uFFFDken');
  expect((await exchange('hidden-ex')).status).toBe(404);
});

describe('a refused file writes nothing', () => {
  it.each<[string, () => Buffer, string[]]>([
    ['bad text', badTextFile, BAD_TEXT_ERRORS],
    ['bad slugs and a year-0000 timestamp', badSlugFile, BAD_SLUG_ERRORS],
    ['a former slug equal to a hidden record’s slug', formerSlugFile, ['exchanges[1].previous_slugs[0]:']],
    ['a family named twice', duplicateFamilyFile, ['exchanges: duplicate field']],
    [
      'a 500 KB product name',
      hugeStringFile,
      ['earn_offers[2].product_name: longer than 2,048 characters', 'earn_offers[2]: the record is'],
    ],
    ['a 1,000-digit APY', longDecimalFile, ['earn_offers[0].apy: must not be longer than 64 characters']],
    [
      'nesting 100,000 levels deep around a lone surrogate',
      deepFile,
      [`wallets[0].stats.additional_services${'[0]'.repeat(28)}: nested deeper than 32 levels`],
    ],
    [
      'timestamps that are not instants',
      notAnInstantFile,
      [
        'currencies[0].updated_at: must be a real instant',
        'earn_history[0].points[3].timestamp: must be a real instant',
      ],
    ],
  ])('%s', async (_, build, places) => {
    const before = await dataItems();
    const pointer = await readPointer(table.client, table.tableName);
    let refusal: unknown;
    await importDataset(build(), { client: table.client, tableName: table.tableName, now: () => NOW }).catch(
      (error: unknown) => (refusal = error),
    );
    expect(refusal).toBeInstanceOf(DataFileError);
    const errors = (refusal as DataFileError).errors;
    for (const place of places)
      expect({ place, found: errors.some((e) => e.startsWith(place)) }).toEqual({ place, found: true });

    expect(await dataItems()).toEqual(before);
    expect(await readPointer(table.client, table.tableName)).toEqual(pointer);
    expect((await exchange('kraken')).body.name).toBe('Kra\uFFFDken');
    expect((await exchange('hidden-ex')).status).toBe(404);
  });

  it('through `npm run import -- FILE`, with the errors by place', async () => {
    const file = join(dir, 'bad-text.json');
    writeFileSync(file, badTextFile());
    const before = await dataItems();
    let refusal: unknown;
    await importMain([file, '--endpoint', table.endpoint, '--table', table.tableName, '--region', 'local']).catch(
      (error: unknown) => (refusal = error),
    );
    expect(refusal).toBeInstanceOf(UsageError);
    const lines = (refusal as Error).message.split('\n');
    expect(lines[0]).toMatch(/^refused, nothing written/);
    expect(lines.slice(1).sort()).toEqual([...BAD_TEXT_ERRORS].sort());
    expect(await dataItems()).toEqual(before);
  });
});

it('stores and serves a file at the bounds as given, each timestamp as the instant it names', async () => {
  const { file, dataset } = atBoundsFile();
  await importDataset(file, { client: table.client, tableName: table.tableName, now: () => NOW });

  const api = table.api({ clock: () => NOW });
  const key = { keyId: 'k-validation', perMinute: 1e6, perMonth: 1e8 };
  const offer = await invoke(api.offers, apiEvent('/api/v1/earn/1', key));
  expect(offer.status).toBe(200);
  const { product_name, apy, asset, reward_assets } = dataset.earn_offers[0];
  expect(offer.body).toMatchObject({ product_name, apy, asset, reward_assets });
  const top = await invoke(api.offers, apiEvent('/api/v1/earn?sort=apy_desc&limit=1', key));
  expect(top.body.data[0].id).toBe(1);
  const bitcoin = await invoke(api.currencies, apiEvent('/api/v1/currencies/bitcoin', key));
  expect(bitcoin.body.updated_at).toBe('2024-02-29T23:59:59.999Z');
  expect((await exchange('kraken')).body.name).toBe('Kraken');
}, 60_000);

it('`npm start -- --data BADFILE` refuses with the errors by place and exits non-zero', () => {
  const file = join(dir, 'bad-start.json');
  writeFileSync(file, badTextFile());
  const run = spawnSync(
    join(ROOT, 'node_modules', '.bin', 'tsx'),
    ['scripts/local.ts', '--data', file, '--port', '0'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_REGION: 'local' },
    },
  );
  expect(run.status).toBe(2);
  const lines = run.stderr.trim().split('\n');
  expect(lines[0]).toMatch(/refused/);
  expect(lines.slice(1).sort()).toEqual([...BAD_TEXT_ERRORS].sort());
}, 120_000);

it('`npm run import -- --accounts FILE` loads its users, keys and webhook subscriptions as npm start does', async () => {
  const out: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
  try {
    await importMain(['--accounts', DEMO_ACCOUNTS, '--endpoint', table.endpoint, '--table', table.tableName]);
  } finally {
    process.stdout.write = write;
  }
  expect(out.join('')).toBe('loaded 4 user(s), 5 key(s) and 1 webhook subscription(s)\n');
  const [subscription] = await new WebhookStore(table.client, table.tableName).listForUser('demo');
  expect(subscription).toMatchObject({ id: 'wh_de000000000000000001', family: 'earn', status: 'active' });
});
