/**
 * The records of one family → the items of one family version. Everything the read path needs is
 * computed here, once per import: visibility (hidden records are simply not written), rendered
 * documents (decimals byte for byte), resolved platform references, dense list positions for every
 * ordering and filter view, view sizes and the APY value keys. History is appended, not projected
 * (history-plan.ts). See docs/data-model.md.
 */
import { createHash } from 'node:crypto';
import { decimalSortKey } from '../decimal';
import {
  CATALOG_ORDER,
  comparator,
  distinctSortModes,
  offerOrder,
  OFFER_SORT_FIELDS,
  type SortMode,
} from '../domain/orderings';
import {
  apyValueKey,
  APY_VALUE_ATTRIBUTE,
  CATALOG_INDEX,
  catalogKey,
  offerKey,
  offerViewKey,
  pairFilter,
  positionAttribute,
  SORT_INDEX,
  sourceKey,
  VIEW_ATTRIBUTE,
  VIEW_SIZE_ATTRIBUTE,
  PLATFORM_TYPE_ATTRIBUTE,
  viewMetaKey,
  viewPartition,
  type CatalogFamily,
  type OfferFamily,
  type PlatformFamily,
  type ViewDimension,
  type ViewFilter,
} from '../keys';
import type { CurrencyRecord, DatasetFamily, PlatformRecord } from '../schemas/dataset';
import {
  borrowOfferFields,
  collateralOfferFields,
  currencyFields,
  earnOfferFields,
  exchangeFields,
  TIMESTAMP_FIELDS,
  type PlatformRef,
  type PlatformType,
} from '../schemas/resources';

export type Item = Record<string, unknown> & { PK: string; SK: string };

const PLATFORM_FAMILY_OF: Record<PlatformType, PlatformFamily> = {
  exchange: 'exchanges',
  wallet: 'wallets',
  protocol: 'protocols',
};
const TYPE_OF: Record<PlatformFamily, PlatformType> = { exchanges: 'exchange', wallets: 'wallet', protocols: 'protocol' };


const FIELD_ORDER = {
  platform: Object.keys(exchangeFields),
  currency: Object.keys(currencyFields),
  earn: Object.keys(earnOfferFields),
  borrow: Object.keys(borrowOfferFields),
  collateral: Object.keys(collateralOfferFields),
};

const isoTime = (value: string) => new Date(value).toISOString();

/** The API document of a record: its API fields in specification order, timestamps normalized. */
function renderDoc(record: Record<string, unknown>, fields: string[], times: readonly string[], overrides = {}): string {
  const doc: Record<string, unknown> = {};
  for (const field of fields) doc[field] = record[field];
  for (const field of times) doc[field] = isoTime(record[field] as string);
  return JSON.stringify(Object.assign(doc, overrides));
}

const isExposed = (r: { published: boolean; delisted: boolean }) => r.published && !r.delisted;

/** Dense positions of `records` in the order of `compare`: position i of the i-th record. */
function positions<T>(records: T[], compare: (a: T, b: T) => number): Map<T, number> {
  return new Map([...records].sort(compare).map((record, i) => [record, i]));
}

// ---- platforms and currencies --------------------------------------------------------------------

type CatalogRecord = PlatformRecord | CurrencyRecord;

export function projectCatalog(version: string, family: CatalogFamily, records: readonly CatalogRecord[]): Item[] {
  const exposed = records.filter(isExposed);
  const order = positions(exposed, comparator(CATALOG_ORDER[family]));
  const partition = viewPartition(version, family);
  const items: Item[] = [];
  const current = new Set(exposed.map((r) => r.slug));
  for (const record of exposed) {
    const doc =
      family === 'currencies'
        ? renderDoc(record as Record<string, unknown>, FIELD_ORDER.currency, TIMESTAMP_FIELDS.currency)
        : renderDoc(record as Record<string, unknown>, FIELD_ORDER.platform, TIMESTAMP_FIELDS.platform, { type: TYPE_OF[family as PlatformFamily] });
    items.push({
      ...catalogKey(version, family, record.slug),
      doc,
      [VIEW_ATTRIBUTE]: partition,
      [positionAttribute(CATALOG_INDEX)]: order.get(record)!,
      // Every member carries its view's size, so a page read brings the list's total with it.
      [VIEW_SIZE_ATTRIBUTE]: exposed.length,
    });
    for (const former of record.previous_slugs) {
      // A current slug always wins over somebody's former one.
      if (!current.has(former)) items.push({ ...catalogKey(version, family, former), redirectTo: record.slug });
    }
  }
  items.push({ ...viewMetaKey(partition), [VIEW_SIZE_ATTRIBUTE]: exposed.length });
  return items;
}

export type Platforms = Readonly<Record<PlatformFamily, readonly PlatformRecord[]>>;
/**
 * The layout of the offer items projectOffers writes; a new one (2: the views of pairs of filters;
 * 3: every view member carries the view's size) changes every offer version through the
 * resolver's digest, so that the next import that resolves references writes the offers again in
 * it instead of keeping a version laid out the old way.
 */
const OFFER_LAYOUT = 3;

export type PlatformResolver = ((ref: PlatformRef | null) => PlatformRef | null) & { digest: string };

