/**
 * The projection of a family's records into one version (docs/adr/0009-one-index-per-family-version.md):
 * the ordered index (visibility, former slugs, every ordering of docs/api.md, the filter facts) and
 * the documents in blocks whose boundaries depend on identifiers only; and the codecs of the
 * stored items (shared/data/items/). Orders are checked against an independent
 * sort of the rendered documents (test/helpers/exact-decimal.ts).
 */
import { gzipSync } from 'node:zlib';
import {
  type CatalogIndex,
  type CatalogIndexData,
  type IndexData,
  indexOf,
  type OfferIndex,
  type OfferIndexData,
} from '../../../shared/data/family-index';
import { blockHash, decodeBlock, encodeBlock } from '../../../shared/data/items/document-block';
import { decodeIndex, encodeIndex } from '../../../shared/data/items/index-segment';
import { decodeManifest, encodeManifest, type Manifest } from '../../../shared/data/items/manifest';
import { type CatalogFamily, DATASET_FAMILY_OF, type OfferFamily } from '../../../shared/data/keys';
import type { ApyStats } from '../../../shared/domain/apy-stats';
import { type Dataset, parseDataset } from '../../../shared/import/dataset';
import {
  type Platforms,
  type Projection,
  platformResolver,
  projectCatalog,
  projectOffers,
} from '../../../shared/import/project';
import { isFigureSort, SORT_MODES, type SortMode } from '../../../shared/model/offer-families';
import { CorruptDataError } from '../../../shared/platform/errors';
import { fixtureDataset } from '../../fixtures/dataset';
import { compareExact } from '../../helpers/exact-decimal';
import { figureMapArb } from '../../helpers/figures';
import {
  blockPositionOf,
  DECIMALS,
  generatedBorrow,
  generatedEarn,
  platformsOf,
  projectEarn,
  withOffers,
} from '../../helpers/generated-offers';
import { rowsOf } from '../../helpers/offer-facts';
import { fc } from '../../helpers/property';
import { earnRecord, type RecordOf, seeded as random } from '../../helpers/records';

type Doc = RecordOf;

const fixture = parseDataset(fixtureDataset());
const resolve = platformResolver(platformsOf(fixture));

const catalog = (family: CatalogFamily, dataset: Dataset = fixture) => projectCatalog(family, dataset[family] ?? []);
const offers = (family: OfferFamily, dataset: Dataset = fixture, resolver = resolve) =>
  projectOffers(family, dataset[DATASET_FAMILY_OF[family]] ?? [], resolver);

/** Every document of a projection, by entry, read through the entry's (block, slot). */
function docsOf({ index, blocks }: Projection): Doc[] {
  const byHash = new Map(blocks.map((b) => [b.hash, b.docs]));
  return index.block.map((b, entry) => JSON.parse(byHash.get(index.blocks[b])![index.slot[entry]]));
}
const allDocs = ({ blocks }: Projection) => blocks.flatMap((b) => b.docs);
const catalogIndex = (p: Projection) => indexOf('v', p.index) as CatalogIndex;
const offerIndex = (p: Projection) => indexOf('v', p.index) as OfferIndex;

// ---- visibility and former slugs --------------------------------------------------------------

/** An index as the import wrote it: its orders as lists (decodeIndex reads them as typed integers). */
const listedOrders = (data: IndexData): IndexData =>
  data.kind === 'offers'
    ? {
        ...data,
        orders: Object.fromEntries(Object.entries(data.orders).map(([mode, o]) => [mode, Array.from(o ?? [])])),
      }
    : data;

