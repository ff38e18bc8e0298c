/**
 * The versions being served, from the pointer item: each family's served version and the replaced
 * versions still readable (a list pinned to one, changes since one). The pointer is read at most
 * once per `cacheMs` per process, so a warm request goes straight to its data; an import becomes
 * visible within that time, and a replaced version is deleted long after it (docs/adr/0006-live-data.md).
 * A family never imported has no version: its lists are empty and its details 404.
 */

import type { IndexRef } from './index-store';
import type { SnapshotPointer } from './items/pointer';
import { DATASET_FAMILY_OF, VERSIONED_FAMILIES, type VersionedFamily } from './keys';
import type { PointerStore } from './pointer-store';

/**
 * The family version a read names, where its index lies, and when it was published (or replaced).
 * @internal (exported for its tests)
 */
export interface FamilyVersion extends IndexRef {
  family: VersionedFamily;
  version: string;
  /** When the version's content was published. */
  publishedAt: string;
}

/**
 * A replaced version and its place in the pointer's `retired` list, which imports append to as they
 * replace versions: within a family, a higher rank was published later (every served version later still).
 */
interface RetiredFamilyVersion extends FamilyVersion {
  rank: number;
}

export interface ServedVersions {
  /** The served version of each family (none before its first import, or in an older layout). */
  served: Partial<Record<VersionedFamily, FamilyVersion>>;
  /** Replaced versions still readable, by version. */
  retired: ReadonlyMap<string, RetiredFamilyVersion>;
  /** Dataset family → when it was last published (history families included). */
  publishedAt: Readonly<Record<string, string>>;
  /** The sequence number up to which imports' history is served (docs/data-model.md, "History"). */
  historySeq: number;
}

export type FamilyVersions = Readonly<Record<VersionedFamily, string>>;

const EMPTY_VERSION = 'none';

/** The version of each family a pointer names ('none' for a family never imported), as imports report them. */
export function versionsOf(families: SnapshotPointer['families'] | undefined): FamilyVersions {
  return Object.fromEntries(
    VERSIONED_FAMILIES.map((f) => [f, families?.[DATASET_FAMILY_OF[f]]?.version ?? EMPTY_VERSION]),
  ) as Record<VersionedFamily, string>;
}

export function servedVersions(
  pointer: Pick<SnapshotPointer, 'families' | 'retired'> & Partial<Pick<SnapshotPointer, 'historySeq'>>,
): ServedVersions {
  const served: ServedVersions['served'] = {};
  const publishedAt: Record<string, string> = {};
  for (const [name, state] of Object.entries(pointer.families)) if (state) publishedAt[name] = state.publishedAt;
  for (const family of VERSIONED_FAMILIES) {
    const state = pointer.families[DATASET_FAMILY_OF[family]];
    if (state?.version && state.segments)
      served[family] = {
        family,
        version: state.version,
        segments: state.segments,
        publishedAt: state.publishedAt,
        ...(state.base ? { base: state.base } : {}),
        ...(state.delta ? { delta: state.delta } : {}),
        ...(state.step ? { step: state.step } : {}),
      };
  }
  const retired = new Map<string, RetiredFamilyVersion>();
  for (const [rank, r] of pointer.retired.entries()) {
    const family = r.family as VersionedFamily;
    if (r.segments && VERSIONED_FAMILIES.includes(family)) {
      const publishedAt = r.publishedAt ?? r.at;
      const { base, delta } = r;
      retired.set(r.version, {
        family,
        version: r.version,
        segments: r.segments,
        ...(base ? { base } : {}),
        ...(delta ? { delta } : {}),
        publishedAt,
        rank,
      });
    }
  }
  return { served, retired, publishedAt, historySeq: pointer.historySeq ?? 0 };
}

export class SnapshotStore {
  private cached: { versions: ServedVersions; until: number } | undefined;
  private inflight: Promise<ServedVersions> | undefined;

  constructor(
    private readonly pointer: PointerStore,
    private readonly cacheMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async versions(): Promise<ServedVersions> {
    if (this.cached && this.cached.until > this.clock()) return this.cached.versions;
    // Concurrent requests on a cold cache share one read.
    this.inflight ??= this.readPointer().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /**
   * The versions as stored now, whatever the cache holds (and cached from now on): for a read that
   * met data proving its cached pointer stale (a history item of a later import, history-store.ts).
   */
  async reload(): Promise<ServedVersions> {
    this.cached = undefined;
    return this.versions();
  }

  private async readPointer(): Promise<ServedVersions> {
    // A malformed pointer fails the request (its codec), never serves a guess.
    const versions = servedVersions((await this.pointer.served()) ?? { families: {}, retired: [] });
    this.cached = { versions, until: this.clock() + this.cacheMs };
    return versions;
  }
}
