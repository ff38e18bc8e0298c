/**
 * The snapshot pointer (`SNAPSHOT` / `CURRENT`: served and retired versions, history's sequence
 * number, the import lease) and the refresh times beside it (`SNAPSHOT` / `REFRESHED`).
 */
import * as z from 'zod/mini';
import { CorruptDataError } from '../../platform/errors';

const Version = z.string().check(z.minLength(1));
const SegmentsHash = z.string().check(z.regex(/^[0-9a-f]{64}$/));
/** A delta's segments against version `base`, and their content hash. */
const DeltaRef = z.object({
  base: Version,
  segments: z.number().check(z.int(), z.minimum(1)),
  hash: SegmentsHash,
});

/** The served state of one dataset family. History families have no version. */
const FamilyStateCodec = z.object({
  version: z.optional(z.string().check(z.minLength(1))),
  /** Hash of the family's records (offers: before their platform references are resolved). */
  hash: z.optional(z.string()),
  /** Digest of the platform references an offers version rendered. */
  refs: z.optional(z.string()),
  /** Its index's segments and their content hash (items/content.ts `segmentsHash`). */
  segments: z.optional(z.number().check(z.int(), z.minimum(1))),
  indexHash: z.optional(SegmentsHash),
  /** Its index delta against `base`, the version it replaced, when the import wrote one (docs/adr/0017-index-deltas.md). */
  delta: z.optional(DeltaRef),
  /** When the served content of the family last changed. */
  publishedAt: z.string(),
  /** When its APY figures were computed (earn and borrow, part of its identity: docs/adr/0015-apy-figures.md). */
  figuresAt: z.optional(z.string()),
});

/** A version replaced at `at`: readable (pinned lists, changes) until it is deleted. */
const RetiredVersionCodec = z.object({
  family: z.string(),
  version: z.string(),
  at: z.string(),
  /** Its index, read whole. */
  segments: z.optional(z.number()),
  indexHash: z.optional(SegmentsHash),
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
  /** History written under this import number or an earlier one is served (docs/data-model.md, "History"). */
  historySeq: z._default(z.number().check(z.int(), z.minimum(0)), 0),
  /** Per history family, the start of the UTC hour an import last recorded (docs/adr/0012-recorded-history.md). */
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
