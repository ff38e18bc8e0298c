/**
 * The snapshot pointer (`SNAPSHOT` / `CURRENT`): the served version of every family, the replaced
 * versions still readable, the served history's sequence number and the import lease; and the
 * refresh times beside it (`SNAPSHOT` / `REFRESHED`). Read by pointer-store.ts (the serving
 * functions, the freshness metric, the status) and snapshot-writer.ts (the import).
 */
import * as z from 'zod/mini';
import { CorruptDataError } from '../../platform/errors';

const Version = z.string().check(z.minLength(1));
/** A content hash of stored segments (items/content.ts `segmentsHash`). */
const SegmentsHash = z.string().check(z.regex(/^[0-9a-f]{64}$/));
/** A delta's segments against version `base`, and their content hash (absent on pointers written before). */
const DeltaRef = z.object({
  base: Version,
  segments: z.number().check(z.int(), z.minimum(1)),
  hash: z.optional(SegmentsHash),
});

/** The served state of one dataset family. History families have no version. */
const FamilyStateCodec = z.object({
  version: z.optional(z.string().check(z.minLength(1))),
  /** Hash of the family's records (offers: before their platform references are resolved). */
  hash: z.optional(z.string()),
  /** Digest of the platform references an offers version rendered. */
  refs: z.optional(z.string()),
  /**
   * The segments of the whole index it is read from (absent: a version written before the index,
   * unreadable): its own (`V#<version>#INDEX`), or with `base` those of the base.
   */
  segments: z.optional(z.number().check(z.int(), z.minimum(1))),
  /**
   * The version whose whole index, stored as a base shared by versions (`IDX#<base>`,
   * docs/adr/0018-index-bases.md), this version's index is: itself, or when another, that index with
   * `delta` (against `base`) applied. Absent on versions written before, which own their index.
   */
  base: z.optional(Version),
  /** The content hash of the whole index's segments (its own, or its base's), checked on every read. */
  indexHash: z.optional(SegmentsHash),
  /**
   * A delta stored for it (`V#<version>#DELTA`, `segments` segments) against version `base`
   * (docs/adr/0017-index-deltas.md): against its index base, or for a version that is its own base,
   * against the version it replaced. Absent when the import wrote none.
   */
  delta: z.optional(DeltaRef),
  /** A delta against the version it replaced (`V#<version>#STEP`), when that is not its base and the import wrote one. */
  step: z.optional(DeltaRef),
  /** Records in the file that published it: written by imports before ADR 0009, no longer (every pointer write is charged by its size). */
  count: z.optional(z.number()),
  /** When the served content of the family last changed. */
  publishedAt: z.string(),
  /**
   * The refresh time the version's APY figures are computed at (earn and borrow; part of its
   * identity): absent on a version without figure state (docs/adr/0015-apy-figures.md).
   */
  figuresAt: z.optional(z.string()),
});

/** A version replaced at `at`: readable (pinned lists, changes) until it is deleted. */
const RetiredVersionCodec = z.object({
  family: z.string(),
  version: z.string(),
  at: z.string(),
  segments: z.optional(z.number()),
  /** Where its index lies, as in its family state (only the delta against its base, of its deltas). */
  base: z.optional(Version),
  indexHash: z.optional(SegmentsHash),
  delta: z.optional(DeltaRef),
  /** When it was published (its `Last-Modified`). */
  publishedAt: z.optional(z.string()),
});

const LeaseCodec = z.object({
  owner: z.string(),
  /** Epoch ms after which another import may take the lease over. */
  until: z.number(),
  /** The versions the holder writes, and those earlier holders left: the next holder deletes what is not published. */
  writing: z.array(z.string()),
});

const PointerCodec = z.object({
  families: z._default(z.record(z.string(), z.optional(FamilyStateCodec)), {}),
  retired: z._default(z.array(RetiredVersionCodec), []),
  /**
   * The sequence number of the last import that published history: observations written under it
   * or an earlier one are served, later ones are not yet (see "history" below). 0 before the first.
   */
  historySeq: z._default(z.number().check(z.int(), z.minimum(0)), 0),
  /**
   * Per history family, the start (epoch ms) of the UTC hour an import last recorded
   * (docs/adr/0012-recorded-history.md): a later import in that hour records nothing.
   */
  recorded: z._default(z.record(z.string(), z.number().check(z.int())), {}),
  importedAt: z.optional(z.string()),
  lease: z.optional(LeaseCodec),
});

export type FamilyState = z.infer<typeof FamilyStateCodec>;
export type RetiredVersion = z.infer<typeof RetiredVersionCodec>;
export type ImportLease = z.infer<typeof LeaseCodec>;
export type SnapshotPointer = z.infer<typeof PointerCodec>;

/** The pointer item as stored (or the projection of it a reader asked for). */
export function decodePointer(item: Record<string, unknown>): SnapshotPointer {
  const result = PointerCodec.safeParse(item);
  if (!result.success) throw new CorruptDataError('the snapshot pointer is malformed');
  return result.data;
}

/** When an import last carried each family (family → ISO time); {} before the first. */
const RefreshedCodec = z.record(z.string(), z.string());

export function decodeRefreshed(item: Record<string, unknown> | undefined): Record<string, string> {
  const { PK: _pk, SK: _sk, ...families } = item ?? {};
  const result = RefreshedCodec.safeParse(families);
  if (!result.success) throw new CorruptDataError('the refresh times are malformed');
  return result.data;
}