/**
 * Resolve offer platform references by current or former slug to exposed platforms (docs/api.md,
 * "Platform references"). Its digest changes exactly when some reference would render differently,
 * or when the offer items' layout (OFFER_LAYOUT) changed, so offers are re-rendered only then.
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
  const entries = [...byType].map(([type, table]) => [type, [...table].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
  const digest = createHash('sha256').update(JSON.stringify([OFFER_LAYOUT, entries])).digest('hex').slice(0, 20);
  return Object.assign((ref: PlatformRef | null) => (ref ? byType.get(ref.type)?.get(ref.slug) ?? null : null), { digest });
}

// ---- offers ------------------------------------------------------------------------------------

interface RenderedOffer {
  id: number;
  updated_at: string;
  doc: string;
  platform: PlatformRef | null;
  assetSlug: string | null;
  apyKey: string | null;
  [field: string]: unknown;
}

/** The filter views an offer is a member of: each filter alone, and `platform_type` or `platform` with `asset`. */
function filtersOf(offer: RenderedOffer): ViewFilter[] {
  const { platform, assetSlug: asset } = offer;
  const filters: ViewFilter[] = [];
  if (platform) filters.push({ dimension: 'platform_type', value: platform.type }, { dimension: 'platform', value: platform.slug });
  if (asset !== null) filters.push({ dimension: 'asset', value: asset });
  if (platform && asset !== null) filters.push(pairFilter('platform_type', platform.type, asset), pairFilter('platform', platform.slug, asset));
  return filters;
}

/**
 * The views whose lists may carry a `platform_type` filter besides their own, read with a filter
 * expression on it (shared/domain/offers.ts): only their copies store the platform type.
 */
const TYPE_FILTERED: ReadonlySet<ViewDimension> = new Set(['platform', 'platform+asset']);

export function projectOffers(version: string, family: OfferFamily, offerRecords: readonly unknown[], resolve: PlatformResolver): Item[] {
  const records = offerRecords as (Record<string, unknown> & { id: number; published: boolean })[];
  const apyField = OFFER_SORT_FIELDS[family].apy;
  const offers: RenderedOffer[] = records
    .filter((r) => r.published)
    .map((r) => {
      const platform = resolve(r.platform as PlatformRef | null);
      const asset = r.asset as { slug: string } | null;
      return {
        ...r,
        id: r.id,
        updated_at: r.updated_at as string,
        platform,
        assetSlug: asset?.slug ?? null,
        apyKey: apyField ? decimalSortKey(r[apyField] as string) : null,
        doc: renderDoc(r, FIELD_ORDER[family], TIMESTAMP_FIELDS[family], { platform }),
      };
    });

  // Group offers into views: the whole family, one view per value of each filter dimension, and one
  // per pair of values of platform_type or platform with asset.
  const views = new Map<string, { filter?: ViewFilter; members: RenderedOffer[] }>();
  const join = (partition: string, filter: ViewFilter | undefined, offer: RenderedOffer) => {
    const view = views.get(partition) ?? { filter, members: [] };
    view.members.push(offer);
    views.set(partition, view);
  };
  for (const offer of offers) {
    join(viewPartition(version, family), undefined, offer);
    for (const filter of filtersOf(offer)) join(viewPartition(version, family, filter), filter, offer);
  }

  const items: Item[] = [];
  const modes = distinctSortModes(family);
  for (const [partition, { filter, members }] of views) {
    const orders = modes.map((mode: SortMode) => ({ mode, order: positions(members, comparator(offerOrder(family, mode))) }));
    for (const offer of members) {
      const key = filter ? offerViewKey(version, family, offer.id, filter.dimension) : offerKey(version, family, offer.id);
      const item: Item = { ...key, doc: offer.doc, [VIEW_ATTRIBUTE]: partition, [VIEW_SIZE_ATTRIBUTE]: members.length };
      for (const { mode, order } of orders) item[positionAttribute(SORT_INDEX[mode])] = order.get(offer)!;
      if (offer.apyKey !== null) item[APY_VALUE_ATTRIBUTE] = apyValueKey(offer.apyKey, offer.id);
      if (filter && TYPE_FILTERED.has(filter.dimension)) item[PLATFORM_TYPE_ATTRIBUTE] = offer.platform!.type;
      items.push(item);
    }
    items.push({ ...viewMetaKey(partition), [VIEW_SIZE_ATTRIBUTE]: members.length });
  }
  return items;
}

// ---- source records ----------------------------------------------------------------------------

const SOURCE_CHUNK_BYTES = 300_000;

/** The family's records as imported, so offers can be rendered again when platform references change. */
export function projectSource(version: string, family: DatasetFamily, records: readonly unknown[]): Item[] {
  const items: Item[] = [];
  let chunk: string[] = [];
  let size = 0;
  const flush = () => {
    items.push({ ...sourceKey(version, family, items.length), records: `[${chunk.join(',')}]` });
    chunk = [];
    size = 0;
  };
  for (const record of records) {
    const json = JSON.stringify(record);
    if (size + json.length > SOURCE_CHUNK_BYTES && chunk.length > 0) flush();
    chunk.push(json);
    size += json.length + 1;
  }
  if (chunk.length > 0) flush();
  return items;
}

