/**
 * What the document says about each route of shared/http/routes.ts: its parameters (the zod schemas the
 * handlers validate with), its success body and the answers it can give. Keyed by operationId so
 * that a route added without a description fails the generator instead of going undocumented.
 */

import type { CatalogFamily, HistoryFamily, OfferFamily } from '../../shared/data/keys';
import { MAX_HISTORY_IDS } from '../../shared/domain/buckets';
import { DEFAULT_PERIOD, MAX_BATCH_BUCKETS } from '../../shared/domain/history';
import { DEFAULT_SORT } from '../../shared/domain/orderings';
import { historyColumnsOf, historyCsv, offerColumnsOf, offersCsv } from '../../shared/http/csv';
import {
  CHANGES_QUERY,
  CURRENCY_DETAIL_QUERY,
  HISTORIES_QUERY,
  HISTORY_QUERY,
  LIST_QUERY,
  NO_QUERY,
  OFFER_DETAIL_QUERY,
  OFFER_ID_PATH,
  OFFER_LIST_QUERY,
  PAGE_QUERY,
  SEARCH_LIMIT,
  SEARCH_QUERY,
  SLUG_PATH,
  WEBHOOK_ID_PATH,
} from '../../shared/http/query';
import { type OperationId, perOfferFamily } from '../../shared/http/routes';
import {
  FIGURE_FAMILIES,
  filtersOf,
  hasFigures,
  inWords,
  isHistoryFamily,
  OFFER_FAMILIES,
  OFFER_FAMILY,
} from '../../shared/model/offer-families';
import { catalogOrdering, csvNote, historyRules, offerOrdering } from './descriptions';
import { BODY_EXAMPLES, SLUG_EXAMPLES } from './examples';
import { type DocumentedSchema, documented, listOf, type ParameterName } from './parameters';
import { historySchemaNames, offerSchemaNames, type SchemaName } from './response-schemas';

export type Tag = 'Platforms' | 'Currencies' | 'Offers' | 'History' | 'Search' | 'Agents' | 'Usage' | 'Webhooks';

export interface OperationSpec {
  summary: string;
  description: string;
  tag: Tag;
  path?: DocumentedSchema;
  query: DocumentedSchema;
  /** Per-parameter default, description and example the family gives a shared parameter schema. */
  queryOverrides?: Partial<Record<ParameterName, ParameterOverride>>;
  pathOverrides?: Partial<Record<ParameterName, ParameterOverride>>;
  /** The 200 body; absent for collateral history, which always answers 404. */
  ok?: SchemaName;
  /** Former slugs answer 301. */
  redirects?: boolean;
  /** The request's body (a POST), by schema; its example is the schema's. */
  requestBody?: SchemaName;
  /** The 200 has a `text/csv` representation too (shared/http/csv.ts): this is its example, the `ok` example as CSV. */
  csv?: string;
}

export interface ParameterOverride {
  default?: string;
  description?: string;
  example?: unknown;
}

const TAKES_NO_QUERY = 'Takes no query parameters: any is a `validation_error`.';
const TAKES_INCLUDE = `Takes only \`include\` (\`include=apy_stats\` adds each ${inWords(FIGURE_FAMILIES)} offer's figures); any other query parameter is a \`validation_error\`.`;

const CATALOG_NAMES: Record<
  CatalogFamily,
  { one: string; many: string; schema: SchemaName; list: SchemaName; tag: Tag }
> = {
  exchanges: { one: 'exchange', many: 'exchanges', schema: 'Exchange', list: 'ExchangeList', tag: 'Platforms' },
  wallets: { one: 'wallet', many: 'wallets', schema: 'Wallet', list: 'WalletList', tag: 'Platforms' },
  protocols: { one: 'protocol', many: 'protocols', schema: 'Protocol', list: 'ProtocolList', tag: 'Platforms' },
  currencies: {
    one: 'currency',
    many: 'currencies',
    schema: 'CurrencyDetail',
    list: 'CurrencyList',
    tag: 'Currencies',
  },
};

