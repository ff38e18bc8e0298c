import { RETENTION_MS, SERIES } from '../../../../shared/domain/buckets';
import { OFFER_FAMILIES } from '../../../../shared/model/offer-families';
import { formatDataset } from '../../../../tools/sample-data/format';
import {
  BENCH,
  type GenerateOptions,
  generateDataset,
  PRESETS,
  QUICK_BENCH,
  SAMPLE,
} from '../../../../tools/sample-data/generate';
import { isNewOffer, NEW_OFFER_DAYS } from '../../../../tools/sample-data/history';
import type {
  AssetRef,
  BorrowOfferRecord,
  CollateralOfferRecord,
  CurrencyRecord,
  EarnOfferRecord,
  GeneratedDataset,
  PlatformRecord,
  PlatformRef,
} from '../../../../tools/sample-data/types';

const NOW = new Date('2025-06-01T12:00:00.000Z');
const OPTIONS: GenerateOptions = { ...SAMPLE, now: NOW };
/** A quarter-size dataset for the tests that only compare two generations. */
const SMALL: GenerateOptions = {
  ...OPTIONS,
  currencies: 100,
  earn: 80,
  borrow: 50,
  collateral: 50,
  historyOffers: 4,
  historyDays: 10,
};
const DECIMAL = /^-?\d+(\.\d+)?$/;

const CATALOG_FLAGS = ['published', 'delisted', 'previous_slugs'];
const PLATFORM_FIELDS = ['type', 'slug', 'name', 'url', 'logo64', 'stats', 'updated_at'];
const STATS: Record<string, string[]> = {
  exchanges: ['num_coins', 'num_markets', 'weekly_visits', 'daily_spot_volume', 'is_centralized'],
  wallets: [
    'wallet_type',
    'num_coins',
    'anonymity_rating',
    'ease_of_use_rating',
    'security_rating',
    'platforms',
    'additional_services',
  ],
  protocols: ['category', 'tvl'],
};
const OFFER_HEAD = ['id', 'compositeKey', 'platform', 'chain', 'asset'];
const LENDING_HEAD = [...OFFER_HEAD, 'platform_type', 'term_days'];
const LENDING_TAIL = ['is_active', 'link', 'synced_at', 'updated_at'];
const OFFER_FIELDS: Record<string, string[]> = {
  earn_offers: [
    ...OFFER_HEAD,
    ...[
      'reward_assets',
      'product_type',
      'product_name',
      'duration_days',
      'apy',
      'estimated_apy',
      'estimated_apy_updated_at',
    ],
    ...['tvl', 'min_amount', 'max_amount', 'available', 'available_updated_at', 'link', 'updated_at'],
  ],
  borrow_offers: [
    ...LENDING_HEAD,
    ...['borrow_apy', 'supply_apy', 'net_borrow_apy', 'real_net_borrow_apy'],
    ...['total_supply_usd', 'total_borrow_usd', 'available_liquidity_usd', ...LENDING_TAIL],
  ],
  collateral_offers: [...LENDING_HEAD, 'initial_ltv', 'margin_call_ltv', 'liquidation_ltv', ...LENDING_TAIL],
};
const CURRENCY_STATS = [
  ...['rank_by_market_cap', 'circulating_supply', 'total_supply', 'max_supply', 'usd_price', 'usd_volume_24h'],
  ...['usd_market_cap', 'usd_percent_change_24h', 'usd_market_cap_dominance'],
] as const;

type Offer = EarnOfferRecord | BorrowOfferRecord | CollateralOfferRecord;
type CatalogRecord = PlatformRecord | CurrencyRecord;

let dataset: GeneratedDataset;

beforeAll(() => {
  dataset = generateDataset(OPTIONS);
});

const catalogFamilies = (): Array<[string, CatalogRecord[]]> => [
  ['exchanges', dataset.exchanges],
  ['wallets', dataset.wallets],
  ['protocols', dataset.protocols],
  ['currencies', dataset.currencies],
];

