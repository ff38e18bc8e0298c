/**
 * Two versions of an offer index for the index-delta tests (test/unit/data/index-delta*.test.ts):
 * generated records, the same records edited, their projection, and an index as an instance reads it.
 */
import type { OfferIndexData } from '../../shared/data/family-index';
import { decodeIndex, encodeIndex } from '../../shared/data/items/index-segment';
import type { OfferFamily } from '../../shared/data/keys';
import type { ApyStats } from '../../shared/domain/apy-stats';
import { DECIMALS, generatedBorrow, generatedEarn, projectGenerated } from './generated-offers';
import { ASSETS, type RecordOf, seeded } from './records';

const LATER = ['2026-11-20T00:00:00.000Z', '2026-11-20T00:05:00.000Z', '2026-11-09T00:00:00.000Z'];

/** Stored and read back as an instance holds it (orders as typed integers). */
export const asRead = (version: string, data: OfferIndexData) =>
  decodeIndex(version, encodeIndex(version, data)).data as OfferIndexData;

/** Records of one family, each edited with probability `share`: a moved APY or time, another asset or platform. */
export function edited(family: OfferFamily, records: RecordOf[], share: number, seed: number): RecordOf[] {
  const r = seeded(seed);
  return records.map((o) => {
    if (r.next() >= share) return o;
    const field = r.pick(['rate', 'time', 'asset', 'platform', 'flag', 'tvl']);
    const rate = family === 'earn' ? { apy: r.pick(DECIMALS) } : { net_borrow_apy: r.pick(DECIMALS) };
    switch (field) {
      case 'rate':
        return { ...o, ...rate };
      case 'time':
        return { ...o, updated_at: r.pick(LATER) };
      case 'asset':
        return { ...o, asset: r.pick(family === 'earn' ? [...ASSETS, null] : ASSETS) };
      case 'platform':
        return { ...o, platform: r.pick([null, { type: 'exchange', slug: 'binance', name: 'Binance' }]) };
      case 'flag':
        return family === 'earn' ? { ...o, available: !o.available } : { ...o, is_active: !o.is_active };
      default:
        return family === 'earn' ? { ...o, tvl: r.pick([null, ...DECIMALS]) } : o;
    }
  });
}

export const generated = (family: OfferFamily, count: number, seed: number) =>
  family === 'earn' ? generatedEarn(count, seed) : generatedBorrow(count, seed);

/** The index of the records' projection (`projectGenerated`). */
export const projectIndex = (family: OfferFamily, records: RecordOf[], figures?: Map<number, ApyStats>) =>
  projectGenerated(family, records, figures).index as OfferIndexData;
