/**
 * Generated offer records for the projection tests (test/unit/import/project*.test.ts): ties in
 * different spellings, nulls, every platform case; and the projection of earn offers the block tests
 * edit.
 */
import type { OfferFamily } from '../../shared/data/keys';
import type { ApyStats } from '../../shared/domain/apy-stats';
import { type Dataset, parseDataset } from '../../shared/import/dataset';
import { type Platforms, type Projection, platformResolver, projectOffers } from '../../shared/import/project';
import { fixtureDataset } from '../fixtures/dataset';
import { ASSETS, borrowRecord, type RecordOf as Doc, earnRecord, seeded as random } from './records';

/** Decimals with many exact ties in different spellings, tiny and huge magnitudes, and negatives. */
export const DECIMALS = [
  ...['0', '0.0', '-0.1', '-1.50', '-1.5', '1.5', '1.50', '1.500', '5.5', '12.25', '100'],
  ...[
    '99.999999999999999999999',
    '100.000000000000000000001',
    '0.000000000000000000000000000000001',
    '123456789012345678901234567890.5',
  ],
];
const TIMES = [
  ...['2026-11-10T00:00:00.000Z', '2026-11-10T00:00:00Z', '2026-11-10T00:00:00.0004Z', '2026-11-10T00:00:00+00:00'],
  ...['2026-11-12T08:30:00.123456789Z', '2026-11-09T23:59:59.999Z'],
];
const PLATFORM_REFS = [
  { type: 'exchange', slug: 'binance', name: 'Binance' },
  { type: 'exchange', slug: 'bybit-old', name: 'Bybit' },
  { type: 'exchange', slug: 'hidden-ex', name: 'Hidden' },
  { type: 'protocol', slug: 'aave', name: 'Aave' },
  { type: 'wallet', slug: 'trezor', name: 'Trezor' },
  null,
];

/** `count` earn offers (ids in shuffled order) over three assets, with ties, nulls and every platform case. */
export function generatedEarn(count: number, seed = 7): Doc[] {
  const r = random(seed);
  const ids = Array.from({ length: count }, (_, i) => 10 + i * 3);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(r.next() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return ids.map((id) =>
    earnRecord(id, r.pick(DECIMALS), {
      tvl: r.pick([null, ...DECIMALS]),
      updated_at: r.pick(TIMES),
      asset: r.pick([...ASSETS, null]),
      chain: r.pick([null, ASSETS[1]]),
      platform: r.pick(PLATFORM_REFS),
      available: r.next() < 0.8,
      published: r.next() < 0.95,
    }),
  );
}

export function generatedBorrow(count: number, seed = 11): Doc[] {
  const r = random(seed);
  return Array.from({ length: count }, (_, i) =>
    borrowRecord(1000 - i, r.pick(DECIMALS), {
      total_supply_usd: r.pick([null, ...DECIMALS]),
      updated_at: r.pick(TIMES),
      platform: r.pick(PLATFORM_REFS),
      is_active: r.next() < 0.5,
    }),
  );
}

const fixturePlatforms = (() => {
  const { exchanges, wallets, protocols } = fixtureDataset();
  return parseDataset({ exchanges, wallets, protocols });
})();
/**
 * Generated records validated by parseDataset once each (its schema and bounds are per record): the
 * block tests project dozens of edits of the same 900 records (project.heavy.test.ts).
 */
const validated = new WeakMap<Doc, unknown>();
function validatedOffers<F extends 'earn_offers' | 'borrow_offers'>(
  family: F,
  records: Doc[],
): NonNullable<Dataset[F]> {
  const fresh = records.filter((r) => !validated.has(r));
  const parsed: readonly unknown[] = parseDataset({ [family]: fresh })[family] ?? [];
  fresh.forEach((r, i) => validated.set(r, parsed[i]));
  return records.map((r) => validated.get(r)) as NonNullable<Dataset[F]>;
}

/** The fixture's platforms with generated offers (validated, so defaults are filled in as an import has them). */
export const withOffers = (earn: Doc[], borrow: Doc[] = []): Dataset => ({
  ...fixturePlatforms,
  earn_offers: validatedOffers('earn_offers', earn),
  borrow_offers: validatedOffers('borrow_offers', borrow),
});

export const platformsOf = (dataset: Dataset): Platforms => ({
  exchanges: dataset.exchanges ?? [],
  wallets: dataset.wallets ?? [],
  protocols: dataset.protocols ?? [],
});

/** Earn or borrow records (any other family: borrow) projected as an import projects them, with the fixture's platforms. */
export function projectGenerated(family: OfferFamily, records: Doc[], figures?: Map<number, ApyStats>): Projection {
  const dataset = family === 'earn' ? withOffers(records) : withOffers([], records);
  const list = (family === 'earn' ? dataset.earn_offers : dataset.borrow_offers) ?? [];
  return projectOffers(family, list, platformResolver(platformsOf(dataset)), figures);
}

/** Earn records projected as an import projects them, with the fixture's platforms. */
export const projectEarn = (records: Doc[]): Projection => projectGenerated('earn', records);

/** The position of the block holding offer `id`'s document (-1 if none does). */
export const blockPositionOf = (p: Projection, id: number) =>
  p.blocks.findIndex((b) => b.docs.some((d) => JSON.parse(d).id === id));
