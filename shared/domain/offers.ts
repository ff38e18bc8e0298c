/**
 * Offer lists, details and the offers of one asset. A list reads one view: the family's, the view
 * of its filter, or of its two filters (`platform_type` or `platform` with `asset`). Without other
 * filters a page is a position range on the sort mode's index (cost independent of offset);
 * `min_apy` with an APY sort becomes a position bound found on the APY value index, and with
 * another sort the cheaper of its matches or the top of the order. Only `platform_type` beside
 * `platform` reads the candidates in parallel chunks (the platform's view, or the view of the
 * platform and the asset; with `min_apy` only its offers at or above the bound) with a filter
 * expression and orders them in memory by their stored position: cost grows with the candidates,
 * never with the offset (docs/data-model.md).
 */
import { numberSortKey } from '../decimal';
import { NotFoundError } from '../errors';
import {
  APY_VALUE_ATTRIBUTE,
  offerKey,
  pairFilter,
  PLATFORM_TYPE_ATTRIBUTE,
  positionAttribute,
  SORT_INDEX,
  viewPartition,
  type OfferFamily,
  type ViewFilter,
} from '../keys';
import type { OfferQuery } from '../schemas/query';
import { docOf, type ItemFilter, type StoredItem } from '../repositories/view-store';
import type { Stores } from '../stores';
import type { FamilyVersions } from '../repositories/snapshot-store';
import { DEFAULT_SORT, effectiveSort } from './orderings';
import { pagination, type Page } from './page';

const docsOf = (items: StoredItem[]) => items.map(docOf);

/**
 * The view a list reads, and the platform type left for a filter expression. `platform` or
 * `platform_type` with `asset` has its own view (docs/data-model.md); a `platform_type` beside
 * `platform` is left over, on the platform's view or the view of the platform and the asset.
 */
function viewOf(query: OfferQuery): { view?: ViewFilter; leftType?: string } {
  const { platform_type: type, platform, asset } = query;
  const leftType = platform !== undefined ? type : undefined;
  if (asset !== undefined && platform !== undefined) return { view: pairFilter('platform', platform, asset), leftType };
  if (asset !== undefined && type !== undefined) return { view: pairFilter('platform_type', type, asset) };
  if (platform !== undefined) return { view: { dimension: 'platform', value: platform }, leftType };
  if (asset !== undefined) return { view: { dimension: 'asset', value: asset } };
  return { view: type === undefined ? undefined : { dimension: 'platform_type', value: type } };
}

const typeFilter = (type: string): ItemFilter => ({ expression: '#type = :type', names: { '#type': PLATFORM_TYPE_ATTRIBUTE }, values: { ':type': type } });

export async function listOffers({ snapshot, views }: Stores, family: OfferFamily, query: OfferQuery): Promise<Page> {
  const version = await snapshot.version(family);
  const sort = effectiveSort(family, query.sort);
  const index = SORT_INDEX[sort];
  const { view, leftType } = viewOf(query);
  const partition = viewPartition(version, family, view);
  const minApyKey = query.min_apy === undefined ? undefined : numberSortKey(query.min_apy);
  const { offset, limit } = query;
  const page = (docs: string[], total: number): Page => ({ docs, page: pagination(total, offset, limit, docs.length) });

  if (leftType === undefined && minApyKey === undefined) {
    const { total, items } = await views.page(partition, index, offset, offset + limit);
    return page(docsOf(items), total);
  }
  if (leftType === undefined && (sort === 'apy_desc' || sort === 'apy_asc')) {
    // Offers with apy >= min_apy are the apy_asc positions [start, n): the last n - start of
    // apy_asc and the first n - start of apy_desc.
    if (sort === 'apy_desc') {
      const [{ n, start }, items] = await Promise.all([views.apyBound(partition, minApyKey!), views.range(partition, index, offset, offset + limit)]);
      const k = n - start;
      return page(docsOf(items.filter((item) => Number(item[positionAttribute(index)]) < k)), k);
    }
    const { n, start } = await views.apyBound(partition, minApyKey!);
    return page(docsOf(await views.range(partition, index, start + offset, Math.min(n, start + offset + limit))), n - start);
  }

  if (leftType === undefined && (sort === 'tvl_desc' || sort === 'updated_desc')) {
    // The matches are the apy_asc positions [start, n) of the view, in another order. Either read
    // them all and order them (cost: the matches), or read the requested order from the top,
    // keeping what passes the bound, until the page is full (cost: about wanted × n / matches).
    // Each request takes the cheaper, so a first page reads at most about √(limit × n) items.
    const { n, start } = await views.apyBound(partition, minApyKey!);
    const total = n - start;
    const wanted = Math.min(total, offset + limit);
    if (wanted <= offset) return page([], total);
    const scanned = Math.ceil((wanted * n) / total);
    if (scanned < total) {
      const bound: ItemFilter = { expression: '#apy >= :apy', names: { '#apy': APY_VALUE_ATTRIBUTE }, values: { ':apy': minApyKey } };
      // A quarter more than the estimate, so that an uneven spread rarely needs a second span.
      const items = await views.firstMatches(partition, index, bound, wanted, n, Math.ceil(scanned * 1.25));
      return page(docsOf(items.slice(offset)), total);
    }
  }

  // platform_type beside platform, or a wide min_apy match with a non-APY sort: the candidates are
  // the view, narrowed by a filter expression for platform_type. With min_apy they are only its
  // offers at or above the bound (an apy_asc position range); they are then put in the requested
  // order by its stored position.
  const order = positionAttribute(index);
  const filter = leftType === undefined ? undefined : typeFilter(leftType);
  let candidates: StoredItem[];
  if (minApyKey === undefined) {
    candidates = await views.all(partition, index, filter);
  } else {
    const { n, start } = await views.apyBound(partition, minApyKey);
    candidates = await views.span(partition, SORT_INDEX.apy_asc, start, n, filter);
    candidates.sort((a, b) => Number(a[order]) - Number(b[order]));
  }
  return page(docsOf(candidates.slice(offset, offset + limit)), candidates.length);
}

export async function getOffer({ snapshot, views }: Stores, family: OfferFamily, id: number): Promise<string> {
  const item = await views.getItem(offerKey(await snapshot.version(family), family, id));
  if (!item) throw new NotFoundError(`No such ${family} offer.`);
  return docOf(item);
}

/** The published offers whose asset is `slug`, each family in its default order. */
export async function offersOfAsset({ views }: Stores, versions: FamilyVersions, slug: string): Promise<Record<OfferFamily, string[]>> {
  const read = (family: OfferFamily) =>
    views.all(viewPartition(versions[family], family, { dimension: 'asset', value: slug }), SORT_INDEX[DEFAULT_SORT[family]]).then(docsOf);
  const [earn, borrow, collateral] = await Promise.all([read('earn'), read('borrow'), read('collateral')]);
  return { earn, borrow, collateral };
}
