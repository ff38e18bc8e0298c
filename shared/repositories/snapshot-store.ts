/**
 * The version of each family being served. The pointer item is read at most once per `cacheMs`
 * per process, so a warm request goes straight to its data (one round trip); an import becomes
 * visible within that time, and a replaced version is deleted only after it (docs/adr/0006-live-data.md).
 * A family never imported has EMPTY_VERSION, which no item carries: its lists are empty and its
 * details 404.
 */
import { CorruptDataError } from '../errors';
import { DATASET_FAMILY_OF, VERSIONED_FAMILIES, type VersionedFamily } from '../keys';
import type { PointerStore } from './pointer-store';

const EMPTY_VERSION = 'none';

export type FamilyVersions = Readonly<Record<VersionedFamily, string>>;

/** The versions named by a stored pointer's `families` map (dataset family → { version }). */
export function versionsOf(families: unknown): FamilyVersions {
  if (families !== undefined && (typeof families !== 'object' || families === null)) throw new CorruptDataError('the snapshot pointer has no families');
  const stored = (families ?? {}) as Record<string, { version?: unknown } | undefined>;
  for (const entry of Object.values(stored)) {
    if (typeof entry !== 'object' || entry === null) throw new CorruptDataError('the snapshot pointer holds a family that is not a map');
  }
  const versions = {} as Record<VersionedFamily, string>;
  for (const family of VERSIONED_FAMILIES) {
    const entry = stored[DATASET_FAMILY_OF[family]];
    if (entry !== undefined && (typeof entry.version !== 'string' || entry.version === '')) throw new CorruptDataError(`the snapshot pointer names no version of ${family}`);
    versions[family] = (entry?.version as string | undefined) ?? EMPTY_VERSION;
  }
  return versions;
}

export class SnapshotStore {
  private cached: { versions: FamilyVersions; until: number } | undefined;
  private inflight: Promise<FamilyVersions> | undefined;

  constructor(
    private readonly pointer: PointerStore,
    private readonly cacheMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async versions(): Promise<FamilyVersions> {
    if (this.cached && this.cached.until > this.clock()) return this.cached.versions;
    // Concurrent requests on a cold cache share one read.
    this.inflight ??= this.readPointer().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  async version(family: VersionedFamily): Promise<string> {
    return (await this.versions())[family];
  }

  private async readPointer(): Promise<FamilyVersions> {
    // A malformed map fails the request (versionsOf), never serves a guess.
    const versions = versionsOf((await this.pointer.storedFamilies())?.families);
    this.cached = { versions, until: this.clock() + this.cacheMs };
    return versions;
  }
}
