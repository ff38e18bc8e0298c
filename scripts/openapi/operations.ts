/**
 * What the document says about each route of shared/routes.ts: its parameters (the zod schemas the
 * handlers validate with), its success body and the answers it can give. Keyed by operationId so
 * that a route added without a description fails the generator instead of going undocumented.
 */
import type { CatalogFamily, OfferFamily } from '../../shared/keys';
import { DEFAULT_SORT } from '../../shared/domain/orderings';
import { HISTORY_QUERY, LIST_QUERY, NO_QUERY, NUMBER_MAX_LENGTH, OFFER_ID_PATH, OFFER_LIST_QUERY, SLUG_PATH, type ParamSchema } from '../../shared/schemas/query';
import { catalogOrdering, historyRules, offerOrdering } from './descriptions';
import type { SchemaName } from './response-schemas';

export type Tag = 'Platforms' | 'Currencies' | 'Offers' | 'History' | 'Usage';

export interface OperationSpec {
  summary: string;
  description: string;
  tag: Tag;
  path?: ParamSchema;
  query: ParamSchema;
  /** Per-parameter default and description the family gives a shared parameter schema. */
  queryOverrides?: Record<string, { default?: string; description?: string }>;
  /** The 200 body; absent for collateral history, which always answers 404. */
  ok?: SchemaName;
  /** Former slugs answer 301. */
  redirects?: boolean;
}

/** What each parameter means; its type, bounds, enumeration and default come from its schema. */
export const PARAMETER_DESCRIPTIONS: Readonly<Record<string, string>> = {
  limit: 'Page size. Plain decimal digits.',
  offset: 'Zero-based offset into the result set. Plain decimal digits.',
  platform_type: 'Only offers of platforms of this family.',
  platform: 'Only offers of the platform with this (current) slug. Must not be empty.',
  asset: 'Only offers of the asset (or collateral asset) with this slug. Must not be empty.',
  sort: 'Sort mode.',
  min_apy:
    'Only offers whose APY (percent) is at least this value, compared as an exact decimal. A number as JSON writes it, without sign: ' +
    `digits, an optional fraction, an optional exponent (\`4.75\`, \`1e-7\`, \`2.5E1\`; not \`.5\`, \`+1\` or \`5.\`), at most ${NUMBER_MAX_LENGTH} characters.`,
  period: 'History window.',
  id: 'Numeric offer identifier. Plain decimal digits.',
  slug: 'Canonical slug. A former slug of a renamed record answers 301 with the current one in `Location`. Must not be empty.',
};

const TAKES_NO_QUERY = 'Takes no query parameters: any is a `validation_error`.';

/** Collateral history answers 404 whatever the id: the handler reads no parameter. */

const CATALOG_NAMES: Record<CatalogFamily, { one: string; many: string; schema: SchemaName; list: SchemaName; tag: Tag }> = {
  exchanges: { one: 'exchange', many: 'exchanges', schema: 'Exchange', list: 'ExchangeList', tag: 'Platforms' },
  wallets: { one: 'wallet', many: 'wallets', schema: 'Wallet', list: 'WalletList', tag: 'Platforms' },
  protocols: { one: 'protocol', many: 'protocols', schema: 'Protocol', list: 'ProtocolList', tag: 'Platforms' },
  currencies: { one: 'currency', many: 'currencies', schema: 'CurrencyDetail', list: 'CurrencyList', tag: 'Currencies' },
};

const OFFER_NAMES: Record<OfferFamily, { schema: SchemaName; list: SchemaName }> = {
  earn: { schema: 'EarnOffer', list: 'EarnOfferList' },
  borrow: { schema: 'BorrowOffer', list: 'BorrowOfferList' },
  collateral: { schema: 'CollateralOffer', list: 'CollateralOfferList' },
};

function catalogList(family: CatalogFamily): OperationSpec {
  const n = CATALOG_NAMES[family];
  return {
    summary: `List ${n.many}`,
    description: `Published, non-delisted ${n.many}. ${catalogOrdering(family)} Only \`limit\` and \`offset\` are accepted.`,
    tag: n.tag,
    query: LIST_QUERY(),
    ok: n.list,
  };
}

