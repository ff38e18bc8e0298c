/**
 * The records of one family → one family version: its ordered index and its documents in blocks
 * (docs/adr/0009-one-index-per-family-version.md). Everything the read path needs is computed here,
 * once per import: visibility (hidden records are simply not in the index), rendered documents
 * (decimals byte for byte), resolved platform references, every ordering and the filter values.
 * Documents are grouped in blocks whose boundaries depend only on identifiers, so a block whose
 * documents did not change has the same content hash in the next version and is not written again.
 * History is appended, not projected (history-plan.ts). See docs/data-model.md.
 */
import { createHash } from 'node:crypto';
import {
  type CatalogIndexData,
  type FigureData,
  type IndexData,
  type OfferIndexData,
  offerColumns,
  PackedStrings,
  packFigures,
  type VersionContent,
} from '../data/family-index';
import { blockHash } from '../data/items/document-block';
import type { CatalogFamily, OfferFamily, PlatformFamily } from '../data/keys';
import type { ApyStats } from '../domain/apy-stats';
import { CATALOG_ORDER, comparator, distinctSortModes, offerOrder, type SortMode } from '../domain/orderings';
import {
  currencyFields,
  exchangeFields,
  OFFER_FIELDS,
  type PlatformRef,
  type PlatformType,
  TIMESTAMP_FIELDS,
} from '../domain/resources';
import { hasFigures, isFigureSort, OFFER_FAMILIES } from '../model/offer-families';
import { groupBy } from '../platform/group-by';
import type { CurrencyRecord, PlatformRecord } from './dataset';

const PLATFORM_FAMILY_OF: Record<PlatformType, PlatformFamily> = {
  exchange: 'exchanges',
  wallet: 'wallets',
  protocol: 'protocols',
};
const TYPE_OF: Record<PlatformFamily, PlatformType> = {
  exchanges: 'exchange',
  wallets: 'wallet',
  protocols: 'protocol',
};

const FIELD_ORDER = {
  platform: Object.keys(exchangeFields),
  currency: Object.keys(currencyFields),
  ...(Object.fromEntries(OFFER_FAMILIES.map((family) => [family, Object.keys(OFFER_FIELDS[family])])) as Record<
    OfferFamily,
    string[]
  >),
};

const isoTime = (value: string) => new Date(value).toISOString();

/** The API document of a record: its API fields in specification order, timestamps normalized. */
function renderDoc(
  record: Record<string, unknown>,
  fields: string[],
  times: readonly string[],
  overrides = {},
): string {
  const doc: Record<string, unknown> = {};
  for (const field of fields) doc[field] = record[field];
  for (const field of times) doc[field] = isoTime(record[field] as string);
  return JSON.stringify(Object.assign(doc, overrides));
}

const isExposed = (r: { published: boolean; delisted: boolean }) => r.published && !r.delisted;

/** A block of documents: its content hash addresses it, so equal content is one item in every version. */
/** A family version as the import writes it (its shape is the data layer's: family-index.ts). */
export type Projection = VersionContent;
type DocumentBlock = VersionContent['blocks'][number];

const sha256 = (text: string) => createHash('sha256').update(text);

/** A block ends after an identifier whose hash is 0 mod 16, at a group's end, or at 24 documents or 48 KB of UTF-8 (sizes measured: docs/data-model.md, "Blocks"). */
const BOUNDARY_MASK = 15;
const BLOCK_MAX_DOCS = 24;
const BLOCK_MAX_BYTES = 48 * 1024;

/** FNV-1a of an identifier: where a block ends depends on the identifiers alone, never on content. */
function endsBlock(identifier: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < identifier.length; i++) h = Math.imul(h ^ identifier.charCodeAt(i), 0x01000193);
  return ((h >>> 0) & BOUNDARY_MASK) === 0;
}

/**
 * Cut each group of entries (in its given order) into blocks and fill the index's document columns.
 * `identifier(entry)` decides the boundaries; `doc(entry)` is the rendered document.
 */
