/**
 * The version of a family a request reads, and its index (shared/data/family-index.ts): the
 * served one, or the one a list or a changes page names (`snapshot`, `since`), which stays readable
 * at least 60 minutes after it was replaced (docs/api.md, "Paging one version"). A family never
 * imported has no index: its lists are empty, its details 404, its snapshot `none`.
 */

import type { CatalogIndex, FamilyIndex, OfferIndex } from '../data/family-index';
import type { CatalogFamily, OfferFamily, VersionedFamily } from '../data/keys';
import type { Stores } from '../data/stores';
import { MissingItemError, SnapshotExpiredError } from '../platform/errors';

export interface Served<I extends FamilyIndex> {
  /** What `pagination.snapshot` names. */
  snapshot: string;
  /** When the version was published (`Last-Modified`). */
  publishedAt: string;
  index: I | undefined;
  /** Its place in the family's publish order: a replaced version's rank, the served one after them all. */
  rank: number;
}

/** The rank of what a family serves now: published after every replaced version. */
const SERVED_RANK = Number.POSITIVE_INFINITY;

/** The name of a family that was never imported, and the time its empty answers claim. */
const NONE: Omit<Served<never>, 'index'> = {
  snapshot: 'none',
  publishedAt: new Date(0).toISOString(),
  rank: SERVED_RANK,
};

async function served(
  stores: Stores,
  family: VersionedFamily,
  pinned?: string,
  parameter: 'snapshot' | 'since' = 'snapshot',
): Promise<Served<FamilyIndex>> {
  const versions = await stores.snapshot.versions();
  const current = versions.served[family];
  if (pinned === undefined || pinned === (current?.version ?? NONE.snapshot)) {
    return current
      ? {
          snapshot: current.version,
          publishedAt: current.publishedAt,
          rank: SERVED_RANK,
          index: await stores.indexes.served(family, current.version, current),
        }
      : { ...NONE, index: undefined };
  }
  const retired = versions.retired.get(pinned);
  if (retired?.family !== family) throw new SnapshotExpiredError(parameter);
  try {
    const { version, publishedAt, rank } = retired;
    return { snapshot: version, publishedAt, rank, index: await stores.indexes.retired(version, retired) };
  } catch (error) {
    // Deleted between the pointer this instance cached and now: no longer readable. An index that is
    // there but does not decode is corruption, a 500 like any other (a 410 would hide it from alarms).
    if (error instanceof MissingItemError) throw new SnapshotExpiredError(parameter);
    throw error;
  }
}

export const servedOffers = (stores: Stores, family: OfferFamily, pinned?: string, parameter?: 'snapshot' | 'since') =>
  served(stores, family, pinned, parameter) as Promise<Served<OfferIndex>>;
export const servedCatalog = (stores: Stores, family: CatalogFamily, pinned?: string) =>
  served(stores, family, pinned) as Promise<Served<CatalogIndex>>;
