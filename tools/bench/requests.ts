/**
 * The fixed request mix: every endpoint; for lists the first page and a deep offset, each filter
 * alone, the sort modes, combined filters; every detail; every history period of an offer with
 * the longest history. Each kind knows its floor (floor.ts) and what the data model promises
 * about it (docs/data-model.md), which the report checks.
 */

import {
  CATALOG_FAMILIES,
  type CatalogFamily,
  type HistoryFamily,
  historyPartition,
  historySortKey,
  OFFER_FAMILIES,
  type OfferFamily,
} from '../../shared/data/keys';
import {
  bucketStart,
  type Interval,
  MAX_HISTORY_IDS,
  PERIOD_SPEC,
  PERIODS,
  type Period,
  SERIES,
} from '../../shared/domain/buckets';
import type { SortMode } from '../../shared/domain/orderings';
import type { FunctionName } from '../../shared/http/routes';
import type { DenseBatch } from './dense-history';
import type { FloorSpec, ServedData, ViewFilter } from './floor';
import type { Picks } from './picks';

const PAGE = 50;
const API = '/api/v1';

export interface Answer {
  status: number;
  body: any;
}

export interface FloorContext {
  data: ServedData;
  now: Date;
}

export interface RequestKind {
  name: string;
  path: string;
  fn: FunctionName;
  group:
    | 'catalog list'
    | 'offer list'
    | 'single filter'
    | 'filter pair'
    | 'min_apy'
    | 'combined filters'
    | '1.2 filters'
    | 'detail'
    | 'search'
    | 'history';
  expectStatus: number;
  /** Sequential round trips of a warm request the data model promises (docs/data-model.md). */
  promisedRoundTrips: number;
  /** Lists: which list this is a page of, and whether it is its first page or a deep one. */
  page?: { list: string; role: 'first' | 'deep'; filtered: boolean; offset: number };
  /** History: the period (period=all must read one page). */
  period?: Period;
  /**
   * History: reads no more read units than `times` × those of the kind named `kind` (a custom
   * window as the period of its interval and length; several offers as that many single windows).
   */
  readCeiling?: { kind: string; times: number };
  /**
   * A ceiling of its own (the worst batch history, CONTRACT §12): read units, and milliseconds under
   * the latency model (model-pass.ts `modelledMs`); it is then held to these, not to the request ceiling.
   */
  ownCeiling?: { readUnits: number; modelledMs: number };
  floor: (ctx: FloorContext, answer: Answer) => Promise<FloorSpec | undefined>;
}

type Sizes = (family: CatalogFamily | OfferFamily, filters?: ViewFilter[]) => Promise<number>;

const query = (params: Record<string, string | number | undefined>) => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined) as [string, string | number][];
  return entries.length === 0 ? '' : `?${entries.map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&')}`;
};

/** The deep offset of a list: `target`, or the last full page of a smaller view (undefined: too small). */
function deepOffset(n: number, target: number): number | undefined {
  const offset = Math.min(target, n - PAGE);
  return offset > 0 ? offset : undefined;
}

const idsOf = (answer: Answer): (string | number)[] =>
  (answer.body?.data ?? []).map((d: { id?: number; slug?: string }) => d.id ?? d.slug);

interface OfferListQuery {
  filters?: ViewFilter[];
  sort?: SortMode;
  min_apy?: string;
  offset?: number;
  limit?: number;
  /** Parameters of version 1.2 (lists of values, chain, min_tvl, ids, the flags), as sent. */
  params?: Record<string, string>;
}

