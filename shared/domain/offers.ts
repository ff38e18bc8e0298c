/**
 * Offer lists, details and the offers of one asset, answered from the family version's index
 * (shared/data/family-index.ts): the filters are a predicate over each offer's facts
 * (offer-facts.ts), run over the offers the query's ids or assets name when it names some and over
 * the whole order otherwise; the sort mode an order the import wrote, `total` a count. Only the page's
 * documents are read, by key, in one round trip, whatever the filters and the offset
 * (docs/data-model.md).
 */

import { NO_FIGURES, type OfferIndex } from '../data/family-index';
import { OFFER_FAMILIES, type OfferFamily } from '../data/keys';
import type { Stores } from '../data/stores';
import { hasFigures, type Include } from '../model/offer-families';
import { NotFoundError } from '../platform/errors';
import { apyStatsJson } from './apy-stats';
import { candidates, type OfferFilters, offerMatcher } from './offer-facts';
import { DEFAULT_SORT, effectiveSort, type SortMode } from './orderings';
import { type Detail, later, type Page, type PageRequest, pageOf, pagination } from './page';
import { servedOffers } from './served';

/** What an answer adds to each earn and borrow offer (docs/api.md, "APY figures"): `include`, parsed. */
export interface Includes {
  readonly include?: readonly Include[];
}

/** An offer list: a page, the filters, the sort mode (docs/api.md, "Orderings") and what it includes. */
export interface OfferListRequest extends PageRequest, OfferFilters, Includes {
  readonly sort?: SortMode;
}

/**
 * The documents of `entries` of a version as served: each with its `apy_stats` last when the
 * request includes them (the object spliced before the document's closing brace, so the rest
 * stays byte for byte the document). A version without figures has every figure null, `as_of`
 * its publication (docs/api.md, "APY figures").
 */
export function withIncludes(
  request: Includes,
  index: OfferIndex,
  entries: readonly number[],
  docs: string[],
  publishedAt: string,
): string[] {
  if (!request.include?.includes('apy_stats')) return docs;
  return docs.map((doc, i) => {
    const found = index.figures(entries[i]);
    const stats = apyStatsJson({ as_of: found?.asOf ?? publishedAt, ...(found?.values ?? NO_FIGURES) });
    return `${doc.slice(0, -1)},"apy_stats":${stats}}`;
  });
}

export async function listOffers(stores: Stores, family: OfferFamily, query: OfferListRequest): Promise<Page> {
  const { offset, limit } = query;
  const { index, snapshot, publishedAt } = await servedOffers(stores, family, query.snapshot);
  const mode = effectiveSort(family, query.sort);
  const { total, entries } = index
    ? pageOf(candidates(index, mode, query), offerMatcher(family, query, index.facts()), offset, limit)
    : { total: 0, entries: [] };
  const read = await stores.documents.docs(entries.map((e) => index!.ref(e)));
  const docs = index ? withIncludes(query, index, entries, read, publishedAt) : read;
  return { docs, page: { ...pagination(total, offset, limit, docs.length), snapshot }, lastModified: publishedAt };
}

export async function getOffer(
  stores: Stores,
  family: OfferFamily,
  id: number,
  includes: Includes = {},
): Promise<Detail> {
  const { index, publishedAt } = await servedOffers(stores, family);
  const entry = index?.entry(id);
  if (index === undefined || entry === undefined) throw new NotFoundError(`No such ${family} offer.`);
  const [doc] = withIncludes(includes, index, [entry], await stores.documents.docs([index.ref(entry)]), publishedAt);
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
 * one read), with what the request includes (figures on the families that have them), and when the newest of their versions was published.
 */
export async function offersOfAsset(
  stores: Stores,
  slug: string,
  includes: Includes = {},
): Promise<Record<OfferFamily, string[]> & { lastModified: string }> {
  const served = await Promise.all(OFFER_FAMILIES.map((family) => servedOffers(stores, family)));
  const members = OFFER_FAMILIES.map((family, i) =>
    Array.from(served[i].index?.ofAsset(slug, DEFAULT_SORT[family]) ?? []),
  );
  const docs = await stores.documents.docs(
    members.flatMap((entries, i) => entries.map((e) => served[i].index!.ref(e))),
  );
  let at = 0;
  const byFamily = OFFER_FAMILIES.map((family, i) => {
    const read = docs.slice(at, (at += members[i].length));
    const { index, publishedAt } = served[i];
    return [family, index && hasFigures(family) ? withIncludes(includes, index, members[i], read, publishedAt) : read];
  });
  return {
    ...(Object.fromEntries(byFamily) as Record<OfferFamily, string[]>),
    lastModified: served.map((s) => s.publishedAt).reduce(later),
  };
}
