/**
 * `GET /api/v1/status` (docs/api.md, "Freshness"): for every family, the version served, when its
 * content last changed (`published_at`), when an import last carried it changed or not
 * (`refreshed_at`), and whether that is longer ago than the stage's `max_age_seconds`.
 */
import { DATASET_FAMILY_OF, VERSIONED_FAMILIES, type VersionedFamily } from '../data/keys';
import { servedVersions } from '../data/snapshot-store';
import type { Stores } from '../data/stores';
import { later } from './page';

export interface FamilyStatus {
  snapshot: string | null;
  published_at: string | null;
  refreshed_at: string | null;
  max_age_seconds: number;
  stale: boolean;
}

export async function dataStatus(
  { pointer }: Pick<Stores, 'pointer'>,
  nowMs: number,
  maxAgeSeconds: number,
): Promise<{ families: Record<VersionedFamily, FamilyStatus> }> {
  const [stored, refreshed] = await Promise.all([pointer.served(), pointer.refreshed()]);
  const { served } = servedVersions(stored ?? { families: {}, retired: [] });
  const families = {} as Record<VersionedFamily, FamilyStatus>;
  for (const family of VERSIONED_FAMILIES) {
    const version = served[family];
    const carried = refreshed[DATASET_FAMILY_OF[family]];
    const refreshedAt = version ? (carried ? later(carried, version.publishedAt) : version.publishedAt) : null;
    families[family] = {
      snapshot: version?.version ?? null,
      published_at: version?.publishedAt ?? null,
      refreshed_at: refreshedAt,
      max_age_seconds: maxAgeSeconds,
      stale: refreshedAt === null || nowMs - Date.parse(refreshedAt) > maxAgeSeconds * 1000,
    };
  }
  return { families };
}
