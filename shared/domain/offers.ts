/**
 * Offer lists, details and the offers of one asset, answered from the family version's index
 * (shared/data/family-index.ts): the filters are a predicate over each offer's facts
 * (offer-facts.ts), run over the offers the query's ids or assets name when it names some and over
 * the whole order otherwise; the sort mode an order the import wrote, `total` a count. Only the page's
 * documents are read, by key, in one round trip, whatever the filters and the offset
 * (docs/data-model.md).
 */

import type { OfferIndex } from '../data/family-index';
import { OFFER_FAMILIES, type OfferFamily } from '../data/keys';
import type { Stores } from '../data/stores';
import { NotFoundError } from '../platform/errors';
import { candidates, type OfferFilters, offerMatcher } from './offer-facts';
import { DEFAULT_SORT, effectiveSort, type SortMode } from './orderings';
import { type Detail, later, type Page, type PageRequest, pageOf, pagination } from './page';
import { servedOffers } from './served';

/** An offer list: a page, the filters and the sort mode (docs/api.md, "Orderings"). */
export interface OfferListRequest extends PageRequest, OfferFilters {
  readonly sort?: SortMode;
}

export async function listOffers(stores: Stores, family: OfferFamily, query: OfferListRequest): Promise<Page> {
  const { offset, limit } = query;
  const { index, snapshot, publishedAt } = await servedOffers(stores, family, query.snapshot);
  const mode = effectiveSort(family, query.sort);
  const { total, entries } = index
    ? pageOf(candidates(index, mode, query), index.facts(), offerMatcher(family, query), offset, limit)
    : { total: 0, entries: [] };
  const docs = await stores.documents.docs(entries.map((e) => index!.ref(e)));
  return { docs, page: { ...pagination(total, offset, limit, docs.length), snapshot }, lastModified: publishedAt };
}

export async function getOffer(stores: Stores, family: OfferFamily, id: number): Promise<Detail> {
  const { index, publishedAt } = await servedOffers(stores, family);
  const entry = index?.entry(id);
  if (index === undefined || entry === undefined) throw new NotFoundError(`No such ${family} offer.`);
  const [doc] = await stores.documents.docs([index.ref(entry)]);
  return { doc, lastModified: publishedAt };
}

/** The ids among `ids` whose offers are published, in their order (the served index says: no document is read). */
export async function publishedOfferIds(
  stores: Stores,
  family: OfferFamily,
  ids: readonly number[],
): Promise<number[]> {
  const { index } = await servedOffers(stores, family);
  return index ? ids.filter((id) => index.entry(id) !== undefined) : [];
}

/**
 * The published offers whose asset is `slug`, each family in its default order (their blocks in
 * one read), and when the newest of the three versions was published.
 */
export async function offersOfAsset(
  stores: Stores,
  slug: string,
): Promise<Record<OfferFamily, string[]> & { lastModified: string }> {
  const served = await Promise.all(OFFER_FAMILIES.map((family) => servedOffers(stores, family)));
  const members = OFFER_FAMILIES.map((family, i) => {
    const index: OfferIndex | undefined = served[i].index;
    return index ? index.ofAsset(slug, DEFAULT_SORT[family]).map((e) => index.ref(e)) : [];
  });
  const docs = await stores.documents.docs(members.flat());
  const [earn, borrow] = [members[0].length, members[1].length];
  return {
    earn: docs.slice(0, earn),
    borrow: docs.slice(earn, earn + borrow),
    collateral: docs.slice(earn + borrow),
    lastModified: served.map((s) => s.publishedAt).reduce(later),
  };
}