function offerList(
  family: OfferFamily,
  name: string,
  q: OfferListQuery,
  extra: Partial<RequestKind> = {},
): RequestKind {
  const filters = q.filters ?? [];
  const params: Record<string, string | number | undefined> = Object.fromEntries(
    filters.map((f) => [f.dimension, f.value]),
  );
  Object.assign(params, q.params, { min_apy: q.min_apy, sort: q.sort, offset: q.offset || undefined, limit: q.limit });
  // The kinds that read whole views before the index: platform_type beside platform, min_apy with a non-APY sort.
  const has = (d: ViewFilter['dimension']) => filters.some((f) => f.dimension === d);
  const combined =
    (has('platform') && has('platform_type')) ||
    (q.min_apy !== undefined && (q.sort === 'tvl_desc' || q.sort === 'updated_desc'));
  const group: RequestKind['group'] = q.params
    ? '1.2 filters'
    : combined
      ? 'combined filters'
      : q.min_apy !== undefined
        ? 'min_apy'
        : filters.length > 1
          ? 'filter pair'
          : filters.length > 0
            ? 'single filter'
            : 'offer list';
  // Every list is answered from the loaded index: one round trip, the page's blocks.
  const floor = async ({ data }: FloorContext, answer: Answer): Promise<FloorSpec> => ({
    read: 'blocks',
    keys: await data.blockKeys(family, idsOf(answer) as number[]),
  });
  return {
    name,
    path: `${API}/${family}${query(params)}`,
    fn: 'offers',
    group,
    expectStatus: 200,
    promisedRoundTrips: 1,
    floor,
    ...extra,
  };
}

function catalogList(family: CatalogFamily, name: string, offset: number, role: 'first' | 'deep'): RequestKind {
  return {
    name,
    path: `${API}/${family}${query({ offset: offset || undefined })}`,
    fn: family === 'currencies' ? 'currencies' : 'platforms',
    group: 'catalog list',
    expectStatus: 200,
    promisedRoundTrips: 1,
    page: { list: family, role, filtered: false, offset },
    floor: async ({ data }, answer) => ({ read: 'blocks', keys: await data.blockKeys(family, idsOf(answer)) }),
  };
}

function catalogDetail(family: CatalogFamily, slug: string): RequestKind {
  return {
    name: `${family} detail`,
    path: `${API}/${family}/${encodeURIComponent(slug)}`,
    fn: family === 'currencies' ? 'currencies' : 'platforms',
    group: 'detail',
    expectStatus: 200,
    promisedRoundTrips: 1,
    floor: async ({ data }) => ({ read: 'blocks', keys: await data.blockKeys(family, [slug]) }),
  };
}

function currencyDetail(name: string, slug: string): RequestKind {
  return {
    name,
    path: `${API}/currencies/${encodeURIComponent(slug)}`,
    fn: 'currencies',
    group: 'detail',
    expectStatus: 200,
    promisedRoundTrips: 1,
    // The blocks of the record and of every offer of its asset, in one round trip.
    floor: async ({ data }, answer) => {
      const reads: FloorSpec[] = [{ read: 'blocks', keys: await data.blockKeys('currencies', [slug]) }];
      for (const family of OFFER_FAMILIES) {
        const ids = (answer.body[`${family}_offers`] as { id: number }[]).map((o) => o.id);
        reads.push({ read: 'blocks', keys: await data.blockKeys(family, ids) });
      }
      return { read: 'parallel', reads };
    },
  };
}

const FAMILY_OF_TYPE: Record<string, CatalogFamily> = {
  currency: 'currencies',
  exchange: 'exchanges',
  wallet: 'wallets',
  protocol: 'protocols',
};

/**
 * A search (docs/api.md, "Search"): warm, it reads nothing but its counter (each version's records
 * are kept, ADR 0027). Its floor is the blocks of its matches' records, each family's in parallel:
 * the read that returns what it answers as documents, what the details of its matches read.
 */
function search(name: string, q: string): RequestKind {
  return {
    name,
    path: `${API}/search?q=${encodeURIComponent(q)}&limit=20`,
    fn: 'search',
    group: 'search',
    expectStatus: 200,
    promisedRoundTrips: 1,
    floor: async ({ data }, answer) => {
      const hits = answer.body.data as { type: string; slug: string }[];
      const reads = await Promise.all(
        Object.values(FAMILY_OF_TYPE).map(async (family) => ({
          read: 'blocks' as const,
          keys: await data.blockKeys(
            family,
            hits.filter((hit) => FAMILY_OF_TYPE[hit.type] === family).map((hit) => hit.slug),
          ),
        })),
      );
      return { read: 'parallel', reads: reads.filter((r) => r.keys.length > 0) };
    },
  };
}

