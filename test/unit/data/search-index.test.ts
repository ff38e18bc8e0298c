/**
 * What a search reads of a version (shared/data/search-index.ts): the chunks the import adds to a
 * platform or currency version (none to an offer version), read back in list order with former
 * slugs, cut in parts when large, each checked to be the part of the version its key names.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { encodeBlock } from '../../../shared/data/items/document-block';
import { documentBlockKey, searchChunkName } from '../../../shared/data/keys';
import { SearchStore, withSearchChunks } from '../../../shared/data/search-index';
import { parseDataset } from '../../../shared/import/dataset';
import { platformResolver, projectCatalog, projectOffers } from '../../../shared/import/project';
import { CorruptDataError } from '../../../shared/platform/errors';
import { fixtureDataset } from '../../fixtures/dataset';

const ddb = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
beforeEach(() => ddb.reset());

/** The table holds these items: a GetItem finds one by its partition key. */
function holding(items: Record<string, unknown>[]) {
  const byKey = new Map(items.map((item) => [item.PK, item]));
  ddb.on(GetCommand).callsFake((input) => ({ Item: byKey.get(input.Key.PK) }));
}

const dataset = parseDataset(fixtureDataset());
const stored = (blocks: { hash: string; docs: string[] }[]) => blocks.map((b) => encodeBlock(b.hash, b.docs));
const searchBlocks = (version: string, content: ReturnType<typeof projectCatalog>) =>
  withSearchChunks(version, content).blocks.slice(content.blocks.length);

describe('the chunks of a version', () => {
  it('hold the exposed records in list order, with their former slugs and symbols', async () => {
    const version = 'v-currencies';
    holding(stored(searchBlocks(version, projectCatalog('currencies', dataset.currencies!))));
    const records = await new SearchStore(client, 'table').records(version);
    expect(records?.map((r) => [r.slug, r.symbol, r.former])).toEqual([
      ['bitcoin', 'BTC', []],
      ['ethereum', 'ETH', []],
      ['tether', 'USDT', ['tether-usd']],
      ['also-no-rank', 'ANR', []],
      ['no-rank', 'NRK', []],
    ]);
  });

  it('give platforms a null symbol and add nothing to an offer version', () => {
    const [chunk] = searchBlocks('v-ex', projectCatalog('exchanges', dataset.exchanges!));
    expect(JSON.parse(chunk.docs[1])).toEqual(['binance', 'Binance', null, []]);
    const offers = projectOffers(
      'earn',
      dataset.earn_offers!,
      platformResolver({ exchanges: [], wallets: [], protocols: [] }),
    );
    expect(withSearchChunks('v-earn', offers).blocks).toEqual(offers.blocks);
  });

  it('are cut in parts past 300 KB of text, read back whole', async () => {
    const [template] = dataset.currencies!;
    const many = Array.from({ length: 1_500 }, (_, i) => ({
      ...template,
      slug: `coin-${String(i).padStart(4, '0')}`,
      name: `Coin ${i} ${'n'.repeat(250)}`,
      stats: { ...template.stats, rank_by_market_cap: i + 1 },
    }));
    const blocks = searchBlocks('v-many', projectCatalog('currencies', many));
    expect(blocks.length).toBeGreaterThan(1);
    holding(stored(blocks));
    const records = await new SearchStore(client, 'table').records('v-many');
    expect(records?.map((r) => r.slug)).toEqual(many.map((r) => r.slug));
  });

  it('are read once per version', async () => {
    holding(stored(searchBlocks('v1', projectCatalog('wallets', dataset.wallets!))));
    const store = new SearchStore(client, 'table');
    await store.records('v1');
    await store.records('v1');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(1);
  });
});