describe('visibility', () => {
  it.each<[CatalogFamily, string[], string[]]>([
    ['exchanges', ['binance', 'bybit', 'coinbase', 'kraken', 'okx'], ['hidden-ex', 'gone-ex']],
    ['wallets', ['argent', 'ledger', 'trezor', 'zengo'], ['ledger-live', 'bitbox']],
    ['currencies', ['also-no-rank', 'bitcoin', 'ethereum', 'no-rank', 'tether'], ['secret-coin', 'dead-coin']],
  ])('%s: hidden and delisted records are in neither the index nor any block', (family, exposed, absent) => {
    const projection = catalog(family);
    const index = catalogIndex(projection);

    expect([...(projection.index as CatalogIndexData).slugs].sort()).toEqual(exposed);
    for (const slug of absent) expect(index.entry(slug)).toBeUndefined();
    expect(allDocs(projection)).toHaveLength(exposed.length);
    expect(
      allDocs(projection)
        .map((d) => JSON.parse(d).slug)
        .sort(),
    ).toEqual(exposed);
    for (const slug of absent) expect(allDocs(projection).join('\n')).not.toContain(`"slug":"${slug}"`);
  });

  it.each<[OfferFamily, number[]]>([
    ['earn', [1, 2, 3, 4, 5, 6, 7, 9]],
    ['borrow', [1, 2, 3, 5]],
    ['collateral', [1, 2, 3]],
  ])(
    '%s: unpublished offers are in neither the index nor any block; offers of hidden platforms are',
    (family, published) => {
      const projection = offers(family);

      expect((projection.index as OfferIndexData).ids).toEqual(published);
      expect(
        allDocs(projection)
          .map((d) => JSON.parse(d).id)
          .sort((a, b) => a - b),
      ).toEqual(published);
    },
  );
});

describe('former slugs', () => {
  it('redirect to the current slug of an exposed record, never for a hidden or delisted one', () => {
    expect(catalogIndex(catalog('exchanges')).redirect('bybit-old')).toBe('bybit');
    expect(catalogIndex(catalog('protocols')).redirect('makerdao')).toBe('maker');
    expect(catalogIndex(catalog('currencies')).redirect('tether-usd')).toBe('tether');
    // gone-old is a former slug of a delisted exchange.
    expect(catalogIndex(catalog('exchanges')).redirect('gone-old')).toBeUndefined();
    expect(catalogIndex(catalog('exchanges')).redirect('toString')).toBeUndefined();
  });

  it('a current slug wins over somebody else’s former one', () => {
    const records = parseDataset({
      exchanges: [
        { ...fixtureDataset().exchanges[0], slug: 'new-name', previous_slugs: ['old-name', 'taken'] },
        { ...fixtureDataset().exchanges[1], slug: 'taken' },
      ],
    }).exchanges!;
    // The import refuses such a file (crossRecordErrors); the projection still never shadows a current slug.
    const index = catalogIndex(projectCatalog('exchanges', records));

    expect(index.redirect('old-name')).toBe('new-name');
    expect(index.redirect('taken')).toBeUndefined();
    expect(index.entry('taken')).toBeDefined();
  });
});

// ---- orderings --------------------------------------------------------------------------------

