/**
 * A dataset with one very busy currency: QUICK_BENCH's offers (the BENCH generator, records and
 * shapes) all moved onto tether, and `extraEarn` more earn offers (copies under new ids), so that
 * its detail, which embeds every offer of its asset, is as large as a test needs.
 */
import { generateDataset, QUICK_BENCH } from '../../tools/sample-data/generate';

export const BUSY_ASSET = 'tether';

export function oneBusyAsset(extraEarn: number) {
  const dataset = generateDataset({
    ...QUICK_BENCH,
    historyOffers: 0,
    now: new Date('2026-11-20T00:00:00.000Z'),
  }) as unknown as Record<string, any[]>;
  const busy = dataset.currencies.find((c) => c.slug === BUSY_ASSET);
  const asset = { slug: busy.slug, symbol: busy.symbol, name: busy.name };
  const moved = (offers: any[]) => offers.map((offer) => ({ ...offer, asset }));
  const earn = moved(dataset.earn_offers);
  const maxId = Math.max(
    ...['earn_offers', 'borrow_offers', 'collateral_offers'].flatMap((f) => dataset[f].map((o) => o.id)),
  );
  const extra = Array.from({ length: extraEarn }, (_, i) => {
    const offer = earn[i % earn.length];
    return { ...offer, id: maxId + 1 + i, compositeKey: `${offer.compositeKey}:${i}` };
  });
  const { earn_history: _e, borrow_history: _b, ...rest } = dataset;
  return {
    ...rest,
    earn_offers: [...earn, ...extra],
    borrow_offers: moved(dataset.borrow_offers),
    collateral_offers: moved(dataset.collateral_offers),
  };
}
