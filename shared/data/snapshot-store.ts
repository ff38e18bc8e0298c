/**
 * The versions being served, from the pointer item: each family's served version and the replaced
 * versions still readable (a list pinned to one, changes since one). A read pointer is cached for
 * `cacheMs` per process, so a warm request goes straight to its data; an import becomes visible
 * within that time, and a replaced version is deleted long after it (docs/adr/0006-live-data.md).
 * A family never imported has no version: its lists are empty and its details 404.
 *
 * Refreshed ahead (docs/adr/0019-pointer-refreshed-ahead.md): a request that finds the cached
 * pointer older than half of `cacheMs` is answered from it, and starts a read of the pointer beside
 * it, outside its accounting; when that read names new versions, the instance builds their indexes
 * (`prepare`: from the deltas, or loaded) before the new pointer is cached. A request after that
 * finds the new versions ready, so the first request after a publish costs what a warm one does. A
 * request that finds the cached pointer expired waits for the read (and the building) as before:
 * no answer comes from a pointer read more than `cacheMs` ago.
 */

import { outsideRequestAccounting } from '../platform/dynamo-accounting';
import { logger } from '../platform/logger';
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
        ...(state.indexHash ? { indexHash: state.indexHash } : {}),
        ...(state.delta ? { delta: state.delta } : {}),
      };
  }
  const retired = new Map<string, RetiredFamilyVersion>();
  for (const [rank, r] of pointer.retired.entries()) {
    const family = r.family as VersionedFamily;
    if (r.segments && VERSIONED_FAMILIES.includes(family)) {
      const publishedAt = r.publishedAt ?? r.at;
      retired.set(r.version, {
        family,
        version: r.version,
        segments: r.segments,
        ...(r.indexHash ? { indexHash: r.indexHash } : {}),
        publishedAt,
        rank,
      });
    }
  }
  return { served, retired, publishedAt, historySeq: pointer.historySeq ?? 0 };
}

/** The share of `cacheMs` after which a request refreshes the cached pointer ahead, beside its answer. */
export const REFRESH_AHEAD_AT = 0.5;

/** Building the new versions' indexes, before a refreshed pointer is cached (index-store.ts `prepare`). */
export type PrepareVersions = (next: ServedVersions) => Promise<void>;

export class SnapshotStore {
  private cached: { versions: ServedVersions; until: number; aheadFrom: number } | undefined;
  private inflight: Promise<ServedVersions> | undefined;

  constructor(
    private readonly pointer: PointerStore,
    private readonly cacheMs: number,
    private readonly clock: () => number,
    private readonly prepare?: PrepareVersions,
  ) {}

  async versions(): Promise<ServedVersions> {
    const now = this.clock();
    if (this.cached && this.cached.until > now) {
      if (now >= this.cached.aheadFrom && !this.inflight) this.refreshAhead();
      return this.cached.versions;
    }
    // Concurrent requests on a cold cache share one read (a read started ahead included).
    this.inflight ??= this.read(false);
    return this.inflight;
  }

  /** The read of the pointer running, if any, ended (a read ahead: the new pointer cached): what tests and the bench wait for. */
  async settled(): Promise<void> {
    await this.inflight?.catch(() => undefined);
  }

  /**
   * The versions as stored now, whatever the cache holds (and cached from now on): for a read that
   * met data proving its cached pointer stale (a history item of a later import, history-store.ts).
   */
  async reload(): Promise<ServedVersions> {
    this.cached = undefined;
    return this.versions();
  }

  /** Read the pointer beside the request that found the cache half-way to expiry; no request waits for it. */
  private refreshAhead(): void {
    outsideRequestAccounting(() => {
      this.read(true).catch((error: unknown) => {
        // The cached pointer serves until it expires, with no other read ahead (a failing table is
        // not asked once per request); the request that finds it expired reads again.
        if (this.cached) this.cached.aheadFrom = this.cached.until;
        logger.warn('pointer not refreshed ahead', { error: error instanceof Error ? error.message : String(error) });
      });
    });
  }

  private read(ahead: boolean): Promise<ServedVersions> {
    const reading = this.readPointer(ahead).finally(() => {
      if (this.inflight === reading) this.inflight = undefined;
    });
    this.inflight = reading;
    return reading;
  }

  private async readPointer(ahead: boolean): Promise<ServedVersions> {
    // The cache's time runs from before the read: an answer never comes from a pointer read longer ago.
    const readAt = this.clock();
    // A malformed pointer fails the request (its codec), never serves a guess.
    const versions = servedVersions((await this.pointer.served()) ?? { families: {}, retired: [] });
    // Ahead, nobody waits: the new versions' indexes are built before the pointer naming them is cached.
    if (ahead && this.prepare) await this.prepare(versions);
    this.cached = { versions, until: readAt + this.cacheMs, aheadFrom: readAt + this.cacheMs * REFRESH_AHEAD_AT };
    return versions;
  }
}