function offerDetail(family: OfferFamily, id: number): RequestKind {
  return {
    name: `${family} offer detail`,
    path: `${API}/${family}/${id}`,
    fn: 'offers',
    group: 'detail',
    expectStatus: 200,
    promisedRoundTrips: 1,
    floor: async ({ data }) => ({ read: 'blocks', keys: await data.blockKeys(family, [id]) }),
  };
}

/** The one Query of a series that answers a window of `interval` from `from` (undefined: `all`) to `to`. */
function windowRead(
  family: HistoryFamily,
  id: number,
  interval: Interval,
  from: number | undefined,
  to: number,
): FloorSpec {
  const start = from === undefined ? 0 : interval === '1h' ? from : bucketStart(interval, from);
  return {
    read: 'partition',
    pk: historyPartition(family, id),
    resolution: SERIES[interval].stored,
    from: historySortKey(SERIES[interval].stored, start),
    to: historySortKey(SERIES[interval].stored, to),
  };
}

function history(family: HistoryFamily, id: number, period: Period): RequestKind {
  return {
    name: `${family} history ${period}`,
    path: `${API}/${family}/${id}/history?period=${period}`,
    fn: 'history',
    group: 'history',
    expectStatus: 200,
    promisedRoundTrips: 1,
    period,
    // The one Query of the series that answers the window (the same bounds the read path uses).
    floor: async ({ now }) => {
      const { interval, windowMs } = PERIOD_SPEC[period];
      const to = now.getTime();
      return windowRead(family, id, interval, windowMs === null ? undefined : to - windowMs, to);
    },
  };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const isoOf = (ms: number) => new Date(ms).toISOString();

/**
 * A custom window (`from`, `to` absent = the request time, or given) of `days` before `now` (the
 * dataset's time) with `interval`; `readCeiling` names the period of the same interval and length,
 * whose window contains this one.
 */
function customHistory(
  family: HistoryFamily,
  id: number,
  now: Date,
  { days, interval, endDaysAgo, period }: { days: number; interval: Interval; endDaysAgo?: number; period?: Period },
): RequestKind {
  const end = endDaysAgo === undefined ? undefined : now.getTime() - endDaysAgo * DAY;
  // Two hours short of `days`: the request runs after `now` (within the two hours), and the window
  // stays inside its period's, whose read is its ceiling.
  const from = (end ?? now.getTime()) - days * DAY + 2 * HOUR;
  const to = end === undefined ? '' : `&to=${isoOf(end)}`;
  return {
    name: `${family} history custom ${days} days${end === undefined ? '' : `, ending ${endDaysAgo} days ago`} (${interval})`,
    path: `${API}/${family}/${id}/history?from=${isoOf(from)}${to}&interval=${interval}`,
    fn: 'history',
    group: 'history',
    expectStatus: 200,
    promisedRoundTrips: 1,
    ...(period === undefined ? {} : { readCeiling: { kind: `${family} history ${period}`, times: 1 } }),
    floor: async (ctx) => windowRead(family, id, interval, from, end ?? ctx.now.getTime()),
  };
}

/** Several offers' windows of one period in one request: one Query each, in parallel. */
function historyOfSeveral(family: HistoryFamily, ids: number[], period: Period): RequestKind {
  return {
    name: `${family} history of ${ids.length} offers ${period}`,
    path: `${API}/${family}/history?ids=${ids.join(',')}&period=${period}`,
    fn: 'history',
    group: 'history',
    expectStatus: 200,
    promisedRoundTrips: 1,
    readCeiling: { kind: `${family} history ${period}`, times: ids.length },
    floor: async ({ now }) => {
      const { interval, windowMs } = PERIOD_SPEC[period];
      const to = now.getTime();
      const from = windowMs === null ? undefined : to - windowMs;
      return { read: 'parallel', reads: ids.map((id) => windowRead(family, id, interval, from, to)) };
    },
  };
}

/**
 * The worst batch's ceilings: read units as issue 45 aims them (packed items: docs/adr/0029-packed-history.md),
 * and a third of the functions' 10 s timeout.
 */
const WORST_BATCH = { readUnits: 600, modelledMs: 3_333 } as const;

/**
 * The worst batch the 50,000-bucket rule allows (CONTRACT §12): 50 offers × 1,000 weekly buckets,
 * every bucket stored at its largest (tools/bench/dense-history.ts). Its ceilings: WORST_BATCH.
 */
function worstBatch(family: HistoryFamily, batch: DenseBatch): RequestKind {
  const buckets = (batch.to - batch.from) / SERIES[batch.interval].bucketMs + 1;
  return {
    name: `${family} history worst batch: ${batch.ids.length} offers × ${buckets} buckets of ${batch.interval}, 64-digit decimals`,
    path: `${API}/${family}/history?ids=${batch.ids.join(',')}&from=${isoOf(batch.from)}&to=${isoOf(batch.to)}&interval=${batch.interval}`,
    fn: 'history',
    group: 'history',
    expectStatus: 200,
    promisedRoundTrips: 1,
    ownCeiling: WORST_BATCH,
    floor: async () => ({
      read: 'parallel',
      reads: batch.ids.map((id) => windowRead(family, id, batch.interval, batch.from, batch.to)),
    }),
  };
}

export async function requestMix(picks: Picks, sizes: Sizes, quick: boolean): Promise<RequestKind[]> {
  const kinds: RequestKind[] = [];
  const pair = (
    list: string,
    filtered: boolean,
    first: RequestKind,
    deep: (offset: number) => RequestKind,
    n: number,
    target: number,
  ) => {
    kinds.push({ ...first, page: { list, role: 'first', filtered, offset: 0 } });
    const offset = deepOffset(n, target);
    if (offset !== undefined) kinds.push({ ...deep(offset), page: { list, role: 'deep', filtered, offset } });
  };

  // Platforms and currencies.
  for (const family of CATALOG_FAMILIES) {
    const n = await sizes(family);
    const target = family === 'currencies' ? 5_000 : n;
    const offset = deepOffset(n, target);
    kinds.push(catalogList(family, `${family} first page`, 0, 'first'));
    if (offset !== undefined) kinds.push(catalogList(family, `${family} offset ${offset}`, offset, 'deep'));
  }
  kinds.push(
    catalogDetail('exchanges', picks.exchange),
    catalogDetail('wallets', picks.wallet),
    catalogDetail('protocols', picks.protocol),
    // An exact slug, and one letter: the most matches of every rank in every family.
    search(`search q=${picks.busiestCurrency} (exact)`, picks.busiestCurrency),
    search('search q=a (every rank)', 'a'),
  );
  for (const [name, slug] of [
    ['currency detail (most offers)', picks.busiestCurrency],
    ['currency detail (typical)', picks.typicalCurrency],
  ] as const) {
    const counts = await Promise.all(OFFER_FAMILIES.map((f) => sizes(f, [{ dimension: 'asset', value: slug }])));
    kinds.push(currencyDetail(`${name}: ${slug} ${counts.join('/')}`, slug));
  }

  // Offer lists: each family, first page and deep.
  for (const family of OFFER_FAMILIES) {
    const n = await sizes(family);
    pair(
      family,
      false,
      offerList(family, `${family} first page`, {}),
      (offset) => offerList(family, `${family} offset ${offset}`, { offset }),
      n,
      10_000,
    );
  }

  // Each filter alone, on earn; the largest views of each dimension.
  const platformType: ViewFilter = { dimension: 'platform_type', value: picks.platformType };
  const platform: ViewFilter = { dimension: 'platform', value: picks.platform };
  const asset: ViewFilter = { dimension: 'asset', value: picks.asset };
  for (const filter of [platformType, platform, asset]) {
    const n = await sizes('earn', [filter]);
    const label = `earn ${filter.dimension}=${filter.value}`;
    pair(
      `earn ${filter.dimension}`,
      true,
      offerList('earn', `${label} (${n})`, { filters: [filter] }),
      (offset) => offerList('earn', `${label} offset ${offset}`, { filters: [filter], offset }),
      n,
      10_000,
    );
  }
  kinds.push(offerList('borrow', `borrow platform_type=${picks.platformType}`, { filters: [{ ...platformType }] }));
  kinds.push(
    offerList('collateral', `collateral asset=${picks.busiestCurrency}`, {
      filters: [{ dimension: 'asset', value: picks.busiestCurrency }],
    }),
  );

  // Sort modes (earn), the non-default ones with a deep page too.
  const earnSize = await sizes('earn');
  for (const sort of ['apy_asc', 'tvl_desc', 'updated_desc'] as const) {
    pair(
      `earn sort=${sort}`,
      false,
      offerList('earn', `earn sort=${sort}`, { sort }),
      (offset) => offerList('earn', `earn sort=${sort} offset ${offset}`, { sort, offset }),
      earnSize,
      10_000,
    );
  }

  // min_apy with the default sorts: apy_desc (earn) is a position bound, apy_asc (borrow) two steps.
  kinds.push(offerList('earn', `earn min_apy=${picks.earnMinApy} (apy_desc)`, { min_apy: picks.earnMinApy }));
  const minApyOffset = quick ? 100 : 1_000;
  kinds.push(
    offerList('earn', `earn min_apy=${picks.earnMinApy} offset ${minApyOffset}`, {
      min_apy: picks.earnMinApy,
      offset: minApyOffset,
    }),
  );
  kinds.push(offerList('borrow', `borrow min_apy=${picks.borrowMinApy} (apy_asc)`, { min_apy: picks.borrowMinApy }));

  // Two filters: the pair's own view, a position range as for one filter, at any offset, with
  // min_apy and with another sort.
  const typeAsset = [platformType, asset];
  const platformAsset: ViewFilter = { dimension: 'asset', value: picks.platformAsset };
  const typeAssetLabel = `earn platform_type=${picks.platformType} & asset=${picks.asset}`;
  const typeAssetSize = await sizes('earn', typeAsset);
  pair(
    'earn platform_type+asset',
    true,
    offerList('earn', `${typeAssetLabel} (${typeAssetSize})`, { filters: typeAsset }),
    (offset) => offerList('earn', `${typeAssetLabel} offset ${offset}`, { filters: typeAsset, offset }),
    typeAssetSize,
    10_000,
  );
  kinds.push(
    offerList('earn', `earn platform=${picks.platform} & asset=${picks.platformAsset}`, {
      filters: [platform, platformAsset],
    }),
  );
  kinds.push(
    offerList('earn', `${typeAssetLabel} & min_apy (apy_desc)`, { filters: typeAsset, min_apy: picks.earnMinApy }),
  );
  kinds.push(offerList('earn', `${typeAssetLabel} & sort=updated_desc`, { filters: typeAsset, sort: 'updated_desc' }));

  // Combined filters: a view's candidates read whole, with a filter expression: platform_type
  // beside platform (alone or with asset), and min_apy with another sort.
  const typeOfPlatform: ViewFilter = { dimension: 'platform_type', value: picks.platformTypeOfPlatform };
  kinds.push(
    offerList('earn', `earn platform_type=${picks.platformTypeOfPlatform} & platform=${picks.platform}`, {
      filters: [typeOfPlatform, platform],
    }),
  );
  kinds.push(
    offerList(
      'earn',
      `earn platform_type=${picks.platformTypeOfPlatform} & platform=${picks.platform} & asset=${picks.platformAsset}`,
      {
        filters: [typeOfPlatform, platform, platformAsset],
      },
    ),
  );
  kinds.push(
    offerList('earn', `earn asset=${picks.asset} & min_apy & sort=tvl_desc`, {
      filters: [asset],
      min_apy: picks.earnMinApy,
      sort: 'tvl_desc',
    }),
  );
  kinds.push(
    offerList('earn', `earn platform_type=${picks.platformType} & min_apy & sort=tvl_desc`, {
      filters: [platformType],
      min_apy: picks.earnMinApy,
      sort: 'tvl_desc',
    }),
  );
  kinds.push(
    offerList('earn', 'earn min_apy & sort=tvl_desc (no filter)', { min_apy: picks.earnMinApy, sort: 'tvl_desc' }),
  );

  // Pages of 200 (the ceiling of a list page: docs/performance.md), first and deep, alone and filtered.
  kinds.push(offerList('earn', 'earn first page limit=200', { limit: 200 }));
  kinds.push(
    offerList('earn', `earn offset ${Math.max(0, earnSize - 200)} limit=200`, {
      limit: 200,
      offset: Math.max(0, earnSize - 200),
    }),
  );
  kinds.push(offerList('earn', `earn asset=${picks.asset} limit=200`, { filters: [asset], limit: 200 }));

  // Version 1.2: lists of values, chain, min_tvl, the flags, ids (docs/api.md, "Filters").
  const twoAssets = `${picks.asset},${picks.secondAsset}`;
  kinds.push(
    offerList('earn', `earn asset=${twoAssets} & chain=${picks.chain} (1.2)`, {
      params: { asset: twoAssets, chain: picks.chain },
    }),
  );
  kinds.push(
    offerList('earn', `earn min_tvl=${picks.earnMinTvl} & available=true (1.2)`, {
      params: { min_tvl: picks.earnMinTvl, available: 'true' },
    }),
  );
  kinds.push(
    offerList('earn', `earn asset=${twoAssets} & min_tvl & sort=tvl_desc (1.2)`, {
      params: { asset: twoAssets, min_tvl: picks.earnMinTvl },
      sort: 'tvl_desc',
    }),
  );
  kinds.push(offerList('earn', 'earn ids=200 ids (1.2)', { params: { ids: picks.earnIds.join(',') }, limit: 200 }));

  // Version 1.2: a page of a replaced version, and the changes of a 100 % and of a 5 % refresh.
  if (picks.earnVersions) {
    const [v0, v1, v2] = picks.earnVersions;
    const pinned = (version: string, name: string, path: string): RequestKind => ({
      name,
      path,
      fn: 'offers',
      group: '1.2 filters',
      expectStatus: 200,
      promisedRoundTrips: 1,
      // The blocks of the pinned version that hold the answer's offers.
      floor: async ({ data }, answer) => {
        const ids = (answer.body.data as { id: number; offer?: unknown }[])
          .filter((d) => d.offer !== null)
          .map((d) => d.id);
        return { read: 'blocks', keys: await data.blockKeys('earn', ids, version) };
      },
    });
    kinds.push(pinned(v0, 'earn page of a replaced version (snapshot=, 1.2)', `${API}/earn?snapshot=${v0}`));
    kinds.push(pinned(v1, 'earn changes of a 100 % refresh (1.2)', `${API}/earn/changes?since=${v0}&snapshot=${v1}`));
    kinds.push(pinned(v2, 'earn changes of a 5 % refresh (1.2)', `${API}/earn/changes?since=${v1}&snapshot=${v2}`));
  }

  // Details.
  for (const family of OFFER_FAMILIES) kinds.push(offerDetail(family, picks.offerIds[family]));

  // History: every period of the longest earn series; borrow's finest and coarsest; collateral.
  for (const period of PERIODS) kinds.push(history('earn', picks.earnHistoryId, period));
  kinds.push(history('borrow', picks.borrowHistoryId, '1m'), history('borrow', picks.borrowHistoryId, 'all'));
  // Custom windows of the periods' lengths and intervals, one that ends in the past, and the most
  // offers one request reads.
  const { earnHistoryId: id, now } = picks;
  kinds.push(
    customHistory('earn', id, now, { days: 7, interval: PERIOD_SPEC['1w'].interval, period: '1w' }),
    customHistory('earn', id, now, { days: 30, interval: PERIOD_SPEC['1m'].interval, period: '1m' }),
    customHistory('earn', id, now, { days: 365, interval: PERIOD_SPEC['1y'].interval, period: '1y' }),
    customHistory('earn', id, now, { days: 5, interval: '1d', endDaysAgo: 1 }),
    historyOfSeveral('earn', picks.earnHistoryIds.slice(0, MAX_HISTORY_IDS), '1m'),
    historyOfSeveral('earn', picks.earnHistoryIds.slice(0, MAX_HISTORY_IDS), '3m'),
  );
  if (picks.denseBatch) kinds.push(worstBatch('earn', picks.denseBatch));
  kinds.push({
    name: 'collateral history (404)',
    path: `${API}/collateral/${picks.offerIds.collateral}/history`,
    fn: 'history',
    group: 'history',
    expectStatus: 404,
    promisedRoundTrips: 1,
    floor: async () => undefined,
  });
  return kinds;
}
