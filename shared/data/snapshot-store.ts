/**
 * The versions being served, from the pointer item, cached per instance for `cacheMs`
 * (docs/adr/0006-live-data.md); a family never imported has none. Past half of `cacheMs` a request
 * is answered from the cache and reads the pointer beside it, building the new versions' indexes
 * before caching it (docs/adr/0019-pointer-refreshed-ahead.md); past `cacheMs` it waits for the read.
 */

import { outsideRequestAccounting } from '../platform/dynamo-accounting';
import { logger } from '../platform/logger';
import type { IndexRef } from './index-store';
import type { SnapshotPointer } from './items/pointer';
import { DATASET_FAMILY_OF, VERSIONED_FAMILIES, type VersionedFamily } from './keys';
import type { PointerStore } from './pointer-store';

/** @internal A family version, where its index lies, and when it was published (exported for its tests). */
export interface FamilyVersion extends IndexRef {
  family: VersionedFamily;
  version: string;
  publishedAt: string;
}

/** A replaced version and its place in the pointer's `retired` list (within a family, higher is later). */
interface RetiredFamilyVersion extends FamilyVersion {
  rank: number;
}

export interface ServedVersions {
  /** The served version of each family (none before its first import). */
  served: Partial<Record<VersionedFamily, FamilyVersion>>;
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
    if (state?.version && state.segments) {
      const { version, segments, publishedAt, indexHash, delta } = state;
      served[family] = { family, version, segments, publishedAt, indexHash, delta };
    }
  }
  const retired = new Map<string, RetiredFamilyVersion>();
  for (const [rank, r] of pointer.retired.entries()) {
    const family = r.family as VersionedFamily;
    if (r.segments && VERSIONED_FAMILIES.includes(family)) {
      const { version, segments, indexHash } = r;
      retired.set(version, { family, version, segments, indexHash, publishedAt: r.publishedAt ?? r.at, rank });
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

  /** The pointer read running, if any, ended (tests and the bench wait for a read ahead). */
  async settled(): Promise<void> {
    await this.inflight?.catch(() => undefined);
  }

  /** The versions as stored now, for a read that met data proving its cached pointer stale (history-store.ts). */
  async reload(): Promise<ServedVersions> {
    this.cached = undefined;
    return this.versions();
  }

  /** Read the pointer beside the request that found the cache half-way to expiry; no request waits for it. */
  private refreshAhead(): void {
    outsideRequestAccounting(() => {
      this.read(true).catch((error: unknown) => {
        // No other read ahead until it expires: a failing table is not asked once per request.
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
