/**
 * The import's plan (docs/data-model.md, "Versions and imports", step 2): which families of the
 * file change against a pointer, each with its new version's identity, its records and how to
 * project them. Made once without the lease (an import of what is served writes nothing), and
 * again under it when another import published meanwhile.
 */
import { createHash } from 'node:crypto';
import { BLOCK_LAYOUT } from '../data/items/document-block';
import { INDEX_LAYOUT } from '../data/items/index-segment';
import { MANIFEST_LAYOUT } from '../data/items/manifest';
import type { FamilyState, SnapshotPointer } from '../data/items/pointer';
import {
  CATALOG_FAMILIES,
  DATASET_FAMILY_OF,
  documentBlockKey,
  HISTORY_DATASET_FAMILY,
  HISTORY_FAMILIES,
  type HistoryFamily,
  indexDeltaKey,
  indexSegmentKey,
  manifestKey,
  OFFER_FAMILIES,
  type OfferFamily,
  PLATFORM_FAMILIES,
  sourceChunkKey,
  type VersionedFamily,
} from '../data/keys';
import type { VersionWriter } from '../data/version-writer';
import type { ApyStats } from '../domain/apy-stats';
import { type Dataset, type PlatformRecord, RECORD_SCHEMA } from './dataset';
import {
  type PlatformResolver,
  type Platforms,
  type Projection,
  platformResolver,
  projectCatalog,
  projectOffers,
} from './project';

/**
 * The layout of family versions, derived from what it versions, never bumped by hand: the blocks'
 * format (items/document-block.ts `BLOCK_LAYOUT`), the index's layout, from its declared columns
 * and their encodings (items/index-segment.ts `INDEX_LAYOUT`), the manifest's stored form, from its
 * codec (items/manifest.ts `MANIFEST_LAYOUT`), and the keys a version's items lie
 * under (keys.ts: its index, delta and manifest, the blocks and source chunks it names). It is part
 * of every version's identity, hence of its keys (`V#<v>#`): a layout change is a new version,
 * written by the first import after the deploy (docs/deploy.md, ADR 0024).
 */
const LAYOUT = [
  BLOCK_LAYOUT,
  INDEX_LAYOUT,
  MANIFEST_LAYOUT,
  [indexSegmentKey('v', 0), indexDeltaKey('v', 0), manifestKey('v', 0), documentBlockKey('h'), sourceChunkKey('h')],
];

const hashOf = (...parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 20);

/**
 * A family version's identity: the layout, its records' hash, the references it rendered and, for
 * a version with APY figures, the refresh time they are computed at (docs/adr/0015-apy-figures.md).
 */
const versionOf = (family: VersionedFamily, state: Pick<FamilyState, 'hash' | 'refs' | 'figuresAt'>) =>
  state.figuresAt === undefined
    ? hashOf(LAYOUT, family, state.hash, state.refs ?? null)
    : hashOf(LAYOUT, family, state.hash, state.refs ?? null, state.figuresAt);

/** The families whose versions carry APY figures (earn and borrow: those with history). */
export const hasFigures = (family: VersionedFamily): family is HistoryFamily =>
  (HISTORY_FAMILIES as readonly string[]).includes(family);

/** A family whose served version changes. */
export interface FamilyChange {
  family: VersionedFamily;
  state: FamilyState & { version: string };
  /** Its projection, given each published offer's figures (earn and borrow). */
  project: (figures?: ReadonlyMap<number, ApyStats>) => Projection;
  records: readonly unknown[];
}

/** Would the import write history for a family (against a pointer)? Asked only when the answer decides a change. */
type WritesHistory = (family: HistoryFamily, pointer: SnapshotPointer | undefined) => Promise<boolean>;

/** What planning reads and is told: the served version's source records, the refresh time, history's answer. */
export interface PlanContext {
  versions: VersionWriter;
  now: string;
  writesHistory: WritesHistory;
}

const change = (
  family: VersionedFamily,
  state: Omit<FamilyChange['state'], 'version'>,
  project: FamilyChange['project'],
  records: readonly unknown[],
): FamilyChange => ({ family, state: { ...state, version: versionOf(family, state) }, project, records });

/**
 * Which families of the file (and which offers, through their platform references) change, against
 * a pointer. An earn or borrow version also changes, its figures recomputed at `now` with its
 * documents as they are, when the import writes history for the family (`writesHistory`) or the
 * served version has no figure state.
 */
