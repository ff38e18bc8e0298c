/**
 * Dataset → snapshot items. Everything the read path needs is computed here, once per import:
 * visibility (hidden records are simply not written), rendered documents (decimals byte for byte),
 * resolved platform references, dense list positions for every ordering and filter view, view
 * sizes, the APY value keys, and the history rollups. See docs/data-model.md.
 */
import { decimalSortKey } from '../decimal';
import { chunkOf, bucketStart, type Interval } from '../domain/buckets';
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
  historyChunkSortKey,
  historyPartition,
  offerKey,
  offerViewKey,
  positionAttribute,
  SORT_INDEX,
  sourceKey,
  VIEW_ATTRIBUTE,
  VIEW_SIZE_ATTRIBUTE,
  FILTER_ATTRIBUTE,
  viewMetaKey,
  viewPartition,
  type CatalogFamily,
  type HistoryFamily,
  type OfferFamily,
  type PlatformFamily,
  type SeriesResolution,
  type ViewDimension,
  type ViewFilter,
} from '../keys';
import type { CurrencyRecord, Dataset, DatasetFamily, PlatformRecord } from '../schemas/dataset';
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

/** A dataset with every family present (absent ones carried over or empty). */
export type CompleteDataset = Required<Dataset>;

export const PLATFORM_FAMILY_OF: Record<PlatformType, PlatformFamily> = {
  exchange: 'exchanges',
  wallet: 'wallets',
  protocol: 'protocols',
};
const TYPE_OF: Record<PlatformFamily, PlatformType> = { exchanges: 'exchange', wallets: 'wallet', protocols: 'protocol' };

export const OFFER_DATASET_FAMILY: Record<OfferFamily, 'earn_offers' | 'borrow_offers' | 'collateral_offers'> = {
  earn: 'earn_offers',
  borrow: 'borrow_offers',
  collateral: 'collateral_offers',
};
export const HISTORY_DATASET_FAMILY: Record<HistoryFamily, 'earn_history' | 'borrow_history'> = {
  earn: 'earn_history',
  borrow: 'borrow_history',
};

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

function projectCatalog(version: string, family: CatalogFamily, records: CatalogRecord[]): Item[] {
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
    });
    for (const former of record.previous_slugs) {
      // A current slug always wins over somebody's former one.
      if (!current.has(former)) items.push({ ...catalogKey(version, family, former), redirectTo: record.slug });
    }
  }
  items.push({ ...viewMetaKey(partition), [VIEW_SIZE_ATTRIBUTE]: exposed.length });
  return items;
}

