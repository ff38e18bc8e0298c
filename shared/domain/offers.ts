/**
 * Offer lists, details and the offers of one asset, answered from the family version's index
 * (shared/domain/family-index.ts): the filters are a predicate over each offer's facts, the sort
 * mode an order the import wrote, `total` a count. Only the page's documents are read, by key,
 * in one round trip, whatever the filters and the offset (docs/data-model.md).
 */
import { numberSortKey } from '../decimal';
import { NotFoundError } from '../errors';
import { OFFER_FAMILIES, type OfferFamily } from '../keys';
import type { OfferQuery } from '../schemas/query';
import type { Stores } from '../stores';
import type { OfferFacts, OfferIndex } from './family-index';
import { DEFAULT_SORT, effectiveSort } from './orderings';
import { pageOf, pagination, type Page } from './page';
import { servedOffers } from './served';

/** The filters of a list as one predicate over an offer's facts (none: every offer). */
function matcherOf(query: OfferQuery): ((f: OfferFacts) => boolean) | undefined {
  const { platform_type: type, platform, asset } = query;
  const apyKey = query.min_apy === undefined ? undefined : numberSortKey(query.min_apy);
  if (type === undefined && platform === undefined && asset === undefined && apyKey === undefined) return undefined;
  return (f) =>
    (type === undefined || f.platformType === type) &&
    (platform === undefined || f.platform === platform) &&
    (asset === undefined || f.asset === asset) &&
    (apyKey === undefined || (f.apyKey !== null && f.apyKey >= apyKey));
}

export async function listOffers(stores: Stores, family: OfferFamily, query: OfferQuery): Promise<Page> {
  const { offset, limit } = query;
  const served = await servedOffers(stores, family);
  if (!served) return { docs: [], page: pagination(0, offset, limit, 0) };
  const { index } = served;
  const { total, entries } = pageOf(index.order(effectiveSort(family, query.sort)), index.facts(), matcherOf(query), offset, limit);
  const docs = await stores.documents.docs(entries.map((e) => index.ref(e)));
  return { docs, page: pagination(total, offset, limit, docs.length) };
}

export async function getOffer(stores: Stores, family: OfferFamily, id: number): Promise<string> {
  const index = (await servedOffers(stores, family))?.index;
  const entry = index?.entry(id);
  if (index === undefined || entry === undefined) throw new NotFoundError(`No such ${family} offer.`);
  const [doc] = await stores.documents.docs([index.ref(entry)]);
  return doc;
}

/** Whether `id` is a published offer of the family (history answers 404 otherwise). */
export async function offerExists(stores: Stores, family: OfferFamily, id: number): Promise<boolean> {
  return (await servedOffers(stores, family))?.index.entry(id) !== undefined;
}

/** The published offers whose asset is `slug`, each family in its default order: their blocks in one read. */
export async function offersOfAsset(stores: Stores, slug: string): Promise<Record<OfferFamily, string[]>> {
  const indexes = await Promise.all(OFFER_FAMILIES.map((family) => servedOffers(stores, family).then((s) => s?.index)));
  const members = OFFER_FAMILIES.map((family, i) => {
    const index: OfferIndex | undefined = indexes[i];
    return index ? index.ofAsset(slug, DEFAULT_SORT[family]).map((e) => index.ref(e)) : [];
  });
  const docs = await stores.documents.docs(members.flat());
  const [earn, borrow] = [members[0].length, members[1].length];
  return { earn: docs.slice(0, earn), borrow: docs.slice(earn, earn + borrow), collateral: docs.slice(earn + borrow) };
}