const offerFamilies = (): Array<[string, Offer[]]> => [
  ['earn_offers', dataset.earn_offers],
  ['borrow_offers', dataset.borrow_offers],
  ['collateral_offers', dataset.collateral_offers],
];

const platformsOf = (type: PlatformRef['type']): PlatformRecord[] =>
  ({ exchange: dataset.exchanges, wallet: dataset.wallets, protocol: dataset.protocols })[type];

const exposed = (record: CatalogRecord) => record.published !== false && record.delisted !== true;

/** The platform record an offer's reference resolves to (current or former slug, same family). */
const resolve = (ref: PlatformRef) =>
  platformsOf(ref.type).find((p) => p.slug === ref.slug || (p.previous_slugs ?? []).includes(ref.slug));

/** Compares decimal strings exactly, as the API must ("5.10" equals "5.1"). */
const sameDecimal = (a: string | null, b: string | null) =>
  a === b ||
  (a !== null &&
    b !== null &&
    a.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '') === b.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''));

/** Problems with a record's key set: missing required keys, keys the format does not know. */
function fieldProblems(
  record: object,
  required: readonly string[],
  optional: readonly string[],
  where: string,
): string[] {
  const keys = Object.keys(record);
  return [
    ...required.filter((k) => !keys.includes(k)).map((k) => `${where}: missing ${k}`),
    ...keys.filter((k) => !required.includes(k) && !optional.includes(k)).map((k) => `${where}: unknown ${k}`),
  ];
}

function expectDecimal(value: unknown, nullable: boolean, where: string): void {
  if (value === null && nullable) return;
  if (typeof value !== 'string' || !DECIMAL.test(value))
    throw new Error(`${where}: ${JSON.stringify(value)} is not a decimal string`);
}