function packBlocks(
  family: string,
  groups: Iterable<number[]>,
  size: number,
  identifier: (entry: number) => string,
  doc: (entry: number) => string,
): { columns: Pick<IndexData, 'block' | 'slot' | 'blocks' | 'hash'>; blocks: DocumentBlock[] } {
  const block = new Array<number>(size);
  const slot = new Array<number>(size);
  const hash = new Array<string>(size);
  const blocks: DocumentBlock[] = [];
  for (const entries of groups) {
    let members: number[] = [];
    let bytes = 0;
    const close = () => {
      const docs = members.map(doc);
      members.forEach((entry, i) => {
        block[entry] = blocks.length;
        slot[entry] = i;
      });
      blocks.push({ hash: blockHash(family, docs), docs });
      members = [];
      bytes = 0;
    };
    for (const entry of entries) {
      const d = doc(entry);
      // UTF-8 bytes, as stored: a document's length in UTF-16 code units undercounts non-ASCII text up to 3 times.
      const size = Buffer.byteLength(d);
      hash[entry] = sha256(d).digest('base64url').slice(0, 12);
      if (members.length > 0 && bytes + size > BLOCK_MAX_BYTES) close();
      members.push(entry);
      bytes += size;
      if (endsBlock(identifier(entry)) || members.length >= BLOCK_MAX_DOCS) close();
    }
    if (members.length > 0) close();
  }
  return { columns: { block, slot, blocks: blocks.map((b) => b.hash), hash }, blocks };
}

const ascending = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// ---- platforms and currencies --------------------------------------------------------------------

type CatalogRecord = PlatformRecord | CurrencyRecord;

export function projectCatalog(family: CatalogFamily, records: readonly CatalogRecord[]): Projection {
  const exposed = records.filter(isExposed).sort((a, b) => ascending(a.slug, b.slug));
  const compare = comparator(CATALOG_ORDER[family]);
  const order = exposed.map((_, i) => i).sort((a, b) => compare(exposed[a], exposed[b]));
  const docs = exposed.map((record) =>
    family === 'currencies'
      ? renderDoc(record as Record<string, unknown>, FIELD_ORDER.currency, TIMESTAMP_FIELDS.currency)
      : renderDoc(record as Record<string, unknown>, FIELD_ORDER.platform, TIMESTAMP_FIELDS.platform, {
          type: TYPE_OF[family as PlatformFamily],
        }),
  );
  // Blocks follow the list order: a page of the list reads a few blocks.
  const { columns, blocks } = packBlocks(
    family,
    [order],
    exposed.length,
    (i) => exposed[i].slug,
    (i) => docs[i],
  );
  const current = new Set(exposed.map((r) => r.slug));
  const redirects: Record<string, string> = {};
  for (const record of exposed) {
    // A current slug always wins over somebody's former one.
    for (const former of record.previous_slugs) if (!current.has(former)) redirects[former] = record.slug;
  }
  const index: CatalogIndexData = {
    kind: 'catalog',
    family,
    slugs: exposed.map((r) => r.slug),
    order,
    redirects,
    ...columns,
  };
  return { index, blocks };
}

export type Platforms = Readonly<Record<PlatformFamily, readonly PlatformRecord[]>>;

export type PlatformResolver = ((ref: PlatformRef | null) => PlatformRef | null) & { digest: string };

/**
 * Resolve offer platform references by current or former slug to exposed platforms (docs/api.md,
 * "Platform references"). Its digest changes whenever some reference would render differently (and
 * when a platform nothing references changes its visibility: a harmless re-render), so offers are
 * re-rendered only then.
 */