export async function planChanges(
  dataset: Dataset,
  pointer: SnapshotPointer | undefined,
  context: PlanContext,
): Promise<FamilyChange[]> {
  const changes = catalogChanges(dataset, pointer, context.now);
  if (!offersMayChange(dataset, pointer, changes)) return changes;
  const resolve = await resolverOf(dataset, pointer, context.versions);
  for (const family of OFFER_FAMILIES) {
    const planned = await offerChange(family, dataset, pointer, resolve, context);
    if (planned) changes.push(planned);
  }
  return changes;
}

function catalogChanges(dataset: Dataset, pointer: SnapshotPointer | undefined, now: string): FamilyChange[] {
  return CATALOG_FAMILIES.flatMap((family) => {
    const given = dataset[family];
    if (!given) return [];
    const state = { hash: hashOf(given), publishedAt: now };
    const served = pointer?.families[family]?.version;
    return served === versionOf(family, state)
      ? []
      : [change(family, state, () => projectCatalog(family, given), given)];
  });
}

/** Offers render their platform references: they may change when offers come in, platforms change, or figures are due. */
function offersMayChange(dataset: Dataset, pointer: SnapshotPointer | undefined, catalog: FamilyChange[]): boolean {
  const platformsChanged = catalog.some((c) => (PLATFORM_FAMILIES as readonly string[]).includes(c.family));
  const offersInFile = OFFER_FAMILIES.some((f) => dataset[DATASET_FAMILY_OF[f]] !== undefined);
  // Figures to compute for a family the file does not carry: its history is in the file, or it has none yet.
  const figuresDue = HISTORY_FAMILIES.some((f) => {
    const stored = pointer?.families[DATASET_FAMILY_OF[f]];
    return stored?.version !== undefined && (stored.figuresAt === undefined || dataset[HISTORY_DATASET_FAMILY[f]]);
  });
  return platformsChanged || offersInFile || figuresDue;
}

/** The platform references offers render: the file's platforms, else the served ones' source records. */
async function resolverOf(
  dataset: Dataset,
  pointer: SnapshotPointer | undefined,
  versions: VersionWriter,
): Promise<PlatformResolver> {
  const platforms = {} as Record<(typeof PLATFORM_FAMILIES)[number], readonly PlatformRecord[]>;
  for (const family of PLATFORM_FAMILIES) {
    const version = pointer?.families[family]?.version;
    platforms[family] =
      dataset[family] ?? (version ? await versions.readSource(version, family, RECORD_SCHEMA[family]) : []);
  }
  return platformResolver(platforms as Platforms);
}

/** The change of one offer family: its records in the file, references it renders that moved, or figures only. */
async function offerChange(
  family: OfferFamily,
  dataset: Dataset,
  pointer: SnapshotPointer | undefined,
  resolve: PlatformResolver,
  { versions, now, writesHistory }: PlanContext,
): Promise<FamilyChange | undefined> {
  const name = DATASET_FAMILY_OF[family];
  const stored = pointer?.families[name];
  const given = dataset[name];
  const figuresAt = hasFigures(family) ? { figuresAt: now } : {};
  // Figures only: the documents stay (and their Last-Modified), the figures move to `now`.
  const figuresOnly = async () =>
    hasFigures(family) &&
    stored?.version !== undefined &&
    (stored.figuresAt === undefined || (await writesHistory(family, pointer)));
  const rendered = (records: readonly unknown[]) => (figures?: ReadonlyMap<number, ApyStats>) =>
    projectOffers(family, records, resolve, figures);
  if (given) {
    const state = { hash: hashOf(given), refs: resolve.digest, publishedAt: now };
    if (stored?.version !== versionOf(family, { ...state, figuresAt: stored?.figuresAt }))
      return change(family, { ...state, ...figuresAt }, rendered(given), given);
    if (await figuresOnly())
      return change(family, { ...state, ...figuresAt, publishedAt: stored!.publishedAt }, rendered(given), given);
    return undefined;
  }
  if (!stored?.version || !stored.hash) return undefined;
  // The family is not in the file, but a reference it renders changed: render it again; or its figures are due.
  const refsMoved = stored.refs !== resolve.digest;
  if (!refsMoved && !(await figuresOnly())) return undefined;
  const records = await versions.readSource(stored.version, name, RECORD_SCHEMA[name]);
  const state = refsMoved
    ? { ...stored, refs: resolve.digest, publishedAt: now, ...figuresAt }
    : { ...stored, ...figuresAt };
  return change(family, state, rendered(records), records);
}