describe('reading', () => {
  it('keeps the records of the last eight versions asked for', async () => {
    const versions = Array.from({ length: 9 }, (_, i) => `v${i}`);
    holding(versions.flatMap((v) => stored(searchBlocks(v, projectCatalog('wallets', dataset.wallets!)))));
    const store = new SearchStore(client, 'table');
    for (const v of versions) await store.records(v);
    await store.records('v8');
    await store.records('v0');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(10);
  });

  it('reads a version again after a failed read', async () => {
    ddb.on(GetCommand).rejectsOnce(new Error('throttled'));
    const store = new SearchStore(client, 'table');
    await expect(store.records('v5')).rejects.toThrow('throttled');
    holding([]);
    expect(await store.records('v5')).toBeUndefined();
  });

  it('answers undefined for a version stored without them, after a consistent read', async () => {
    holding([]);
    expect(await new SearchStore(client, 'table').records('v-old')).toBeUndefined();
    expect(ddb.commandCalls(GetCommand).map((c) => c.args[0].input.ConsistentRead)).toEqual([false, true]);
  });

  it('refuses a chunk that is not the part its key names, and a missing later part', async () => {
    const [chunk] = searchBlocks('v-other', projectCatalog('wallets', dataset.wallets!));
    holding([encodeBlock(searchChunkName('v-asked', 0), chunk.docs)]);
    await expect(new SearchStore(client, 'table').records('v-asked')).rejects.toThrow(CorruptDataError);

    holding([encodeBlock(searchChunkName('v2', 0), [JSON.stringify(['v2', 0, 2])])]);
    await expect(new SearchStore(client, 'table').records('v2')).rejects.toThrow(/chunk 1 of version v2 is missing/);
  });

  it.each([
    ['a record that is not one', '{"slug":"x"}'],
    ['a record without a name', '["x",null,null,[]]'],
    ['a line that is not JSON', '["x"'],
  ])('refuses %s', async (_, line) => {
    holding([encodeBlock(searchChunkName('v3', 0), [JSON.stringify(['v3', 0, 1]), line])]);
    await expect(new SearchStore(client, 'table').records('v3')).rejects.toThrow(CorruptDataError);
  });

  it('refuses an item without content', async () => {
    holding([{ ...documentBlockKey(searchChunkName('v4', 0)) }]);
    await expect(new SearchStore(client, 'table').records('v4')).rejects.toThrow(CorruptDataError);
  });
});

describe('prepared ahead (the pointer read ahead, ADR 0019)', () => {
  const wallets = (version: string) => stored(searchBlocks(version, projectCatalog('wallets', dataset.wallets!)));
  const exchanges = (version: string) => stored(searchBlocks(version, projectCatalog('exchanges', dataset.exchanges!)));

  it('reads the new version of each family searched, derives from it, and a search of it then reads nothing', async () => {
    holding([...wallets('w1'), ...wallets('w2'), ...exchanges('x1'), ...exchanges('x2')]);
    const store = new SearchStore(client, 'table');
    const derived: string[][] = [];
    store.deriveAhead((records) => derived.push(records.map((r) => r.slug)));
    await store.records('w1', 'wallets');
    ddb.resetHistory();

    // Exchanges were never searched here: their new version is left to the search that names it.
    await store.prepare({ wallets: { version: 'w2' }, exchanges: { version: 'x2' } });
    const read = ddb.commandCalls(GetCommand).map((c) => c.args[0].input.Key?.PK);
    expect(read).toEqual([documentBlockKey(searchChunkName('w2', 0)).PK]);
    expect(derived).toEqual([(await store.records('w1'))?.map((r) => r.slug)]);

    ddb.resetHistory();
    expect((await store.records('w2', 'wallets'))?.map((r) => r.slug)).toEqual(derived[0]);
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('prepares nothing for a version it holds or a pointer naming the same one, and never fails', async () => {
    holding(wallets('w1'));
    const store = new SearchStore(client, 'table');
    let derivations = 0;
    store.deriveAhead(() => derivations++);
    await store.records('w1', 'wallets');
    ddb.resetHistory();
    await store.prepare({ wallets: { version: 'w1' } });
    await store.prepare({});
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);

    ddb.on(GetCommand).rejects(new Error('throttled'));
    await expect(store.prepare({ wallets: { version: 'w9' } })).resolves.toBeUndefined();
    expect(derivations).toBe(0);
  });

  it('reads ahead with nothing to derive, and a version stored without records derives nothing', async () => {
    holding([...wallets('w1'), ...wallets('w2')]);
    const plain = new SearchStore(client, 'table');
    await plain.records('w1', 'wallets');
    await plain.prepare({ wallets: { version: 'w2' } });
    ddb.resetHistory();
    const prepared = await plain.records('w2', 'wallets');
    expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    expect(prepared).toEqual(await plain.records('w1'));

    const store = new SearchStore(client, 'table');
    let derivations = 0;
    store.deriveAhead(() => derivations++);
    await store.records('w1', 'wallets');
    await store.prepare({ wallets: { version: 'w-old' } });
    expect(derivations).toBe(0);
    expect(await store.records('w-old', 'wallets')).toBeUndefined();
  });
});