export function platformResolver(platforms: Platforms): PlatformResolver {
  const byType = new Map<PlatformType, Map<string, PlatformRef | null>>();
  for (const type of Object.keys(PLATFORM_FAMILY_OF) as PlatformType[]) {
    const table = new Map<string, PlatformRef | null>();
    const records = platforms[PLATFORM_FAMILY_OF[type]];
    const resolved = (r: PlatformRecord) => (isExposed(r) ? { type, slug: r.slug, name: r.name } : null);
    for (const r of records) for (const former of r.previous_slugs) table.set(former, resolved(r));
    for (const r of records) table.set(r.slug, resolved(r)); // current slugs win
    byType.set(type, table);
  }
  const entries = [...byType].map(([type, table]) => [
    type,
    [...table].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ]);
  const digest = createHash('sha256').update(JSON.stringify(entries)).digest('hex').slice(0, 20);
  return Object.assign((ref: PlatformRef | null) => (ref ? (byType.get(ref.type)?.get(ref.slug) ?? null) : null), {
    digest,
  });
}

// ---- offers ------------------------------------------------------------------------------------

/**
 * The figures of the published offers (in the order of the ids) as the index stores them: their
 * common `as_of`, each packed (null for an offer `figures` has none for). Undefined without any.
 */
function figureData(stats: readonly (ApyStats | null)[]): FigureData | undefined {
  const times = new Set(stats.flatMap((s) => (s ? [s.as_of] : [])));
  if (times.size === 0) return undefined;
  if (times.size > 1) throw new Error(`the figures of one version are as of one time, not ${[...times].join(', ')}`);
  return { as_of: [...times][0], stats: PackedStrings.of(stats.map((s) => (s ? packFigures(s) : null))) };
}

/**
 * The version of an offer family: `figures` maps an offer id to its APY figures (CONTRACT §13) as
 * of one refresh time, which earn and borrow indexes then carry with the orders of the figures'
 * sort modes; without it (collateral, or an import that computed none) the index has no figures.
 */
export function projectOffers(
  family: OfferFamily,
  offerRecords: readonly unknown[],
  resolve: PlatformResolver,
  /** Each published offer's APY figures at the version's refresh time (earn and borrow: docs/adr/0015-apy-figures.md). */
  figures?: ReadonlyMap<number, ApyStats>,
): Projection {
  const records = (offerRecords as (Record<string, unknown> & { id: number; published: boolean; updated_at: string })[])
    .filter((r) => r.published)
    .sort((a, b) => a.id - b.id);
  const platforms = records.map((r) => resolve(r.platform as PlatformRef | null));
  const docs = records.map((r, i) =>
    renderDoc(r, FIELD_ORDER[family], TIMESTAMP_FIELDS[family], { platform: platforms[i] }),
  );
  const slugOf = (value: unknown) => (value as { slug: string } | null)?.slug ?? null;
  const stats = figures && hasFigures(family) ? records.map((r) => figures.get(r.id) ?? null) : undefined;
  const withFigures = stats && figureData(stats);

  const orders: Partial<Record<SortMode, number[]>> = {};
  for (const mode of distinctSortModes(family)) {
    // Without figures a figure's order is the ids' (every figure null): the index reads it so, unstored.
    if (isFigureSort(mode) && !withFigures) continue;
    const compare = comparator(offerOrder(family, mode));
    const sorted = isFigureSort(mode) ? records.map((r, i) => ({ id: r.id, apy_stats: stats![i] })) : records;
    orders[mode] = records.map((_, i) => i).sort((a, b) => compare(sorted[a], sorted[b]));
  }
  // Blocks group the offers of one asset, by id: the currency detail reads its asset's blocks.
  const groups = groupBy(
    records.map((_, i) => i),
    (i) => slugOf(records[i].asset) ?? '',
  );
  const { columns, blocks } = packBlocks(
    family,
    groups.values(),
    records.length,
    (i) => String(records[i].id),
    (i) => docs[i],
  );
  const index: OfferIndexData = {
    kind: 'offers',
    family,
    // The declared columns, read from each offer as rendered (its platform resolved).
    ...offerColumns(
      family,
      records.map((r, i) => ({ ...r, platform: platforms[i] })),
    ),
    orders,
    ...(withFigures ? { figures: withFigures } : {}),
    ...columns,
  };
  return { index, blocks };
}
