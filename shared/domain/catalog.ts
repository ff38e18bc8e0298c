/**
 * Platforms and currencies: lists in their one ordering, details by slug, former slugs redirected.
 * Hidden and delisted records were never written to the snapshot, so they are simply absent.
 */
import { NotFoundError } from '../errors';
import { CATALOG_INDEX, catalogKey, viewPartition, type CatalogFamily } from '../keys';
import type { ListQuery } from '../schemas/query';
import { docOf } from '../repositories/view-store';
import { SLUG_MAX_LENGTH } from '../schemas/constants';
import type { Stores } from '../stores';
import { offersOfAsset } from './offers';
import { pagination, type Page } from './page';

/** A detail lookup: the document, a redirect for a former slug, or `undefined` when absent. */
export type Lookup = { doc: string } | { redirectTo: string } | undefined;

export async function listCatalog({ snapshot, views }: Stores, family: CatalogFamily, query: ListQuery): Promise<Page> {
  const partition = viewPartition(await snapshot.version(family), family);
  const { total, items } = await views.page(partition, CATALOG_INDEX, query.offset, query.offset + query.limit);
  const docs = items.map(docOf);
  return { docs, page: pagination(total, query.offset, query.limit, docs.length) };
}

const NOT_FOUND = { exchanges: 'exchange', wallets: 'wallet', protocols: 'protocol', currencies: 'currency' } as const;

function lookupOf(item: Record<string, unknown> | undefined): Lookup {
  if (!item) return undefined;
  return typeof item.redirectTo === 'string' ? { redirectTo: item.redirectTo } : { doc: docOf(item) };
}

/** The document of a lookup, or 404 (checked after the redirect and the query: docs/api.md, "Parameters"). */
export function foundDoc(lookup: Lookup, family: CatalogFamily): string {
  if (!lookup || !('doc' in lookup)) throw new NotFoundError(`No such ${NOT_FOUND[family]}.`);
  return lookup.doc;
}

/** No record has a longer slug (the import refuses them): answer without a read. */
const canExist = (slug: string) => slug.length > 0 && slug.length <= SLUG_MAX_LENGTH;

export async function getCatalogRecord({ snapshot, views }: Stores, family: CatalogFamily, slug: string): Promise<Lookup> {
  if (!canExist(slug)) return undefined;
  return lookupOf(await views.getItem(catalogKey(await snapshot.version(family), family, slug)));
}

/** A currency with every published offer of its asset, each family in its default order. */
export async function getCurrencyDetail(stores: Stores, slug: string): Promise<Lookup> {
  if (!canExist(slug)) return undefined;
  const versions = await stores.snapshot.versions();
  const [item, offers] = await Promise.all([stores.views.getItem(catalogKey(versions.currencies, 'currencies', slug)), offersOfAsset(stores, versions, slug)]);
  const lookup = lookupOf(item);
  if (!lookup || 'redirectTo' in lookup) return lookup;
  const arrays = `"earn_offers":[${offers.earn.join(',')}],"borrow_offers":[${offers.borrow.join(',')}],"collateral_offers":[${offers.collateral.join(',')}]`;
  return { doc: `${lookup.doc.slice(0, -1)},${arrays}}` };
}
