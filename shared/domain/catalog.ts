/**
 * Platforms and currencies: lists in their one ordering, details by slug, former slugs redirected,
 * answered from the family version's index; only the page's documents are read. Hidden and
 * delisted records are not in the index, so they are simply absent.
 */

import type { CatalogFamily } from '../data/keys';
import type { Stores } from '../data/stores';
import { OFFER_FAMILIES, OFFER_FAMILY } from '../model/offer-families';
import { SLUG_MAX_LENGTH } from '../platform/constants';
import { NotFoundError } from '../platform/errors';
import { type Includes, offersOfAsset } from './offers';
import { type Detail, later, type Page, type PageRequest, pageOf, pagination } from './page';
import { servedCatalog } from './served';

/** A detail lookup: the document, a redirect for a former slug, or `undefined` when absent. */
export type Lookup = Detail | { redirectTo: string } | undefined;

export async function listCatalog(stores: Stores, family: CatalogFamily, query: PageRequest): Promise<Page> {
  const { offset, limit } = query;
  const { index, snapshot, publishedAt } = await servedCatalog(stores, family, query.snapshot);
  const { total, entries } = index ? pageOf(index.order, undefined, offset, limit) : { total: 0, entries: [] };
  const docs = await stores.documents.docs(entries.map((e) => index!.ref(e)));
  return { docs, page: { ...pagination(total, offset, limit, docs.length), snapshot }, lastModified: publishedAt };
}

const NOT_FOUND = { exchanges: 'exchange', wallets: 'wallet', protocols: 'protocol', currencies: 'currency' } as const;

/** The document of a lookup, or 404 (checked after the redirect and the query: docs/api.md, "Parameters"). */
export function foundDoc(lookup: Lookup, family: CatalogFamily): Detail {
  if (!lookup || !('doc' in lookup)) throw new NotFoundError(`No such ${NOT_FOUND[family]}.`);
  return lookup;
}

/** No record has a longer slug (the import refuses them): answer without a read. */
const canExist = (slug: string) => slug.length > 0 && slug.length <= SLUG_MAX_LENGTH;

/** Where a slug leads: its entry, a redirect, or nowhere. */
async function find(stores: Stores, family: CatalogFamily, slug: string) {
  if (!canExist(slug)) return { publishedAt: '', index: undefined, entry: undefined, redirectTo: undefined };
  const { index, publishedAt } = await servedCatalog(stores, family);
  const entry = index?.entry(slug);
  const redirectTo = entry === undefined ? index?.redirect(slug) : undefined;
  return { index, publishedAt, entry, redirectTo };
}

export async function getCatalogRecord(stores: Stores, family: CatalogFamily, slug: string): Promise<Lookup> {
  const { index, entry, redirectTo, publishedAt } = await find(stores, family, slug);
  if (redirectTo !== undefined) return { redirectTo };
  if (index === undefined || entry === undefined) return undefined;
  const [doc] = await stores.documents.docs([index.ref(entry)]);
  return { doc, lastModified: publishedAt };
}

/** A currency with every published offer of its asset, each family in its default order, with what the request includes. */
export async function getCurrencyDetail(stores: Stores, slug: string, includes: Includes = {}): Promise<Lookup> {
  const { index, entry, redirectTo, publishedAt } = await find(stores, 'currencies', slug);
  if (redirectTo !== undefined) return { redirectTo };
  if (index === undefined || entry === undefined) return undefined;
  const [[doc], offers] = await Promise.all([
    stores.documents.docs([index.ref(entry)]),
    offersOfAsset(stores, slug, includes),
  ]);
  // Each family's array is named as in the data file (`earn_offers`, …).
  const arrays = OFFER_FAMILIES.map((family) => `"${OFFER_FAMILY[family].dataset}":[${offers[family].join(',')}]`).join(
    ',',
  );
  return { doc: `${doc.slice(0, -1)},${arrays}}`, lastModified: later(publishedAt, offers.lastModified) };
}
