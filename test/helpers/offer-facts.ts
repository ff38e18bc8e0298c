/**
 * Offers as the offer-facts tests see them (test/unit/domain/offer-facts*.test.ts): the served
 * values, the facts the data layer's index builds from them (decimalSortKey of the decimal
 * strings), and an index over them with one drawn order.
 */
import { indexOf, type OfferIndex, type OfferIndexData } from '../../shared/data/family-index';
import type { OfferFamily } from '../../shared/data/keys';
import type { OfferFacts } from '../../shared/domain/offer-facts';
import { decimalSortKey } from '../../shared/platform/decimal';

/** An offer as the oracle sees it: the served values, not keys. */
export interface Offer {
  id: number;
  platformType: OfferFacts['platformType'];
  platform: string | null;
  asset: string | null;
  chain: string | null;
  apy: string | null;
  tvl: string | null;
  flag: boolean;
}

export const factsOf = (o: Offer): OfferFacts => ({
  id: o.id,
  platformType: o.platformType,
  platform: o.platform,
  asset: o.asset,
  chain: o.chain,
  apyKey: o.apy === null ? null : decimalSortKey(o.apy),
  tvlKey: o.tvl === null ? null : decimalSortKey(o.tvl),
  flag: o.flag,
});

/** An offer family's index over the offers, with one order (a permutation the test draws). */
export function indexOver(family: OfferFamily, all: Offer[], order: number[]): OfferIndex {
  const data: OfferIndexData = {
    kind: 'offers',
    family,
    ids: all.map((o) => o.id),
    block: all.map(() => 0),
    slot: all.map((_, i) => i),
    blocks: ['b'],
    hash: all.map((o) => `h${o.id}`),
    platformType: all.map((o) => o.platformType),
    platform: all.map((o) => o.platform),
    asset: all.map((o) => o.asset),
    chain: all.map((o) => o.chain),
    apyKey: all.map((o) => factsOf(o).apyKey),
    tvlKey: all.map((o) => factsOf(o).tvlKey),
    flag: all.map((o) => (o.flag ? 1 : 0)),
    orders: { drawn: order },
  };
  return indexOf('v1', data) as OfferIndex;
}