describe('orderings (docs/api.md, "Orderings")', () => {
  it.each<[CatalogFamily, string[]]>([
    // weekly visits descending, null last, ties by slug
    ['exchanges', ['binance', 'bybit', 'coinbase', 'kraken', 'okx']],
    // lowercased name ascending (argent < Ledger), ties by slug
    ['wallets', ['argent', 'ledger', 'trezor', 'zengo']],
    // TVL descending as exact decimals, the tie 10000000.5 by slug, null last
    ['protocols', ['lido', 'aave', 'maker', 'compound', 'curve']],
    // rank ascending, nulls last by slug
    ['currencies', ['bitcoin', 'ethereum', 'tether', 'also-no-rank', 'no-rank']],
  ])('%s list order', (family, expected) => {
    const projection = catalog(family);
    const docs = docsOf(projection);

    expect(catalogIndex(projection).order.map((e) => docs[e].slug)).toEqual(expected);
  });

  it('protocols: generated TVLs in exact decimal order, null last, ties by slug', () => {
    const r = random(3);
    const [protocol] = fixtureDataset().protocols;
    const records = parseDataset({
      protocols: Array.from({ length: 120 }, (_, i) => ({
        ...protocol,
        slug: `p-${(i * 7919) % 1000}`,
        stats: { category: null, tvl: r.pick([null, ...DECIMALS]) },
      })),
    }).protocols!;
    const projection = projectCatalog('protocols', records);
    const docs = docsOf(projection);
    const expected = [...docs]
      .sort((a, b) => {
        const [x, y] = [a.stats.tvl, b.stats.tvl];
        if (x === null || y === null) return x === y ? (a.slug < b.slug ? -1 : 1) : x === null ? 1 : -1;
        return -compareExact(x, y) || (a.slug < b.slug ? -1 : 1);
      })
      .map((d) => d.slug);

    expect(catalogIndex(projection).order.map((e) => docs[e].slug)).toEqual(expected);
  });

  /** The independent order of docs/api.md over rendered documents: exact decimals, null last, ties by id. */
  function expectedOrder(docs: Doc[], family: 'earn' | 'borrow', mode: SortMode): number[] {
    const field = { earn: { apy: 'apy', tvl: 'tvl' }, borrow: { apy: 'net_borrow_apy', tvl: 'total_supply_usd' } }[
      family
    ];
    const value = (d: Doc): string | null =>
      mode === 'tvl_desc' ? d[field.tvl] : mode === 'updated_desc' ? d.updated_at : d[field.apy];
    const direction = mode === 'apy_asc' ? 1 : -1;
    return [...docs]
      .sort((a, b) => {
        const [x, y] = [value(a), value(b)];
        if (x === null || y === null) return x === y ? a.id - b.id : x === null ? 1 : -1;
        // Rendered timestamps are ISO 8601 UTC with milliseconds: their text order is their time order.
        const c = mode === 'updated_desc' ? (x < y ? -1 : x > y ? 1 : 0) : compareExact(x, y);
        return direction * c || a.id - b.id;
      })
      .map((d) => d.id);
  }

  it.each(SORT_MODES.filter((mode) => !isFigureSort(mode)))(
    'earn and borrow, %s: the exact order of the rendered documents',
    (mode) => {
      const dataset = withOffers(generatedEarn(400), generatedBorrow(300));
      for (const family of ['earn', 'borrow'] as const) {
        const projection = offers(family, dataset, platformResolver(platformsOf(dataset)));
        const index = offerIndex(projection);
        const docs = docsOf(projection);

        const actual = index.order(mode).map((e) => index.id(e));

        expect(actual).toEqual(expectedOrder(docs, family, mode));
      }
    },
  );

  it('without figures, an index carries none and orders every figure mode by id; figures of two times are refused', () => {
    const dataset = withOffers(generatedEarn(50));
    const records = dataset.earn_offers ?? [];
    const index = offerIndex(projectOffers('earn', records, resolve));
    expect(index.data.figures).toBeUndefined();
    expect(index.figures(0)).toBeUndefined();
    for (const mode of SORT_MODES.filter(isFigureSort))
      expect(index.order(mode)).toEqual(index.data.ids.map((_, i) => i));
    const stats = (as_of: string): ApyStats => ({
      as_of,
      change_1d: null,
      change_7d: null,
      change_30d: null,
      mean_7d: null,
      mean_30d: null,
      stddev_30d: null,
      points_30d: 0,
    });
    const [a, b] = records.filter((r) => r.published).map((r) => r.id as number);
    const mixed = new Map([
      [a, stats('2026-11-20T10:00:00.000Z')],
      [b, stats('2026-11-20T11:00:00.000Z')],
    ]);
    expect(() => projectOffers('earn', records, resolve, mixed)).toThrow(/as of one time/);
    // Collateral has no figures, whatever it is given.
    expect(projectOffers('collateral', fixture.collateral_offers ?? [], resolve, mixed).index).not.toHaveProperty(
      'figures',
    );
  });

  it("counts the packed figures in the instance's index budget at a byte a character, not three", () => {
    const records = withOffers(generatedEarn(60)).earn_offers ?? [];
    const ids = records.filter((r) => r.published).map((r) => r.id as number);
    const [figures] = fc.sample(figureMapArb(ids), { numRuns: 1, seed: 3 });
    const stored = (map?: Map<number, ApyStats>) => {
      const { data, textLength } = decodeIndex(
        'v',
        encodeIndex('v', projectOffers('earn', records, resolve, map).index),
      );
      return indexOf('v', data, textLength) as OfferIndex;
    };
    const plain = stored();
    const figured = stored(figures);
    const packed = (figured.data.figures?.stats.toJSON() ?? []).reduce((n, s) => n + (s?.length ?? 0), 0);
    const orders = (index: OfferIndex) => Object.keys(index.data.orders).length * index.size * 8;
    expect(packed).toBeGreaterThan(0);
    expect(plain.heapBytes).toBe(plain.textLength * 3 + orders(plain));
    expect(figured.heapBytes).toBe(figured.textLength * 3 + orders(figured) - 2 * packed);
  });

  it('fixture known answers: 5.5 and 5.50 tie (id first) in both directions; tvl null last', () => {
    const index = offerIndex(offers('earn'));
    const ids = (mode: SortMode) => index.order(mode).map((e) => index.id(e));

    expect(ids('apy_desc')).toEqual([3, 7, 5, 1, 2, 9, 6, 4]);
    expect(ids('apy_asc')).toEqual([4, 6, 9, 1, 2, 5, 7, 3]);
    expect(ids('tvl_desc')).toEqual([3, 1, 6, 7, 9, 5, 4, 2]);
    expect(ids('updated_desc')).toEqual([6, 9, 1, 2, 3, 4, 5, 7]);
  });

  it('collateral has its one order, updated_desc, and no other', () => {
    const index = offerIndex(offers('collateral'));

    expect(index.order('updated_desc').map((e) => index.id(e))).toEqual([2, 1, 3]);
    expect(() => index.order('apy_desc')).toThrow();
  });
});