function catalogList(family: CatalogFamily): OperationSpec {
  const n = CATALOG_NAMES[family];
  return {
    summary: `List ${n.many}`,
    description:
      `Published, non-delisted ${n.many}. ${catalogOrdering(family)} Only \`limit\`, \`offset\` and \`snapshot\` are accepted. ` +
      '`Link` names the next and previous pages of the same version.',
    tag: n.tag,
    query: documented(LIST_QUERY()),
    ok: n.list,
  };
}

function catalogDetail(family: CatalogFamily): OperationSpec {
  const n = CATALOG_NAMES[family];
  const embeds =
    family === 'currencies'
      ? ` The currency comes with ${inWords(OFFER_FAMILIES.map((f) => `\`${OFFER_FAMILY[f].dataset}\``))}: every published offer whose \`asset.slug\` is this slug, each array in its family default order.`
      : '';
  return {
    summary: `Get one ${n.one}`,
    description:
      `One published, non-delisted ${n.one} by slug.${embeds} A former slug answers \`301\` to the current one (query string kept); ` +
      `an unknown, unpublished or delisted slug answers \`404 not_found\`. ${family === 'currencies' ? TAKES_INCLUDE : TAKES_NO_QUERY}`,
    tag: n.tag,
    path: documented(SLUG_PATH()),
    pathOverrides: { slug: { example: SLUG_EXAMPLES[family] } },
    query: documented(family === 'currencies' ? CURRENCY_DETAIL_QUERY() : NO_QUERY()),
    ok: n.schema,
    redirects: true,
  };
}

const flagOf = (family: OfferFamily): string => OFFER_FAMILY[family].fields.flag;

/** What a list says of the bounds it takes, and of the flag it does not (another family's). */
function boundsNote(family: OfferFamily): string {
  const filters: readonly string[] = filtersOf(family);
  const otherFlags = [...new Set(OFFER_FAMILIES.map(flagOf))].filter((flag) => flag !== flagOf(family));
  if (!filters.includes('min_apy') && !filters.includes('min_tvl'))
    return ` \`min_apy\` and \`min_tvl\` are not supported here (a \`validation_error\`), nor is ${inWords(otherFlags.map((f) => `\`${f}\``))}.`;
  return (
    ' `min_apy` keeps offers whose APY (the field `apy_*` sorts by) is at least the value, `min_tvl` those whose TVL (the field `tvl_desc` sorts by) is. ' +
    `${inWords(otherFlags.map((f) => `\`${f}\``))} is the other family's flag: a \`validation_error\` here.`
  );
}

function offerList(family: OfferFamily): OperationSpec {
  const bounds = boundsNote(family);
  return {
    summary: `List ${family} offers`,
    description:
      `Published ${family} offers, filtered and sorted; without \`${flagOf(family)}\` whatever their \`${flagOf(family)}\` flag. ` +
      'Filters combine with AND; a list of values in one filter matches any of them. Every combination has an exact `total`. ' +
      `${offerOrdering(family)}${bounds} An offer whose platform is unknown or not public has \`platform: null\` and matches no \`platform\` or \`platform_type\` filter. ` +
      '`pagination.snapshot` names the data version of the page; `snapshot=` reads that version again, and `Link` names the next and previous pages of it.\n\n' +
      csvNote(offerColumnsOf(family), true),
    tag: 'Offers',
    query: documented(OFFER_LIST_QUERY[family]()),
    queryOverrides: { sort: { default: DEFAULT_SORT[family], description: `Sort mode. ${offerOrdering(family)}` } },
    ok: offerSchemaNames(family).list,
    csv: offersCsv(
      family,
      exampleOf<{ data: unknown[] }>(offerSchemaNames(family).list).data.map((offer) => JSON.stringify(offer)),
    ),
  };
}

