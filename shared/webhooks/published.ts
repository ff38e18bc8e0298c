/**
 * The one seam between publishing and webhooks (docs/adr/0028-webhook-delivery.md): a publish is
 * the write of the snapshot pointer, and what it published is the difference between the pointer
 * before and after it. Deployed, the table's stream hands the matching function both images of the
 * pointer item; locally, the local stack compares the pointer it last read with the one it reads now.
 * The import itself knows nothing of webhooks.
 */
import type { SnapshotPointer } from '../data/items/pointer';
import { DATASET_FAMILY_OF, OFFER_FAMILIES } from '../data/keys';
import type { FamilyPublished } from './matching';

type Families = SnapshotPointer['families'];

/** The offer families whose served version differs between two pointers, each with the version it replaced. */
export function familiesPublished(before: Families | undefined, after: Families | undefined): FamilyPublished[] {
  const published: FamilyPublished[] = [];
  for (const family of OFFER_FAMILIES) {
    // The pointer names each family by its data file array (`earn_offers`).
    const next = after?.[DATASET_FAMILY_OF[family]];
    const previous = before?.[DATASET_FAMILY_OF[family]]?.version ?? 'none';
    if (next?.version === undefined || next.version === previous) continue;
    published.push({ family, previous, snapshot: next.version, publishedAt: next.publishedAt });
  }
  return published;
}