// ---- the filter facts and the documents --------------------------------------------------------

describe('filter facts', () => {
  it('are what each rendered document shows: platform as rendered, asset, chain, flag', () => {
    const dataset = withOffers(generatedEarn(300), generatedBorrow(200));
    for (const family of ['earn', 'borrow'] as const) {
      const projection = offers(family, dataset, platformResolver(platformsOf(dataset)));
      const docs = docsOf(projection);

      const facts = rowsOf(offerIndex(projection).facts());

      expect(facts.map((f) => [f.id, f.platformType, f.platform, f.asset, f.chain, f.flag])).toEqual(
        docs.map((d) => [
          d.id,
          d.platform?.type ?? null,
          d.platform?.slug ?? null,
          d.asset?.slug ?? null,
          d.chain?.slug ?? null,
          (family === 'earn' ? d.available : d.is_active) ? 1 : 0,
        ]),
      );
    }
  });

  it('resolve platforms as docs/api.md says: a former slug to the current one, a hidden or delisted platform to null', () => {
    const facts = new Map(rowsOf(offerIndex(offers('earn')).facts()).map((f) => [f.id, f]));
    const borrow = new Map(rowsOf(offerIndex(offers('borrow')).facts()).map((f) => [f.id, f]));

    expect(facts.get(6)).toMatchObject({ platformType: 'exchange', platform: 'bybit' }); // bybit-old
    expect(facts.get(5)).toMatchObject({ platformType: null, platform: null, asset: 'bitcoin' }); // hidden-ex
    expect(facts.get(7)).toMatchObject({ platformType: null, platform: null, asset: null });
    expect(facts.get(4)).toMatchObject({ flag: 0 });
    expect(borrow.get(5)).toMatchObject({ platformType: null, platform: null, chain: 'ethereum' }); // gone-ex, delisted
  });

  it('keep APY and TVL keys in the exact order of their decimals, null for a null TVL', () => {
    const dataset = withOffers(generatedEarn(200));
    const projection = offers('earn', dataset, platformResolver(platformsOf(dataset)));
    const docs = docsOf(projection);
    const facts = rowsOf(offerIndex(projection).facts());
    const sign = (n: number) => Math.sign(n);
    const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

    const wrong: unknown[] = [];
    for (let i = 0; i < facts.length; i++) {
      if ((facts[i].tvlKey === null) !== (docs[i].tvl === null)) wrong.push(['tvl', docs[i].tvl, facts[i].tvlKey]);
      for (let j = 0; j < facts.length; j++) {
        if (sign(text(facts[i].apyKey!, facts[j].apyKey!)) !== compareExact(docs[i].apy, docs[j].apy))
          wrong.push(['apy', docs[i].apy, docs[j].apy]);
        if (
          docs[i].tvl !== null &&
          docs[j].tvl !== null &&
          sign(text(facts[i].tvlKey!, facts[j].tvlKey!)) !== compareExact(docs[i].tvl, docs[j].tvl)
        ) {
          wrong.push(['tvl', docs[i].tvl, docs[j].tvl]);
        }
      }
    }

    expect(wrong).toEqual([]);
  });
});