function exampleOf<T>(schema: SchemaName): T {
  const value = BODY_EXAMPLES[schema];
  if (value === undefined) throw new Error(`response schema ${schema} has no example (tools/openapi/examples.ts)`);
  return value as T;
}

function offerChanges(family: OfferFamily): OperationSpec {
  return {
    summary: `Changes of ${family} offers since a version`,
    description:
      `Every ${family} offer whose served representation differs between the version \`since\` names and the served one (or the one \`snapshot\` names), by ascending \`id\`: ` +
      '`added` (served now, not then), `removed` (served then, not now; `offer` is `null`), `changed` (served in both, any field different; `offer` is the newer one). ' +
      "Keep a copy of a list up to date: read the list once, keep its `pagination.snapshot`, then ask for the changes since it and keep this answer's `snapshot` for the next time. " +
      'Pages of one answer are pinned by `snapshot` (the `Link` header carries it). An expired or unknown `since` or `snapshot` is `410 snapshot_expired`. Charged like any request.',
    tag: 'Offers',
    query: documented(CHANGES_QUERY[family]()),
    ok: offerSchemaNames(family).changes,
  };
}

function offerDetail(family: OfferFamily): OperationSpec {
  return {
    summary: `Get one ${family} offer`,
    description: `One published ${family} offer by id. An unknown or unpublished id answers \`404 not_found\`; a malformed id \`400 validation_error\`. ${hasFigures(family) ? TAKES_INCLUDE : TAKES_NO_QUERY}`,
    tag: 'Offers',
    path: documented(OFFER_ID_PATH()),
    query: documented(OFFER_DETAIL_QUERY[family]()),
    ok: offerSchemaNames(family).offer,
  };
}

/** What a history point holds: the roles its series records, named as in the points (CONTRACT §12). */
function pointsNote(family: HistoryFamily): string {
  const roles = OFFER_FAMILY[family].history as readonly ('apy' | 'tvl')[];
  const fields = OFFER_FAMILY[family].fields as Partial<Record<'apy' | 'tvl', string>>;
  const shape = `\`{${['timestamp', ...roles].join(', ')}}\``;
  const renamed = roles.filter((role) => fields[role] !== role);
  if (renamed.length > 0)
    return `Points are ${shape} with ${inWords(renamed.map((role) => `\`${role}\` the offer \`${fields[role]}\``))}.`;
  return roles.includes('tvl') ? `Points are ${shape} (\`tvl\` nullable).` : `Points are ${shape}.`;
}

function history(family: HistoryFamily): OperationSpec {
  const points = pointsNote(family);
  const names = { ...historySchemaNames(family), offer: offerSchemaNames(family).offer };
  return {
    summary: `Get ${family} offer history`,
    description: `APY history of one published ${family} offer. ${points}\n\n${historyRules()}\n\n${csvNote(historyColumnsOf(family), false)}`,
    tag: 'History',
    path: documented(OFFER_ID_PATH()),
    query: documented(HISTORY_QUERY()),
    queryOverrides: { period: { default: DEFAULT_PERIOD } },
    ok: names.history,
    csv: historyCsv(family, [
      {
        id: exampleOf<{ id: number }>(names.offer).id,
        points: exampleOf<{ data: Record<string, unknown>[] }>(names.history).data,
      },
    ]),
  };
}