function catalogDetail(family: CatalogFamily): OperationSpec {
  const n = CATALOG_NAMES[family];
  const embeds =
    family === 'currencies'
      ? ' The currency comes with `earn_offers`, `borrow_offers` and `collateral_offers`: every published offer whose `asset.slug` is this slug, each array in its family default order.'
      : '';
  return {
    summary: `Get one ${n.one}`,
    description:
      `One published, non-delisted ${n.one} by slug.${embeds} A former slug answers \`301\` to the current one (query string kept); ` +
      `an unknown, unpublished or delisted slug answers \`404 not_found\`. ${TAKES_NO_QUERY}`,
    tag: n.tag,
    path: SLUG_PATH(),
    query: NO_QUERY(),
    ok: n.schema,
    redirects: true,
  };
}

function offerList(family: OfferFamily): OperationSpec {
  const minApy = family === 'collateral' ? ' `min_apy` is not supported here (a `validation_error`).' : ' `min_apy` keeps offers whose APY (the field `apy_*` sorts by) is at least the value.';
  return {
    summary: `List ${family} offers`,
    description:
      `Published ${family} offers, whatever their ${family === 'earn' ? '`available`' : '`is_active`'} flag, filtered and sorted. ` +
      `${offerOrdering(family)}${minApy} An offer whose platform is unknown or not public has \`platform: null\` and matches no \`platform\` or \`platform_type\` filter.`,
    tag: 'Offers',
    query: OFFER_LIST_QUERY[family](),
    queryOverrides: { sort: { default: DEFAULT_SORT[family], description: `Sort mode. ${offerOrdering(family)}` } },
    ok: OFFER_NAMES[family].list,
  };
}

function offerDetail(family: OfferFamily): OperationSpec {
  return {
    summary: `Get one ${family} offer`,
    description: `One published ${family} offer by id. An unknown or unpublished id answers \`404 not_found\`; a malformed id \`400 validation_error\`. ${TAKES_NO_QUERY}`,
    tag: 'Offers',
    path: OFFER_ID_PATH(),
    query: NO_QUERY(),
    ok: OFFER_NAMES[family].schema,
  };
}

function history(family: 'earn' | 'borrow'): OperationSpec {
  const points = family === 'earn' ? 'Points are `{timestamp, apy, tvl}` (`tvl` nullable).' : 'Points are `{timestamp, apy}` with `apy` the offer `net_borrow_apy`.';
  return {
    summary: `Get ${family} offer history`,
    description: `APY history of one published ${family} offer. ${points}\n\n${historyRules()}`,
    tag: 'History',
    path: OFFER_ID_PATH(),
    query: HISTORY_QUERY(),
    ok: family === 'earn' ? 'EarnHistory' : 'BorrowHistory',
  };
}

export const OPERATIONS: Record<string, OperationSpec> = {
  listExchanges: catalogList('exchanges'),
  getExchange: catalogDetail('exchanges'),
  listWallets: catalogList('wallets'),
  getWallet: catalogDetail('wallets'),
  listProtocols: catalogList('protocols'),
  getProtocol: catalogDetail('protocols'),
  listCurrencies: catalogList('currencies'),
  getCurrency: catalogDetail('currencies'),
  listEarnOffers: offerList('earn'),
  getEarnOffer: offerDetail('earn'),
  listBorrowOffers: offerList('borrow'),
  getBorrowOffer: offerDetail('borrow'),
  listCollateralOffers: offerList('collateral'),
  getCollateralOffer: offerDetail('collateral'),
  getEarnHistory: history('earn'),
  getBorrowHistory: history('borrow'),
  getUsage: {
    summary: "The calling key's plan and budgets",
    description:
      'The plan, the end of the subscription (`null`: none), the limits and, for the minute and the month, the units used, the units remaining and the next reset. ' +
      'Charged like any other request: its numbers include this request, and they are those of its usage headers. ' +
      `Carries no \`ETag\` (it changes with every request). ${TAKES_NO_QUERY}`,
    tag: 'Usage',
    query: NO_QUERY(),
    ok: 'Usage',
  },
  getCollateralHistory: {
    summary: 'Collateral offer history (never stored)',
    description:
      'Collateral history is not stored: after authentication and quotas this always answers `404 not_found`, whatever the id and the query string.',
    tag: 'History',
    // An integer like every offer id (the answer is 404 whatever the value).
    path: OFFER_ID_PATH(),
    query: NO_QUERY(),
  },
};