describe('documents', () => {
  it('keep decimal strings byte for byte and render timestamps as UTC with milliseconds', () => {
    const earn = allDocs(offers('earn')).join('\n');
    const currencies = allDocs(catalog('currencies')).join('\n');
    const wallets = docsOf(catalog('wallets'));
    const dataset = withOffers([
      earnRecord(1, '1.50', {
        updated_at: '2026-11-12T08:30:00.123456789+00:00',
        available_updated_at: '2026-11-12T08:30:00Z',
      }),
    ]);
    const [generated] = docsOf(offers('earn', dataset, platformResolver(platformsOf(dataset))));

    expect(earn).toContain('"apy":"0.000000000000000000000000000000000000001"');
    expect(earn).toContain('"apy":"5.50"');
    expect(currencies).toContain('"usd_price":"67000.123456789012345678901234567890"');
    expect(wallets.map((w) => w.updated_at)).toEqual(wallets.map(() => '2026-11-01T00:00:00.000Z'));
    expect(generated).toMatchObject({
      apy: '1.50',
      updated_at: '2026-11-12T08:30:00.123Z',
      available_updated_at: '2026-11-12T08:30:00.000Z',
    });
  });

  it('render platforms with their family’s type, and offers with the platform as served', () => {
    const [wallet] = docsOf(catalog('wallets'));
    const earn = new Map(docsOf(offers('earn')).map((d) => [d.id, d]));

    expect(wallet.type).toBe('wallet');
    expect(earn.get(6)!.platform).toEqual({ type: 'exchange', slug: 'bybit', name: 'Bybit' });
    expect(earn.get(5)!.platform).toBeNull();
    expect(Object.keys(earn.get(1)!)).not.toContain('published');
  });
});

// ---- blocks -----------------------------------------------------------------------------------

describe('blocks', () => {
  const base = generatedEarn(900);
  const project = projectEarn;
  const before = project(base);
  const idsOfBlock = (p: Projection, position: number) =>
    p.blocks[position].docs.map((d) => JSON.parse(d).id as number);
  const positionOf = blockPositionOf;

  it('every entry’s (block, slot) holds its own document, and the index names exactly the projection’s blocks', () => {
    for (const projection of [before, catalog('exchanges'), catalog('currencies'), offers('borrow')]) {
      const docs = docsOf(projection);
      const identifiers = projection.index.kind === 'offers' ? projection.index.ids : projection.index.slugs;

      expect(docs.map((d) => d.id ?? d.slug)).toEqual(identifiers);
      expect(projection.index.blocks).toEqual(projection.blocks.map((b) => b.hash));
      expect(new Set(projection.index.blocks).size).toBe(projection.blocks.length);
      // Every document of every block is some entry's: nothing stored that no entry names.
      expect(allDocs(projection)).toHaveLength(docs.length);
    }
  });

  it('group offers by asset, in id order', () => {
    const groups = before.blocks.map((b) => b.docs.map((d) => JSON.parse(d)));

    for (const docs of groups) {
      expect(new Set(docs.map((d) => d.asset?.slug ?? null)).size).toBe(1);
      expect(docs.map((d) => d.id)).toEqual([...docs.map((d) => d.id)].sort((a, b) => a - b));
    }
    expect(before.blocks.length).toBeGreaterThan(20);
    // The cap of 24 is reached: a run of identifiers without a boundary is cut.
    expect(Math.max(...before.blocks.map((b) => b.docs.length))).toBe(24);
  });

  it('changing one offer’s document changes its own block only', () => {
    const target = base.find((o) => o.published && o.apy !== '42.125')!;
    const changed = base.map((o) => (o.id === target.id ? { ...o, apy: '42.125' } : o));

    const after = project(changed);

    const position = positionOf(before, target.id);
    expect(after.index.blocks).toHaveLength(before.index.blocks.length);
    const differing = after.index.blocks.flatMap((hash, i) => (hash === before.index.blocks[i] ? [] : [i]));
    expect(differing).toEqual([position]);
    expect(idsOfBlock(after, position)).toEqual(idsOfBlock(before, position));
    // The other entries' document hashes are equal too: the same representation is served.
    const changedEntry = after.index.kind === 'offers' ? after.index.ids.indexOf(target.id) : -1;
    expect(after.index.hash.filter((h, e) => h !== before.index.hash[e])).toEqual([after.index.hash[changedEntry]]);
  });

  it('changing every document keeps every offer in the same block and slot: boundaries follow identifiers only', () => {
    const changed = base.map((o, i) => ({
      ...o,
      apy: `${i}.${'7'.repeat(1 + (i % 40))}`,
      updated_at: '2026-11-21T00:00:00.000Z',
      product_name: 'p'.repeat(i % 300),
    }));

    const after = project(changed);

    expect(after.blocks.map((b) => b.docs.map((d) => JSON.parse(d).id))).toEqual(
      before.blocks.map((b) => b.docs.map((d) => JSON.parse(d).id)),
    );
    expect(after.index.block).toEqual(before.index.block);
    expect(after.index.slot).toEqual(before.index.slot);
    expect(after.index.blocks.filter((hash) => before.index.blocks.includes(hash))).toEqual([]);
  });

  it('never hold more than 24 documents or 48 KB of them, whatever the documents’ sizes', () => {
    const r = random(5);
    // Names in ASCII and in characters of two, three and four UTF-8 bytes (at most 2,048 characters
    // each, the data file's bound), in two fields (a record is at most 16 KB): the bound is in bytes.
    const names = ['x', 'y'.repeat(2_000), 'z'.repeat(2_048), 'é'.repeat(2_048), '€'.repeat(2_048), '😀'.repeat(1_024)];
    const sized = base.map((o) => ({ ...o, product_name: r.pick(names), link: r.pick(names) }));

    const projection = project(sized);

    for (const block of projection.blocks) {
      expect(block.docs.length).toBeLessThanOrEqual(24);
      const bytes = block.docs.reduce((n, d) => n + Buffer.byteLength(d), 0);
      const documents = block.docs.length;
      expect({ block: block.hash, documents, overBound: bytes > 48 * 1024 }).toEqual({
        block: block.hash,
        documents,
        overBound: false,
      });
    }
    // The bound cut blocks that the identifiers alone would have kept whole.
    expect(projection.blocks.length).toBeGreaterThan(before.blocks.length);
  });

  it('equal content is one block: projecting the same records again names the same blocks', () => {
    const again = project(structuredClone(base).reverse());

    expect(again.index).toEqual(before.index);
    expect(again.blocks).toEqual(before.blocks);
  });
});

