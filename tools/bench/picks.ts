/**
 * What the request mix asks for, picked from the generated dataset: the busiest platform and
 * asset (the largest filter views, the worst realistic case), a median APY bound, offers with the
 * longest history. Every pick is checked against the imported snapshot's index.
 */
import { OFFER_FAMILIES, OFFER_FAMILY, type OfferFamily } from '../../shared/model/offer-families';
import type { GeneratedDataset } from '../sample-data/generate';
import type { DenseBatch } from './dense-history';
import type { ServedData } from './floor';

type Offer = {
  id: number;
  published?: boolean;
  platform: { type: string; slug: string } | null;
  asset: { slug: string } | null;
};

export interface Picks {
  exchange: string;
  wallet: string;
  protocol: string;
  /** The currency with the most offers, and one from the middle of the ranking. */
  busiestCurrency: string;
  typicalCurrency: string;
  /** Filter values for earn: the platform type, platform and asset with the most offers. */
  platformType: string;
  platform: string;
  asset: string;
  /** The asset with the most offers on `platform` (two filters that match something). */
  platformAsset: string;
  /** The type of `platform` (three filters that match something). */
  platformTypeOfPlatform: string;
  earnMinApy: string;
  borrowMinApy: string;
  /** Version 1.2: a second busy asset, the busiest chain, a median TVL bound, 200 ids spread over the family. */
  secondAsset: string;
  chain: string;
  earnMinTvl: string;
  earnIds: number[];
  /** Version 1.2: earn versions of the bench table, oldest first: imported, after a 100 % refresh, after a 5 % one. */
  earnVersions?: [string, string, string];
  offerIds: Record<OfferFamily, number>;
  /** Offers with the longest stored history. */
  earnHistoryId: number;
  borrowHistoryId: number;
  /** Version 1.3: 50 published earn offers, those with the longest history first. */
  earnHistoryIds: number[];
  /** The dataset's time: custom history windows end there. */
  now: Date;
  /** The worst batch history (requests.ts `worstBatch`), once its items are written (run.ts). */
  denseBatch?: DenseBatch;
  /** 50 published earn offers without history: the worst batch's. */
  denseBatchIds: number[];
  historyPoints: { earn: number; borrow: number };
}

const published = <T extends { published?: boolean }>(records: T[]) => records.filter((r) => r.published !== false);

function mostCommon(values: (string | undefined)[]): string[] {
  const counts = new Map<string, number>();
  for (const value of values) if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([value]) => value);
}

/** The median of decimal strings at or above zero (a bound that about half the offers pass). */
function medianDecimal(values: (string | null | undefined)[]): string {
  const sorted = values
    .filter((v): v is string => typeof v === 'string' && !v.startsWith('-'))
    .sort((a, b) => Number(a) - Number(b));
  return sorted[Math.floor(sorted.length / 2)] ?? '0';
}

async function firstWithView(
  data: ServedData,
  family: OfferFamily,
  dimension: 'platform' | 'asset' | 'platform_type',
  candidates: string[],
): Promise<string> {
  for (const value of candidates) if ((await data.size(family, [{ dimension, value }])) > 0) return value;
  throw new Error(`no ${family} view for ${dimension} among ${candidates.slice(0, 5).join(', ')}`);
}

export async function pickRequests(dataset: GeneratedDataset, data: ServedData, now: Date): Promise<Picks> {
  const exposed = <T extends { published?: boolean; delisted?: boolean; slug: string }>(records: T[]) =>
    records.filter((r) => r.published !== false && r.delisted !== true).map((r) => r.slug);
  const offersOf = (family: OfferFamily) => dataset[OFFER_FAMILY[family].dataset] as unknown as Offer[];
  const earn = published(dataset.earn_offers as unknown as Offer[]);
  const publishedEarn = new Set(earn.map((o) => o.id));
  const offersOfAsset = mostCommon(
    OFFER_FAMILIES.flatMap((family) => published(offersOf(family))).map((o) => o.asset?.slug),
  );
  const platform = await firstWithView(data, 'earn', 'platform', mostCommon(earn.map((o) => o.platform?.slug)));
  const currencies = exposed(dataset.currencies);
  const longest = <T extends { offer_id: number; points: unknown[] }>(series: T[]) =>
    [...series].sort((a, b) => b.points.length - a.points.length)[0];
  const earnSeries = longest(dataset.earn_history);
  const borrowSeries = longest(dataset.borrow_history);
  return {
    exchange: exposed(dataset.exchanges)[0],
    wallet: exposed(dataset.wallets)[0],
    protocol: exposed(dataset.protocols)[0],
    busiestCurrency: offersOfAsset.find((slug) => currencies.includes(slug)) ?? currencies[0],
    typicalCurrency:
      offersOfAsset.filter((slug) => currencies.includes(slug))[Math.floor(offersOfAsset.length / 4)] ?? currencies[0],
    platformType: await firstWithView(data, 'earn', 'platform_type', mostCommon(earn.map((o) => o.platform?.type))),
    platform,
    asset: await firstWithView(data, 'earn', 'asset', mostCommon(earn.map((o) => o.asset?.slug))),
    platformAsset: mostCommon(earn.filter((o) => o.platform?.slug === platform).map((o) => o.asset?.slug))[0],
    platformTypeOfPlatform: mostCommon(
      earn.filter((o) => o.platform?.slug === platform).map((o) => o.platform?.type),
    )[0],
    earnMinApy: medianDecimal(dataset.earn_offers.map((o) => o.apy)),
    secondAsset: mostCommon(earn.map((o) => o.asset?.slug))[1],
    chain: mostCommon(earn.map((o) => (o as unknown as { chain: { slug: string } | null }).chain?.slug))[0],
    earnMinTvl: medianDecimal(dataset.earn_offers.map((o) => o.tvl)),
    earnIds: earn
      .filter((_, i) => i % Math.max(1, Math.floor(earn.length / 200)) === 0)
      .slice(0, 200)
      .map((o) => o.id),
    borrowMinApy: medianDecimal(dataset.borrow_offers.map((o) => o.net_borrow_apy)),
    offerIds: Object.fromEntries(OFFER_FAMILIES.map((family) => [family, published(offersOf(family))[0].id])) as Record<
      OfferFamily,
      number
    >,
    earnHistoryId: earnSeries.offer_id,
    borrowHistoryId: borrowSeries.offer_id,
    earnHistoryIds: [
      ...new Set([
        ...[...dataset.earn_history].sort((a, b) => b.points.length - a.points.length).map((s) => s.offer_id),
        ...earn.map((o) => o.id),
      ]),
    ]
      .filter((id) => publishedEarn.has(id))
      .slice(0, 50),
    now,
    denseBatchIds: earn
      .map((o) => o.id)
      .filter((id) => !dataset.earn_history.some((s) => s.offer_id === id))
      .slice(0, 50),
    historyPoints: { earn: earnSeries.points.length, borrow: borrowSeries.points.length },
  };
}