function histories(family: HistoryFamily): OperationSpec {
  return {
    summary: `Get the history of several ${family} offers`,
    description:
      `APY history of up to ${MAX_HISTORY_IDS} ${family} offers in one request (one unit of budget): one entry per published id, in the order of \`ids\`; ` +
      "an unknown or unpublished id is absent. Each entry is the answer of that offer's own history with the same window parameters, with its `id`. " +
      `At most ${MAX_BATCH_BUCKETS.toLocaleString('en-US')} buckets in all: the number of \`ids\` times the window's buckets at its interval (\`period=all\` counts from 1970); ` +
      'a larger request is a `validation_error` naming `ids` and `interval`, with the count. Every valid request is answered whole, JSON or CSV, with or without compression. ' +
      `\`history\` is a route here, not an offer id.\n\n${historyRules()}\n\n` +
      `${csvNote(historyColumnsOf(family), false)} The rows of every entry follow each other, in the order of the entries.`,
    tag: 'History',
    query: documented(HISTORIES_QUERY()),
    queryOverrides: {
      period: { default: DEFAULT_PERIOD },
      ids: {
        description: listOf(
          `The offers, by id (plain decimal digits, at most 2^53-1); an unknown or unpublished id is absent from the answer. Required. With the window, at most ${MAX_BATCH_BUCKETS.toLocaleString('en-US')} buckets in all.`,
          MAX_HISTORY_IDS,
        ),
      },
    },
    ok: historySchemaNames(family).histories,
    csv: historyCsv(
      family,
      exampleOf<{ data: { id: number; data: Record<string, unknown>[] }[] }>(
        historySchemaNames(family).histories,
      ).data.map(({ id, data }) => ({ id, points: data })),
    ),
  };
}

/** A family without history: its one-offer route answers 404 whatever the id. */
function noHistory(family: OfferFamily): OperationSpec {
  const Family = `${family[0].toUpperCase()}${family.slice(1)}`;
  return {
    summary: `${Family} offer history (never stored)`,
    description: `${Family} history is not stored: after authentication and quotas this always answers \`404 not_found\`, whatever the id and the query string.`,
    tag: 'History',
    // An offer id like every other (a generated client sends a number); the answer is 404 whatever it is.
    path: documented(OFFER_ID_PATH()),
    pathOverrides: {
      id: {
        description: `A ${family} offer id: the answer is \`404 not_found\` whatever it is (any text too).`,
        example: 2,
      },
    },
    query: documented(NO_QUERY()),
  };
}

/** A family without history: its several-offers route answers 404. */
function noHistories(family: OfferFamily): OperationSpec {
  const Family = `${family[0].toUpperCase()}${family.slice(1)}`;
  return {
    summary: `History of several ${family} offers (never stored)`,
    description: `${Family} history is not stored: after authentication and quotas this always answers \`404 not_found\`, whatever the query string.`,
    tag: 'History',
    query: documented(NO_QUERY()),
  };
}