// ---- platform references ---------------------------------------------------------------------

describe('platform resolver', () => {
  const platforms = platformsOf(fixture);
  const digestWith = (family: keyof Platforms, edit: (records: Doc[]) => Doc[]) =>
    platformResolver({
      ...platforms,
      [family]: parseDataset({ [family]: edit(structuredClone(fixtureDataset()[family])) })[family],
    }).digest;

  it('resolves a current or former slug to the exposed platform, anything else to null', () => {
    expect(resolve({ type: 'exchange', slug: 'bybit-old', name: 'Old' })).toEqual({
      type: 'exchange',
      slug: 'bybit',
      name: 'Bybit',
    });
    expect(resolve({ type: 'exchange', slug: 'kraken', name: 'whatever' })).toEqual({
      type: 'exchange',
      slug: 'kraken',
      name: 'Kraken',
    });
    expect(resolve({ type: 'exchange', slug: 'hidden-ex', name: 'Hidden' })).toBeNull();
    expect(resolve({ type: 'exchange', slug: 'gone-old', name: 'Gone' })).toBeNull();
    expect(resolve({ type: 'wallet', slug: 'kraken', name: 'Kraken' })).toBeNull();
    expect(resolve({ type: 'exchange', slug: 'nowhere', name: 'Nowhere' })).toBeNull();
    expect(resolve(null)).toBeNull();
  });

  it.each<[string, keyof Platforms, (records: Doc[]) => Doc[]]>([
    [
      'a statistic',
      'exchanges',
      (r) => r.map((e) => (e.slug === 'kraken' ? { ...e, stats: { ...e.stats, weekly_visits: 1 } } : e)),
    ],
    [
      'an update time and a URL',
      'protocols',
      (r) => r.map((p) => ({ ...p, updated_at: '2030-01-01T00:00:00Z', url: 'https://elsewhere.example' })),
    ],
    ['the order of the records', 'wallets', (r) => [...r].reverse()],
  ])('keeps its digest when %s changes: no reference renders differently', (_, family, edit) => {
    expect(digestWith(family, edit)).toBe(resolve.digest);
  });

  const renamedKraken = (r: Doc[]) =>
    r.map((e) => (e.slug === 'kraken' ? { ...e, slug: 'kraken2', previous_slugs: ['kraken'] } : e));

  it.each<[string, keyof Platforms, (records: Doc[]) => Doc[]]>([
    [
      'a platform is renamed',
      'exchanges',
      (r) => r.map((e) => (e.slug === 'kraken' ? { ...e, name: 'Kraken Pro' } : e)),
    ],
    ['a platform is hidden', 'wallets', (r) => r.map((w) => (w.slug === 'trezor' ? { ...w, published: false } : w))],
    ['a platform is delisted', 'protocols', (r) => r.map((p) => (p.slug === 'aave' ? { ...p, delisted: true } : p))],
    [
      'a hidden platform is published',
      'exchanges',
      (r) => r.map((e) => (e.slug === 'hidden-ex' ? { ...e, published: true } : e)),
    ],
    ['a slug changes (the old one becomes former)', 'exchanges', renamedKraken],
    [
      'a former slug is added',
      'exchanges',
      (r) => r.map((e) => (e.slug === 'okx' ? { ...e, previous_slugs: ['okex'] } : e)),
    ],
  ])('changes its digest when %s', (_, family, edit) => {
    expect(digestWith(family, edit)).not.toBe(resolve.digest);
  });
});