/** Resolve offer platform references by current or former slug to exposed platforms (CONTRACT §4). */
export function platformResolver(dataset: CompleteDataset): (ref: PlatformRef | null) => PlatformRef | null {
  const byType = new Map<PlatformType, Map<string, PlatformRef | null>>();
  for (const type of Object.keys(PLATFORM_FAMILY_OF) as PlatformType[]) {
    const table = new Map<string, PlatformRef | null>();
    const records = dataset[PLATFORM_FAMILY_OF[type]] as PlatformRecord[];
    const resolved = (r: PlatformRecord) => (isExposed(r) ? { type, slug: r.slug, name: r.name } : null);
    for (const r of records) for (const former of r.previous_slugs) table.set(former, resolved(r));
    for (const r of records) table.set(r.slug, resolved(r)); // current slugs win
    byType.set(type, table);
  }
  return (ref) => (ref ? byType.get(ref.type)?.get(ref.slug) ?? null : null);
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

const DIMENSIONS: ViewDimension[] = ['platform_type', 'platform', 'asset'];

function filtersOf(offer: RenderedOffer): ViewFilter[] {
  const filters: ViewFilter[] = [];
  if (offer.platform) {
    filters.push({ dimension: 'platform_type', value: offer.platform.type });
    filters.push({ dimension: 'platform', value: offer.platform.slug });
  }
  if (offer.assetSlug !== null) filters.push({ dimension: 'asset', value: offer.assetSlug });
  return filters;
}

function projectOffers(version: string, family: OfferFamily, dataset: CompleteDataset, resolve: ReturnType<typeof platformResolver>): Item[] {
  const records = dataset[OFFER_DATASET_FAMILY[family]] as (Record<string, unknown> & { id: number; published: boolean })[];
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

  // Group offers into views: the whole family, and one view per value of each filter dimension.
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
      const item: Item = { ...key, doc: offer.doc, [VIEW_ATTRIBUTE]: partition };
      for (const { mode, order } of orders) item[positionAttribute(SORT_INDEX[mode])] = order.get(offer)!;
      if (offer.apyKey !== null) item[APY_VALUE_ATTRIBUTE] = apyValueKey(offer.apyKey, offer.id);
      // Filter attributes for combined filters (FilterExpression on the most selective view).
      if (offer.platform) {
        item[FILTER_ATTRIBUTE.platform_type] = offer.platform.type;
        item[FILTER_ATTRIBUTE.platform] = offer.platform.slug;
      }
      if (offer.assetSlug !== null) item[FILTER_ATTRIBUTE.asset] = offer.assetSlug;
      items.push(item);
    }
    items.push({ ...viewMetaKey(partition), [VIEW_SIZE_ATTRIBUTE]: members.length });
  }
  return items;
}

// ---- history -----------------------------------------------------------------------------------

/** A stored bucket: [bucketStartMs, apy, tvl | null, lastObservationMs]. */
export type BucketPoint = [number, string, string | null, number];
/** A raw observation: [timeMs, apy, tvl | null]. */
export type RawPoint = [number, string, string | null];

const RAW_CHUNK_LIMIT = 1000;

const ROLLUPS: { resolution: Exclude<SeriesResolution, 'RAW'>; interval: Interval }[] = [
  { resolution: '4H', interval: '4h' },
  { resolution: '1D', interval: '1d' },
  { resolution: '1W', interval: '1w' },
];

/** Observations sorted by time; of two at the same instant, the later in the file wins. */
export function observations(points: { timestamp: string; apy: string; tvl?: string | null }[]): RawPoint[] {
  const byTime = new Map<number, RawPoint>();
  for (const p of points) {
    const ms = Date.parse(p.timestamp);
    byTime.set(ms, [ms, p.apy, p.tvl ?? null]);
  }
  return [...byTime.values()].sort((a, b) => a[0] - b[0]);
}

/** Last observation of each bucket, in time order. */
export function rollup(raw: RawPoint[], interval: Interval): BucketPoint[] {
  const buckets = new Map<number, BucketPoint>();
  for (const [ms, apy, tvl] of raw) buckets.set(bucketStart(interval, ms), [bucketStart(interval, ms), apy, tvl, ms]);
  return [...buckets.values()];
}

function chunked<T>(points: T[], chunkId: (p: T) => string): Map<string, T[]> {
  const chunks = new Map<string, T[]>();
  for (const p of points) {
    const id = chunkId(p);
    const list = chunks.get(id) ?? [];
    list.push(p);
    chunks.set(id, list);
  }
  return chunks;
}

function projectHistory(version: string, family: HistoryFamily, offerId: number, points: { timestamp: string; apy: string; tvl?: string | null }[]): Item[] {
  const PK = historyPartition(version, family, offerId);
  const raw = observations(points);
  const items: Item[] = [];
  for (const [day, list] of chunked(raw, (p) => chunkOf.RAW(p[0]))) {
    for (let i = 0; i * RAW_CHUNK_LIMIT < list.length; i++) {
      const part = list.slice(i * RAW_CHUNK_LIMIT, (i + 1) * RAW_CHUNK_LIMIT);
      items.push({ PK, SK: historyChunkSortKey('RAW', `${day}#${String(i).padStart(3, '0')}`), pts: JSON.stringify(part) });
    }
  }
  for (const { resolution, interval } of ROLLUPS) {
    for (const [chunk, list] of chunked(rollup(raw, interval), (p) => chunkOf[resolution](p[0]))) {
      items.push({ PK, SK: historyChunkSortKey(resolution, chunk), pts: JSON.stringify(list) });
    }
  }
  return items;
}