/** Each operation of the route table: one missing, or one without a route, does not compile. */
export const OPERATIONS: Record<OperationId, OperationSpec> = {
  listExchanges: catalogList('exchanges'),
  getExchange: catalogDetail('exchanges'),
  listWallets: catalogList('wallets'),
  getWallet: catalogDetail('wallets'),
  listProtocols: catalogList('protocols'),
  getProtocol: catalogDetail('protocols'),
  listCurrencies: catalogList('currencies'),
  getCurrency: catalogDetail('currencies'),
  ...perOfferFamily('list', offerList),
  ...perOfferFamily('changes', offerChanges),
  ...perOfferFamily('detail', offerDetail),
  ...perOfferFamily('history', (family) => (isHistoryFamily(family) ? history(family) : noHistory(family))),
  ...perOfferFamily('histories', (family) => (isHistoryFamily(family) ? histories(family) : noHistories(family))),
  searchCatalog: {
    summary: 'Find currencies and platforms by slug, symbol or name',
    description:
      'Published, non-delisted currencies, exchanges, wallets and protocols whose slug, symbol or name matches `q`, case-insensitively, best first: ' +
      'an exact slug or symbol, then a slug, symbol or name that starts with `q`, then a name that contains it; within each rank currencies, then exchanges, wallets and protocols, ' +
      'each in the order of its own list. A former slug matches as a slug and answers the current one. At most `limit` matches; no pagination. ' +
      'Use it to turn "USDC" or "Aave" into the slug the other routes take. Carries no `ETag`. Charged like any other request.',
    tag: 'Search',
    query: documented(SEARCH_QUERY()),
    queryOverrides: {
      limit: {
        description: `How many matches at most, ${SEARCH_LIMIT.minimum} to ${SEARCH_LIMIT.maximum}. Plain decimal digits.`,
        example: 5,
      },
    },
    ok: 'SearchResults',
  },
  postMcp: {
    summary: 'The Model Context Protocol endpoint for assistants and agents',
    description:
      "The Model Context Protocol's Streamable HTTP transport, stateless: no session id, every answer JSON (`Accept` must name `application/json` and `text/event-stream`, as MCP clients send it). " +
      'Behind the same key, budgets and usage headers as every route: each request (an `initialize`, a `tools/list`, a `tools/call`, a notification) is one unit. ' +
      'Its tools are the routes of this description: `search`, `list_offers`, `get_offer`, `offer_history`, `offer_changes`, `list_currencies`, `get_currency`, `list_platforms`, `get_platform`; ' +
      "each takes its routes' parameters by name (plus `family` or `type` where one tool serves several routes) and answers the route's JSON answer as `structuredContent` (a route's error as a result with `isError` and its envelope). " +
      'A result stays under 100 KB of text: `get_currency` gives the counts of its offers (list them with `list_offers` and `asset`), a list page that would be larger comes with a smaller `limit`. ' +
      'A notification answers `202` with no body; a malformed message, an unknown tool or arguments a tool does not take are JSON-RPC errors. ' +
      'Any other method on `/mcp` (`GET`, `DELETE`, …) answers `405 method_not_allowed` with `Allow: POST`, before authentication and uncharged: the endpoint offers no stream and no session to end. ' +
      TAKES_NO_QUERY,
    tag: 'Agents',
    query: documented(NO_QUERY()),
    requestBody: 'McpMessage',
    ok: 'McpAnswer',
  },
  getUsage: {
    summary: "The calling key's plan and budgets",
    description:
      'The plan, the end of the subscription (`null`: none), the limits and, for the minute and the month, the units used, the units remaining and the next reset. ' +
      'Charged like any other request: its numbers include this request, and they are those of its usage headers. ' +
      `Carries no \`ETag\` (it changes with every request). ${TAKES_NO_QUERY}`,
    tag: 'Usage',
    query: documented(NO_QUERY()),
    ok: 'Usage',
  },
  listWebhooks: {
    summary: "The calling key's user's webhook subscriptions",
    description:
      'The subscriptions of the user who owns the key (managed outside this API: `npm run webhooks`, an accounts file), by `created_at` then `id`, ' +
      'with their state: `status` (`disabled` after 24 hours without a successful delivery, with `disabled_reason`) and the times of the last success and failure. ' +
      'A secret is never served. Deliveries are POSTed as Standard Webhooks (docs/api.md, "Webhooks"). One unit of budget; carries no `ETag`.',
    tag: 'Webhooks',
    query: documented(PAGE_QUERY()),
    // The demo user has one subscription: a later page would be empty.
    queryOverrides: { offset: { example: 0 } },
    ok: 'WebhookList',
  },
  listWebhookDeliveries: {
    summary: 'The deliveries of one of your webhook subscriptions',
    description:
      'The last 7 days of deliveries of the subscription, newest first: one per publish and part, with its attempts, the last HTTP status or error and the next attempt. ' +
      "Another user's subscription answers `404 not_found`. One unit of budget; carries no `ETag`.",
    tag: 'Webhooks',
    path: documented(WEBHOOK_ID_PATH()),
    pathOverrides: {
      id: { description: 'The subscription id (`wh_` and 20 hex digits).', example: 'wh_de000000000000000001' },
    },
    query: documented(PAGE_QUERY()),
    queryOverrides: { offset: { example: 0 } },
    ok: 'WebhookDeliveryList',
  },
};