// ---- stored item codecs ----------------------------------------------------------------------

describe('stored items', () => {
  const earn = offers('earn');

  it('an index round-trips, in one segment (several: project.heavy.test.ts)', () => {
    for (const data of [earn.index, catalog('protocols').index] as IndexData[]) {
      const items = encodeIndex('v7', data);

      expect(items.map((i) => [i.PK, i.SK])).toEqual(items.map((_, s) => ['V#v7#INDEX', String(s).padStart(6, '0')]));
      const decoded = decodeIndex('v7', items).data;
      expect(listedOrders(decoded)).toEqual(data);
      // An offer index's orders read back as typed integers (half the heap of a list of numbers).
      if (decoded.kind === 'offers')
        expect(Object.values(decoded.orders).every((order) => order instanceof Int32Array)).toBe(true);
    }
  });

  it('a block round-trips its documents, line breaks and separators inside strings included', () => {
    const docs = ['{"a":"line\\nbreak"}', '{"b":"\u2028\u2029 and \\r"}', ...allDocs(earn)];
    const hash = blockHash('earn', docs);

    const item = encodeBlock(hash, docs);

    expect([item.PK, item.SK]).toEqual([`DOC#${hash}`, 'DOC']);
    expect(decodeBlock(hash, 'earn', item).all()).toEqual(docs);
  });

  it("a block's key is SHA-256 of its family and documents, one a line (32 hex digits)", () => {
    // Known answers (Python's hashlib): sha256(b'earn\n{"id":1}\n{"id":2}'), sha256(b'exchanges\n{"slug":"a"}').
    expect(blockHash('earn', ['{"id":1}', '{"id":2}'])).toBe('a45760da4e1d3813b32730a1a5dafa8a');
    expect(blockHash('exchanges', ['{"slug":"a"}'])).toBe('6634e8c21f3d3a577d07cc10234d01c6');
  });

  it('a manifest round-trips, in one chunk (several: project.heavy.test.ts)', () => {
    const manifest: Manifest = { keys: [['V#v#INDEX', '000000']], blocks: ['b1', 'b2'] };

    const items = encodeManifest('v', manifest);

    expect(items.every((i) => i.PK === 'V#v#MANIFEST')).toBe(true);
    expect(decodeManifest('v', items)).toEqual(manifest);
  });

  it('a manifest item without its compressed body is corrupt (no other layout is read)', () => {
    const other = { PK: 'V#old#MANIFEST', SK: '000000', keys: '[["V#old#LIST#earn","META"]]' };
    expect(() => decodeManifest('old', [other])).toThrow(CorruptDataError);
  });

  describe('a stored item that does not decode is corrupt data', () => {
    const index = encodeIndex('v', earn.index);
    /** An earn block of these documents, read under its own key. */
    const block = (docs: string[]) =>
      decodeBlock(blockHash('earn', docs), 'earn', encodeBlock(blockHash('earn', docs), docs));
    const reindexed = (edit: (data: any) => void) => {
      const data = structuredClone(earn.index) as any;
      edit(data);
      return encodeIndex('v', data);
    };

    it.each<[string, () => unknown]>([
      ['a missing segment', () => decodeIndex('v', [...index, undefined])],
      ['a segment of other bytes', () => decodeIndex('v', [{ ...index[0], z: Buffer.from('not gzip') }])],
      ['a truncated segment', () => decodeIndex('v', [{ ...index[0], z: (index[0].z as Buffer).subarray(0, 20) }])],
      ['an index that is not JSON', () => decodeIndex('v', [{ ...index[0], z: gzipSync('{"kind":') }])],
      [
        'an index of an unknown kind',
        () =>
          decodeIndex(
            'v',
            reindexed((d) => (d.kind = 'views')),
          ),
      ],
      [
        'a column one entry short',
        () =>
          decodeIndex(
            'v',
            reindexed((d) => d.apyKey.pop()),
          ),
      ],
      [
        'a column of the wrong type',
        () =>
          decodeIndex(
            'v',
            reindexed((d) => (d.flag[0] = true)),
          ),
      ],
      [
        "an offer's figures one entry short",
        () =>
          decodeIndex(
            'v',
            reindexed(
              (d) => (d.figures = { as_of: '2026-11-20T10:00:00.000Z', stats: d.ids.slice(1).map(() => null) }),
            ),
          ),
      ],
      [
        "an offer's figures not packed",
        () =>
          decodeIndex(
            'v',
            reindexed(
              (d) => (d.figures = { as_of: '2026-11-20T10:00:00.000Z', stats: d.ids.map(() => '1.5|2|||||x') }),
            ),
          ),
      ],
      [
        'figures as of no instant',
        () =>
          decodeIndex(
            'v',
            reindexed((d) => (d.figures = { as_of: 'yesterday', stats: d.ids.map(() => null) })),
          ),
      ],
      [
        'an entry naming no block',
        () =>
          decodeIndex(
            'v',
            reindexed((d) => (d.block[0] = d.blocks.length)),
          ),
      ],
      [
        'offer ids out of their ascending order (an entry is found by them)',
        () =>
          decodeIndex(
            'v',
            reindexed((d) => ([d.ids[0], d.ids[1]] = [d.ids[1], d.ids[0]])),
          ),
      ],
      [
        'an offer id twice',
        () =>
          decodeIndex(
            'v',
            reindexed((d) => (d.ids[1] = d.ids[0])),
          ),
      ],
      [
        'an order that is not a permutation',
        () =>
          decodeIndex(
            'v',
            reindexed((d) => (d.orders.apy_desc[0] = d.orders.apy_desc[1])),
          ),
      ],
      ['a block that is not gzip', () => decodeBlock('h', 'earn', { PK: 'DOC#h', SK: 'DOC', z: Buffer.from('{}') })],
      ['a block without content', () => decodeBlock('h', 'earn', { PK: 'DOC#h', SK: 'DOC' })],
      ['a block with a non-JSON document', () => block(['{"id":1}', '{"id":']).doc(1, 2)],
      ['a block with a document that is no object', () => block(['[1]']).doc(0, 1)],
      ['a slot past the block', () => block(['{"id":1}']).doc(1, 2)],
      // What an audit found served 200: a block whose content is not what its key hashes.
      [
        "a block holding another block's documents",
        () => decodeBlock(blockHash('earn', ['{"id":1}']), 'earn', encodeBlock('h', ['{"id":2}'])),
      ],
      [
        'a block holding {"id":"x"}',
        () => decodeBlock(blockHash('earn', ['{"id":1}']), 'earn', encodeBlock('h', ['{"id":"x"}'])),
      ],
      [
        "a block of another family under this family's key",
        () => decodeBlock(blockHash('earn', ['{"id":1}']), 'borrow', encodeBlock('h', ['{"id":1}'])),
      ],
      ['an offer document that is not the one its entry names', () => block(['{"id":1}', '{"id":2}']).doc(1, 1)],
      ['an offer document whose id is a string', () => block(['{"id":"1"}']).doc(0, 1)],
      ['a platform document that is not the one its entry names', () => block(['{"slug":"a"}']).doc(0, 'b')],
      [
        'a manifest that is not a list',
        () => decodeManifest('v', [{ PK: 'V#v#MANIFEST', SK: '000000', z: gzipSync('{"keys":[]}') }]),
      ],
      [
        'a manifest entry of the wrong shape',
        () => decodeManifest('v', [{ PK: 'V#v#MANIFEST', SK: '000000', z: gzipSync('[["PK"],"b"]') }]),
      ],
      ['a manifest without content', () => decodeManifest('v', [{ PK: 'V#v#MANIFEST', SK: '000000' }])],
    ])('%s', (_, decode) => {
      expect(decode).toThrow(CorruptDataError);
    });

    it('while the good documents of a block with a bad one still read, each as the one its entry names', () => {
      const view = block(['{"id":1}', 'oops']);

      expect(view.doc(0, 1)).toBe('{"id":1}');
      expect(() => view.all()).toThrow(CorruptDataError);
      expect(block(['{"slug":"a","id":7}']).doc(0, 'a')).toBe('{"slug":"a","id":7}');
    });
  });
});