// ---- source records ----------------------------------------------------------------------------

const SOURCE_CHUNK_BYTES = 300_000;

/**
 * A history record can be far larger than an item (three years of hourly points are ~2 MB):
 * its points are split into parts of the same `offer_id`, which `joinSourceRecords` joins again.
 */
function sourceParts(record: unknown): unknown[] {
  const series = record as { offer_id?: number; points?: unknown[] };
  if (!Array.isArray(series.points)) return [record];
  const size = JSON.stringify(record).length;
  if (size <= SOURCE_CHUNK_BYTES) return [record];
  const parts: unknown[] = [];
  const perPart = Math.max(1, Math.floor(series.points.length / Math.ceil(size / (SOURCE_CHUNK_BYTES / 2))));
  for (let i = 0; i < series.points.length; i += perPart) parts.push({ ...series, points: series.points.slice(i, i + perPart) });
  return parts;
}

/** The records of a family as read back from its source items: split history records joined. */
export function joinSourceRecords(records: unknown[]): unknown[] {
  const joined: unknown[] = [];
  const seriesAt = new Map<number, { points: unknown[] }>();
  for (const record of records) {
    const series = record as { offer_id?: number; points?: unknown[] };
    const previous = typeof series.offer_id === 'number' && Array.isArray(series.points) ? seriesAt.get(series.offer_id) : undefined;
    if (previous) {
      previous.points.push(...series.points!);
      continue;
    }
    const copy = Array.isArray(series.points) ? { ...series, points: [...series.points] } : record;
    if (Array.isArray(series.points) && typeof series.offer_id === 'number') seriesAt.set(series.offer_id, copy as { points: unknown[] });
    joined.push(copy);
  }
  return joined;
}

/** The family's records as imported, so a later import that omits the family can carry it over. */
function projectSource(version: string, family: DatasetFamily, records: unknown[]): Item[] {
  const items: Item[] = [];
  let chunk: string[] = [];
  let size = 0;
  const flush = () => {
    items.push({ ...sourceKey(version, family, items.length), records: `[${chunk.join(',')}]` });
    chunk = [];
    size = 0;
  };
  for (const record of records.flatMap(sourceParts)) {
    const json = JSON.stringify(record);
    if (size + json.length > SOURCE_CHUNK_BYTES && chunk.length > 0) flush();
    chunk.push(json);
    size += json.length + 1;
  }
  if (chunk.length > 0) flush();
  return items;
}

// ---- the whole snapshot ------------------------------------------------------------------------

export function projectSnapshot(version: string, dataset: CompleteDataset): Item[] {
  const resolve = platformResolver(dataset);
  const items: Item[] = [];
  for (const family of ['exchanges', 'wallets', 'protocols', 'currencies'] as const) {
    items.push(...projectCatalog(version, family, dataset[family]));
  }
  for (const family of ['earn', 'borrow', 'collateral'] as const) items.push(...projectOffers(version, family, dataset, resolve));
  for (const family of ['earn', 'borrow'] as const) {
    const published = new Set(dataset[OFFER_DATASET_FAMILY[family]].filter((o) => o.published).map((o) => o.id));
    for (const series of dataset[HISTORY_DATASET_FAMILY[family]]) {
      if (published.has(series.offer_id)) items.push(...projectHistory(version, family, series.offer_id, series.points));
    }
  }
  for (const family of Object.keys(dataset) as DatasetFamily[]) items.push(...projectSource(version, family, dataset[family]));
  return items;
}

export const DIMENSION_NAMES = DIMENSIONS;