describe('generateDataset', () => {
  describe('determinism', () => {
    it('gives different output for a different seed', () => {
      const one = generateDataset(SMALL);
      const other = generateDataset({ ...SMALL, seed: SMALL.seed + 1 });

      expect(other.currencies.map((c) => c.slug)).not.toEqual(one.currencies.map((c) => c.slug));
      expect(other.earn_offers.map((o) => o.apy)).not.toEqual(one.earn_offers.map((o) => o.apy));
    });

    it('moves only the times when the anchor moves', () => {
      const one = generateDataset(SMALL);
      const later = generateDataset({ ...SMALL, now: new Date(NOW.getTime() + 86_400_000) });

      expect(later.earn_offers.map((o) => [o.id, o.apy])).toEqual(one.earn_offers.map((o) => [o.id, o.apy]));
      expect(Date.parse(later.earn_offers[0].updated_at) - Date.parse(one.earn_offers[0].updated_at)).toBe(86_400_000);
    });
  });

  describe('counts', () => {
    it('produces exactly the requested number of records', () => {
      expect({
        currencies: dataset.currencies.length,
        exchanges: dataset.exchanges.length,
        wallets: dataset.wallets.length,
        protocols: dataset.protocols.length,
        earn: dataset.earn_offers.length,
        borrow: dataset.borrow_offers.length,
        collateral: dataset.collateral_offers.length,
        history: dataset.earn_history.length + dataset.borrow_history.length,
      }).toEqual({
        currencies: SAMPLE.currencies,
        exchanges: SAMPLE.exchanges,
        wallets: SAMPLE.wallets,
        protocols: SAMPLE.protocols,
        earn: SAMPLE.earn,
        borrow: SAMPLE.borrow,
        collateral: SAMPLE.collateral,
        // 'all': every published earn and borrow offer.
        history: [...dataset.earn_offers, ...dataset.borrow_offers].filter((o) => o.published !== false).length,
      });
    });

    it('handles tiny and empty sizes', () => {
      const zero = {
        currencies: 0,
        exchanges: 0,
        wallets: 0,
        protocols: 0,
        ...Object.fromEntries(OFFER_FAMILIES.map((family) => [family, 0])),
        historyOffers: 0,
      };

      expect(generateDataset({ ...OPTIONS, ...zero }).earn_offers).toEqual([]);
      const tiny = generateDataset({
        ...OPTIONS,
        ...zero,
        currencies: 3,
        exchanges: 2,
        wallets: 1,
        earn: 5,
        borrow: 2,
        collateral: 1,
        historyOffers: 2,
      });
      expect(tiny.earn_offers).toHaveLength(5);
      expect(tiny.earn_history).toHaveLength(1);
    });

    it('rejects invalid options', () => {
      expect(() => generateDataset({ ...OPTIONS, now: new Date('nope') })).toThrow(RangeError);
      expect(() => generateDataset({ ...OPTIONS, earn: -1 })).toThrow(/earn/);
      expect(() => generateDataset({ ...OPTIONS, historyStepHours: [] })).toThrow(/historyStepHours/);
      expect(() => generateDataset({ ...OPTIONS, currencies: 0 })).toThrow(/currency/);
    });

    it('sizes the presets as documented', () => {
      expect(BENCH).toMatchObject({ historyOffers: 50, historyDays: 3 * 365, historyStepHours: 1 });
      expect(BENCH.currencies).toBeGreaterThanOrEqual(10_000);
      expect(BENCH.exchanges).toBeGreaterThanOrEqual(1_000);
      expect(BENCH.wallets).toBeGreaterThanOrEqual(500);
      expect(BENCH.protocols).toBeGreaterThanOrEqual(3_000);
      expect(BENCH.earn).toBeGreaterThanOrEqual(20_000);
      expect(BENCH.borrow).toBeGreaterThanOrEqual(5_000);
      expect(BENCH.collateral).toBeGreaterThanOrEqual(5_000);
      expect(QUICK_BENCH.earn * 10).toBe(BENCH.earn);
      expect(Object.keys(PRESETS)).toEqual(['sample', 'quick-bench', 'bench']);
    });
  });

  describe('file format (README.md, Data import)', () => {
    it('gives platforms exactly their fields, with type equal to the family', () => {
      const problems: string[] = [];
      for (const [family, records] of catalogFamilies().filter(([f]) => f !== 'currencies')) {
        for (const [i, record] of (records as PlatformRecord[]).entries()) {
          problems.push(...fieldProblems(record, PLATFORM_FIELDS, CATALOG_FLAGS, `${family}[${i}]`));
          problems.push(...fieldProblems(record.stats, STATS[family], [], `${family}[${i}].stats`));
          if (`${record.type}s` !== family) problems.push(`${family}[${i}]: type ${record.type}`);
        }
      }

      expect(problems).toEqual([]);
    });

    it('gives currencies exactly their fields and all nine stats', () => {
      const fields = ['slug', 'name', 'symbol', 'category', 'sign', 'logo64', 'stats', 'updated_at'];
      const problems = dataset.currencies.flatMap((currency, i) => [
        ...fieldProblems(currency, fields, CATALOG_FLAGS, `currencies[${i}]`),
        ...fieldProblems(currency.stats, CURRENCY_STATS, [], `currencies[${i}].stats`),
      ]);

      expect(problems).toEqual([]);
    });

    it('gives offers exactly their fields, refs exactly theirs', () => {
      const problems: string[] = [];
      for (const [family, offers] of offerFamilies()) {
        for (const [i, offer] of offers.entries()) {
          problems.push(...fieldProblems(offer, OFFER_FIELDS[family], ['published'], `${family}[${i}]`));
          if (offer.platform)
            problems.push(...fieldProblems(offer.platform, ['type', 'slug', 'name'], [], `${family}[${i}].platform`));
          const assets = [offer.chain, offer.asset, ...('reward_assets' in offer ? offer.reward_assets : [])];
          for (const ref of assets.filter((r): r is AssetRef => r !== null)) {
            problems.push(...fieldProblems(ref, ['slug', 'symbol', 'name'], [], `${family}[${i}] asset ref`));
          }
        }
      }

      expect(problems).toEqual([]);
    });

    it('writes every decimal field as a plain decimal string', () => {
      for (const [i, c] of dataset.currencies.entries()) {
        for (const field of ['usd_price', 'usd_volume_24h', 'usd_market_cap'] as const)
          expectDecimal(c.stats[field], true, `currencies[${i}].stats.${field}`);
      }
      for (const [i, p] of dataset.protocols.entries()) expectDecimal(p.stats.tvl, false, `protocols[${i}].stats.tvl`);
      for (const [i, o] of dataset.earn_offers.entries()) {
        expectDecimal(o.apy, false, `earn_offers[${i}].apy`);
        expectDecimal(o.estimated_apy, false, `earn_offers[${i}].estimated_apy`);
        for (const field of ['tvl', 'min_amount', 'max_amount'] as const)
          expectDecimal(o[field], true, `earn_offers[${i}].${field}`);
      }
      for (const [i, o] of dataset.borrow_offers.entries()) {
        expectDecimal(o.net_borrow_apy, false, `borrow_offers[${i}].net_borrow_apy`);
        expectDecimal(o.real_net_borrow_apy, false, `borrow_offers[${i}].real_net_borrow_apy`);
        for (const field of [
          'borrow_apy',
          'supply_apy',
          'total_supply_usd',
          'total_borrow_usd',
          'available_liquidity_usd',
        ] as const) {
          expectDecimal(o[field], true, `borrow_offers[${i}].${field}`);
        }
      }
      for (const [i, o] of dataset.collateral_offers.entries()) {
        expectDecimal(o.initial_ltv, false, `collateral_offers[${i}].initial_ltv`);
        expectDecimal(o.margin_call_ltv, true, `collateral_offers[${i}].margin_call_ltv`);
        expectDecimal(o.liquidation_ltv, true, `collateral_offers[${i}].liquidation_ltv`);
      }
      for (const history of dataset.earn_history) {
        for (const point of history.points) {
          expectDecimal(point.apy, false, `earn history ${history.offer_id}`);
          expectDecimal(point.tvl, true, `earn history ${history.offer_id}`);
        }
      }
      for (const history of dataset.borrow_history) {
        for (const point of history.points) expectDecimal(point.apy, false, `borrow history ${history.offer_id}`);
      }
    });

    it('writes JSON numbers only where the spec has numbers, never with an exponent', () => {
      const { exchanges, wallets, currencies } = dataset;
      const integers = [
        ...exchanges.flatMap((e) => [e.stats.num_coins, e.stats.num_markets, e.stats.weekly_visits]),
        ...wallets.map((w) => w.stats.num_coins),
        ...currencies.map((c) => c.stats.rank_by_market_cap).filter((n) => n !== null),
      ];
      const numbers = [
        ...integers,
        ...currencies.flatMap((c) => [c.stats.circulating_supply, c.stats.total_supply, c.stats.max_supply]),
        ...currencies.flatMap((c) => [c.stats.usd_percent_change_24h, c.stats.usd_market_cap_dominance]),
        ...exchanges.map((e) => e.stats.daily_spot_volume),
        ...wallets.flatMap((w) => [w.stats.anonymity_rating, w.stats.ease_of_use_rating, w.stats.security_rating]),
      ].filter((n) => n !== null);

      expect(
        numbers.filter((n) => typeof n !== 'number' || !Number.isFinite(n) || /e/i.test(JSON.stringify(n))),
      ).toEqual([]);
      expect(integers.filter((n) => !Number.isSafeInteger(n))).toEqual([]);
    });

    it('writes timestamps as UTC ISO strings with milliseconds, none after the anchor', () => {
      const bad: string[] = [];
      const visit = (value: unknown, path: string): void => {
        if (Array.isArray(value)) {
          value.forEach((v, i) => visit(v, `${path}[${i}]`));
          return;
        }
        if (value === null || typeof value !== 'object') return;
        for (const [key, v] of Object.entries(value)) {
          if (key.endsWith('_at') || key === 'timestamp') {
            const ok =
              typeof v === 'string' && v.endsWith('Z') && new Date(v).toISOString() === v && new Date(v) <= NOW;
            if (!ok) bad.push(`${path}.${key}=${String(v)}`);
          } else visit(v, `${path}.${key}`);
        }
      };

      visit(dataset, 'dataset');

      expect(bad).toEqual([]);
    });

    it('round-trips through the pretty-compact file format, under 4 MB for the sample', () => {
      const text = Array.from(formatDataset(dataset)).join('');

      expect(JSON.stringify(JSON.parse(text))).toBe(JSON.stringify(dataset));
      expect(Buffer.byteLength(text)).toBeLessThan(4_000_000);
      expect(text.split('\n')[2]).toMatch(/^ {4}\{"type":"exchange",/);
    });
  });

  describe('identity', () => {
    it('keeps slugs unique per family, with former slugs distinct from every current slug', () => {
      for (const [family, records] of catalogFamilies()) {
        const slugs = records.map((r) => r.slug);
        const former = records.flatMap((r) => r.previous_slugs ?? []);
        expect({ family, duplicates: slugs.length - new Set(slugs).size }).toEqual({ family, duplicates: 0 });
        expect(new Set([...slugs, ...former]).size).toBe(slugs.length + former.length);
        expect(slugs.filter((s) => !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(s))).toEqual([]);
      }
    });

    it('keeps offer ids positive, integral and unique per family, composite keys too', () => {
      for (const [family, offers] of offerFamilies()) {
        const ids = offers.map((o) => o.id);
        expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
        expect({ family, ids: new Set(ids).size, keys: new Set(offers.map((o) => o.compositeKey)).size }).toEqual({
          family,
          ids: offers.length,
          keys: offers.length,
        });
      }
    });

    it('ranks the famous currencies first, ascending, with a few unranked', () => {
      const ranks = dataset.currencies.map((c) => c.stats.rank_by_market_cap);
      const ranked = ranks.filter((r): r is number => r !== null);

      expect(dataset.currencies.slice(0, 3).map((c) => c.slug)).toEqual(['bitcoin', 'ethereum', 'tether']);
      expect(dataset.currencies.slice(0, 10).map((c) => c.slug)).toEqual(
        expect.arrayContaining(['usd-coin', 'solana', 'xrp']),
      );
      expect(ranked).toEqual(ranked.map((_, i) => i + 1));
      expect(ranks.filter((r) => r === null).length).toBeGreaterThanOrEqual(3);
      expect(Number(dataset.currencies[0].stats.usd_price)).toBeGreaterThan(10_000);
      expect(new Set(dataset.currencies.map((c) => c.symbol)).size).toBe(dataset.currencies.length);
    });
  });

  describe('catalog edge cases', () => {
    it.each(['exchanges', 'wallets', 'protocols', 'currencies'])(
      '%s include hidden, delisted, renamed and default-flag records',
      (family) => {
        const records = catalogFamilies().find(([f]) => f === family)![1];

        expect(records.some((r) => r.published === false)).toBe(true);
        expect(records.some((r) => r.delisted === true)).toBe(true);
        expect(records.some((r) => (r.previous_slugs ?? []).length > 0 && exposed(r))).toBe(true);
        expect(records.some((r) => !('published' in r))).toBe(true);
        expect(records.some((r) => !('delisted' in r))).toBe(true);
        expect(records.some((r) => !('previous_slugs' in r))).toBe(true);
        expect(
          records.some((r) => r.published === true && r.delisted === false && Array.isArray(r.previous_slugs)),
        ).toBe(true);
      },
    );

    it('carries the real renames and closures the docs name', () => {
      const find = (records: CatalogRecord[], slug: string) => records.find((r) => r.slug === slug);

      expect(find(dataset.exchanges, 'okx')?.previous_slugs).toEqual(['okex']);
      expect(find(dataset.exchanges, 'htx')?.previous_slugs).toEqual(['huobi-global', 'huobi']);
      expect(find(dataset.exchanges, 'ftx')?.delisted).toBe(true);
      expect(find(dataset.exchanges, 'bitrue')?.published).toBe(false);
      expect(find(dataset.wallets, 'bitget-wallet')?.previous_slugs).toEqual(['bitkeep']);
      expect(find(dataset.protocols, 'sushi')?.previous_slugs).toEqual(['sushiswap']);
      expect(find(dataset.protocols, 'anchor-protocol')?.delisted).toBe(true);
      expect(find(dataset.currencies, 'polygon-ecosystem-token')?.previous_slugs).toEqual(['polygon']);
      expect(find(dataset.currencies, 'terraclassicusd')?.delisted).toBe(true);
      expect(find(dataset.currencies, 'plian')?.published).toBe(false);
    });

    it('has ties on the platform sort keys', () => {
      const visits = dataset.exchanges.map((e) => e.stats.weekly_visits);
      const tvls = dataset.protocols.map((p) => p.stats.tvl);

      expect(new Set(visits).size).toBeLessThan(visits.length);
      expect(new Set(tvls).size).toBeLessThan(tvls.length);
    });
  });

  describe('offer edge cases', () => {
    it.each(['earn_offers', 'borrow_offers', 'collateral_offers'])(
      '%s reference renamed, hidden, delisted, unknown and no platforms',
      (family) => {
        const offers = offerFamilies().find(([f]) => f === family)![1];
        const refs = offers.map((o) => o.platform).filter((p): p is PlatformRef => p !== null);

        expect(offers.some((o) => o.platform === null)).toBe(true);
        expect(offers.some((o) => o.chain === null)).toBe(true);
        expect(offers.some((o) => o.published === false)).toBe(true);
        expect(refs.some((ref) => resolve(ref)?.published === false)).toBe(true);
        expect(refs.some((ref) => resolve(ref)?.delisted === true)).toBe(true);
        expect(refs.some((ref) => resolve(ref) === undefined)).toBe(true);
        expect(
          refs.some((ref) => resolve(ref) !== undefined && resolve(ref)!.slug !== ref.slug && exposed(resolve(ref)!)),
        ).toBe(true);
        expect(refs.every((ref) => ['exchange', 'wallet', 'protocol'].includes(ref.type))).toBe(true);
      },
    );

    it('references a renamed platform of every family by a former slug', () => {
      const refs = offerFamilies().flatMap(([, offers]) =>
        offers.map((o) => o.platform).filter((p): p is PlatformRef => p !== null),
      );

      for (const type of ['exchange', 'wallet', 'protocol'] as const) {
        const renamed = platformsOf(type).filter((p) => (p.previous_slugs ?? []).length > 0 && exposed(p));
        const referenced = renamed.filter((p) =>
          refs.some((ref) => ref.type === type && p.previous_slugs!.includes(ref.slug)),
        );
        expect({ type, referenced: referenced.length > 0 }).toEqual({ type, referenced: true });
      }
    });

    it('has offers that are published but not available or not active', () => {
      expect(dataset.earn_offers.some((o) => !o.available && o.published !== false)).toBe(true);
      expect(dataset.borrow_offers.some((o) => !o.is_active && o.published !== false)).toBe(true);
      expect(dataset.collateral_offers.some((o) => !o.is_active && o.published !== false)).toBe(true);
    });

    it('leaves every nullable field null somewhere', () => {
      /** The fields that are never null in `records` (should be none). */
      const neverNull = <T>(records: T[], fields: ReadonlyArray<keyof T>) =>
        fields.filter((f) => !records.some((r) => r[f] === null));
      const { earn_offers, borrow_offers, collateral_offers, currencies } = dataset;

      expect(
        neverNull(earn_offers, ['platform', 'chain', 'asset', 'tvl', 'min_amount', 'max_amount', 'duration_days']),
      ).toEqual([]);
      expect(neverNull(borrow_offers, ['platform', 'chain', 'term_days', 'borrow_apy', 'supply_apy'])).toEqual([]);
      expect(neverNull(borrow_offers, ['total_supply_usd', 'total_borrow_usd', 'available_liquidity_usd'])).toEqual([]);
      expect(
        neverNull(collateral_offers, ['platform', 'chain', 'term_days', 'margin_call_ltv', 'liquidation_ltv']),
      ).toEqual([]);
      expect(
        neverNull(
          currencies.map((c) => c.stats),
          CURRENCY_STATS,
        ),
      ).toEqual([]);
      expect(neverNull(currencies, ['sign', 'logo64'])).toEqual([]);
    });

    it('has published earn offers tied on apy, tvl and updated_at, one apy at another scale', () => {
      const tied = dataset.earn_offers.filter(
        (o) => o.published !== false && o.platform !== null && sameDecimal(o.apy, '5.1') && o.tvl === '2500000.00',
      );

      expect(tied.length).toBeGreaterThanOrEqual(3);
      expect(new Set(tied.map((o) => o.updated_at)).size).toBe(1);
      expect(new Set(tied.map((o) => o.apy))).toEqual(new Set(['5.1', '5.10']));
      expect(tied.every((o) => exposed(resolve(o.platform!)!))).toBe(true);
    });

    it('has borrow and collateral offers tied on their sort keys', () => {
      const borrowTied = dataset.borrow_offers.filter(
        (o) => sameDecimal(o.net_borrow_apy, '3.2') && o.total_supply_usd === '150000000.00',
      );
      const byUpdated = new Map<string, number>();
      for (const o of dataset.collateral_offers) byUpdated.set(o.updated_at, (byUpdated.get(o.updated_at) ?? 0) + 1);

      expect(borrowTied.length).toBeGreaterThanOrEqual(3);
      expect(new Set(borrowTied.map((o) => o.updated_at)).size).toBe(1);
      expect(Math.max(...byUpdated.values())).toBeGreaterThanOrEqual(3);
    });

    it('has negative net borrow rates and a zero earn apy', () => {
      expect(dataset.borrow_offers.some((o) => o.net_borrow_apy.startsWith('-'))).toBe(true);
      expect(dataset.earn_offers.some((o) => o.apy === '0')).toBe(true);
    });

    it('points asset refs at generated currencies, mostly popular ones', () => {
      const bySlug = new Map(dataset.currencies.map((c) => [c.slug, c]));
      const formerSlugs = new Set(dataset.currencies.flatMap((c) => c.previous_slugs ?? []));
      const refs = offerFamilies().flatMap(([, offers]) =>
        offers
          .flatMap((o) => [o.chain, o.asset, ...('reward_assets' in o ? o.reward_assets : [])])
          .filter((r): r is AssetRef => r !== null),
      );
      const unknown = refs.filter((r) => bySlug.get(r.slug)?.symbol !== r.symbol && !formerSlugs.has(r.slug));

      expect(unknown).toEqual([]);
      expect(refs.some((r) => formerSlugs.has(r.slug))).toBe(true);
      // A list filtered by any of them shows several offers.
      for (const slug of ['bitcoin', 'ethereum', 'tether', 'usd-coin']) {
        expect(
          dataset.earn_offers.filter((o) => o.asset?.slug === slug && o.published !== false).length,
        ).toBeGreaterThanOrEqual(3);
      }
    });
  });

  describe('history', () => {
    const stepsOf = (points: Array<{ timestamp: string }>) =>
      new Set(points.slice(1).map((p, i) => (Date.parse(p.timestamp) - Date.parse(points[i].timestamp)) / 3_600_000));

    it('covers the requested offers, ascending, ending at or before the anchor, within the window', () => {
      const from = NOW.getTime() - SAMPLE.historyDays * 86_400_000;
      for (const history of [...dataset.earn_history, ...dataset.borrow_history]) {
        const times = history.points.map((p) => Date.parse(p.timestamp));
        expect(times.length).toBeGreaterThan(1);
        expect(times.every((t, i) => i === 0 || t > times[i - 1])).toBe(true);
        // The first point of a series observed a few minutes past the hour falls before `from`, by less than an hour.
        expect(times[0]).toBeGreaterThan(from - 3_600_000);
        expect(times[times.length - 1]).toBeLessThanOrEqual(NOW.getTime());
        expect(times[times.length - 1]).toBeGreaterThan(NOW.getTime() - 7 * 3_600_000);
      }
    });

    it('ends each series at the offer it belongs to', () => {
      const earn = new Map(dataset.earn_offers.map((o) => [o.id, o]));
      const borrow = new Map(dataset.borrow_offers.map((o) => [o.id, o]));

      for (const history of dataset.earn_history) {
        const last = history.points[history.points.length - 1];
        expect(last).toEqual({
          timestamp: last.timestamp,
          apy: earn.get(history.offer_id)!.apy,
          tvl: earn.get(history.offer_id)!.tvl,
        });
      }
      for (const history of dataset.borrow_history) {
        const last = history.points[history.points.length - 1];
        expect(last).toEqual({ timestamp: last.timestamp, apy: borrow.get(history.offer_id)!.net_borrow_apy });
      }
    });

    it('is alive: every published earn and borrow offer has 90 days ending at the anchor, hourly while the 1 h series keeps them, daily before', () => {
      const detailFrom = NOW.getTime() - RETENTION_MS[SERIES['1h'].stored]!;
      const published = (offers: Array<{ id: number; published?: boolean }>) =>
        offers.filter((o) => o.published !== false).map((o) => o.id);
      const series = [...dataset.earn_history, ...dataset.borrow_history].map((history) => ({
        history,
        days: isNewOffer(SAMPLE, history.offer_id) ? NEW_OFFER_DAYS : SAMPLE.historyDays,
      }));
      const newOnes = series.filter(({ days }) => days === NEW_OFFER_DAYS);

      expect(dataset.earn_history.map((h) => h.offer_id)).toEqual(published(dataset.earn_offers).sort((a, b) => a - b));
      expect(dataset.borrow_history.map((h) => h.offer_id)).toEqual(
        published(dataset.borrow_offers).sort((a, b) => a - b),
      );
      expect(newOnes.length).toBeGreaterThan(0);
      for (const { history, days } of series) {
        const times = history.points.map((p) => Date.parse(p.timestamp));
        expect(NOW.getTime() - times[0]).toBeGreaterThanOrEqual(days * 86_400_000);
        expect(NOW.getTime() - times[0]).toBeLessThan(days * 86_400_000 + 3_600_000);
        const steps = times.slice(1).map((t, i) => [times[i], t - times[i]]);
        // Hourly within the 1 h series' retention (a rare point missing), daily before (one outage).
        expect(
          steps.filter(([at, step]) => at >= detailFrom && (step % 3_600_000 !== 0 || step > 3 * 3_600_000)),
        ).toEqual([]);
        expect(steps.filter(([at, step]) => at < detailFrom - 86_400_000 && step !== 86_400_000).length).toBeLessThan(
          2,
        );
      }
      expect(dataset.borrow_history.some((h) => h.points.some((p) => p.apy.startsWith('-')))).toBe(true);
      expect(dataset.earn_history.some((h) => h.points.some((p) => p.tvl === null))).toBe(true);
      expect(dataset.earn_history.some((h) => h.points.some((p) => p.tvl !== null))).toBe(true);
    });

    it('in the benchmark presets, gives its series one step all along', () => {
      const small = generateDataset({ ...SMALL, historyStepHours: [1, 6] });
      const steps = new Set([...small.earn_history, ...small.borrow_history].flatMap((h) => [...stepsOf(h.points)]));

      expect(steps.has(1)).toBe(true);
      expect(steps.has(6)).toBe(true);
      expect([...steps].every((step) => step % 1 === 0)).toBe(true);
    });
  });
});
