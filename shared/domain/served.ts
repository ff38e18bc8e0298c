/**
 * The served version of a family and its index (shared/domain/family-index.ts): every list and
 * detail starts here. A family never imported has no index: its lists are empty, its details 404.
 */
import type { CatalogFamily, OfferFamily, VersionedFamily } from '../keys';
import type { FamilyVersion } from '../repositories/snapshot-store';
import type { Stores } from '../stores';
import type { CatalogIndex, FamilyIndex, OfferIndex } from './family-index';

export interface Served<I extends FamilyIndex> {
  version: FamilyVersion;
  index: I;
}

async function served(stores: Stores, family: VersionedFamily): Promise<Served<FamilyIndex> | undefined> {
  const version = (await stores.snapshot.versions()).served[family];
  return version && { version, index: await stores.indexes.load(version.version, version.segments) };
}

export const servedOffers = (stores: Stores, family: OfferFamily) => served(stores, family) as Promise<Served<OfferIndex> | undefined>;
export const servedCatalog = (stores: Stores, family: CatalogFamily) => served(stores, family) as Promise<Served<CatalogIndex> | undefined>;
