/**
 * The examples of the document: one per parameter, header and response, so that tools that
 * generate requests and tests from the description have a value to send and an answer to expect.
 * Every example is valid against its schema (Redocly's `no-invalid-*-examples` rules and
 * test/integration/openapi.test.ts check it); the values are those of a small market, made up.
 */

import { VERSIONED_FAMILIES } from '../../shared/data/keys';
import { WAF_RESPONSES } from '../../shared/http/gateway-responses';
import {
  HISTORY_FAMILIES,
  type HistoryFamily,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  type OfferFamily,
} from '../../shared/model/offer-families';
import { DEFAULTS } from '../../shared/platform/config';
import type { ErrorCode } from '../../shared/platform/errors';
import { historySchemaNames, offerSchemaNames, type SchemaName } from './response-schemas';

type Json = Record<string, unknown>;

/** Two data versions as `pagination.snapshot` names them (opaque to clients). */
export const SNAPSHOT_EXAMPLES = { older: 'v20261120T0955Z-7f3a', newer: 'v20261120T1000Z-2c41' } as const;

const UPDATED = '2026-11-20T09:55:00.000Z';

const BITCOIN = { slug: 'bitcoin', symbol: 'BTC', name: 'Bitcoin' };
const TETHER = { slug: 'tether', symbol: 'USDT', name: 'Tether' };
const ARBITRUM = { slug: 'arbitrum', symbol: 'ARB', name: 'Arbitrum' };
const ETHEREUM = { slug: 'ethereum', symbol: 'ETH', name: 'Ethereum' };

const EXCHANGE = {
  type: 'exchange',
  slug: 'binance',
  name: 'Binance',
  url: 'https://www.binance.com',
  logo64: 'https://img.example/binance.png',
  stats: {
    num_coins: 412,
    num_markets: 1630,
    weekly_visits: 51234567,
    daily_spot_volume: 15234567890.5,
    is_centralized: true,
  },
  updated_at: '2026-11-20T06:00:00.000Z',
};

const WALLET = {
  type: 'wallet',
  slug: 'ledger',
  name: 'Ledger',
  url: 'https://www.ledger.com',
  logo64: null,
  stats: {
    wallet_type: 'hardware',
    num_coins: 5500,
    anonymity_rating: 4,
    ease_of_use_rating: 4.5,
    security_rating: 5,
    platforms: ['ios', 'android', 'desktop'],
    additional_services: ['staking', 'swap'],
  },
  updated_at: '2026-11-20T06:00:00.000Z',
};

const PROTOCOL = {
  type: 'protocol',
  slug: 'aave',
  name: 'Aave',
  url: 'https://aave.com',
  logo64: 'https://img.example/aave.png',
  stats: { category: 'lending', tvl: '12345678901.25' },
  updated_at: '2026-11-20T06:00:00.000Z',
};

const CURRENCY = {
  slug: 'bitcoin',
  name: 'Bitcoin',
  symbol: 'BTC',
  category: 'coin',
  sign: '₿',
  logo64: 'https://img.example/bitcoin.png',
  stats: {
    rank_by_market_cap: 1,
    circulating_supply: 19790000,
    total_supply: 19790000,
    max_supply: 21000000,
    usd_price: '67012.45',
    usd_volume_24h: '28123456789.12',
    usd_market_cap: '1326176385500.5',
    usd_percent_change_24h: -1.25,
    usd_market_cap_dominance: 54.2,
  },
  updated_at: '2026-11-20T09:00:00.000Z',
};

const AAVE_REF = { type: 'protocol', slug: 'aave', name: 'Aave' };

const EARN_OFFER = {
  id: 1042,
  compositeKey: 'aave:arbitrum:usdt:supply',
  platform: AAVE_REF,
  chain: ARBITRUM,
  asset: TETHER,
  reward_assets: [ARBITRUM],
  product_type: 'lending',
  product_name: 'USDT supply',
  duration_days: null,
  apy: '5.42',
  estimated_apy: '5.38',
  estimated_apy_updated_at: UPDATED,
  tvl: '1843211.07',
  min_amount: null,
  max_amount: null,
  available: true,
  available_updated_at: UPDATED,
  link: 'https://app.aave.com/reserve-overview/?underlyingAsset=usdt&marketName=proto_arbitrum_v3',
  updated_at: UPDATED,
};

/** The worked example of docs/api.md, "APY figures" (computed by shared/domain/apy-stats.ts). */
const APY_STATS = {
  as_of: '2026-11-20T10:00:00.000Z',
  change_1d: '0.35',
  change_7d: '0.35',
  change_30d: null,
  mean_7d: '4.242857',
  mean_30d: '4.240000',
  stddev_30d: '0.245764',
  points_30d: 30,
};

const BORROW_OFFER = {
  id: 2077,
  compositeKey: 'aave:arbitrum:usdt:borrow',
  platform: AAVE_REF,
  chain: ARBITRUM,
  asset: TETHER,
  platform_type: 'protocol',
  term_days: null,
  borrow_apy: '6.91',
  supply_apy: '5.42',
  net_borrow_apy: '6.12',
  real_net_borrow_apy: '6.12',
  total_supply_usd: '1843211.07',
  total_borrow_usd: '1290247.75',
  available_liquidity_usd: '552963.32',
  is_active: true,
  link: 'https://app.aave.com/reserve-overview/?underlyingAsset=usdt&marketName=proto_arbitrum_v3',
  synced_at: UPDATED,
  updated_at: UPDATED,
};

const COLLATERAL_OFFER = {
  id: 3105,
  compositeKey: 'aave:ethereum:wbtc:collateral',
  platform: AAVE_REF,
  chain: ETHEREUM,
  asset: BITCOIN,
  platform_type: 'protocol',
  term_days: null,
  initial_ltv: '73',
  margin_call_ltv: null,
  liquidation_ltv: '78',
  is_active: true,
  link: 'https://app.aave.com/reserve-overview/?underlyingAsset=wbtc&marketName=proto_mainnet_v3',
  synced_at: UPDATED,
  updated_at: UPDATED,
};

/** Each offer family's example offer and the total of its example list (a family without one does not build). */
const OFFER_EXAMPLES: Record<OfferFamily, { offer: Json; total: number }> = {
  earn: { offer: EARN_OFFER, total: 128 },
  borrow: { offer: BORROW_OFFER, total: 64 },
  collateral: { offer: COLLATERAL_OFFER, total: 31 },
};

/** Each history family's example answers: one offer's window and several offers' (a family without them does not build). */
const HISTORY_EXAMPLES: Record<HistoryFamily, { history: Json; histories: Json }> = {
  earn: {
    history: {
      period: '24h',
      interval: '1h',
      from: '2026-11-19T10:30:00.000Z',
      to: '2026-11-20T10:30:00.000Z',
      point_count: 2,
      data: [
        { timestamp: '2026-11-20T09:00:00.000Z', apy: '5.40', tvl: '1840000' },
        { timestamp: '2026-11-20T10:00:00.000Z', apy: '5.42', tvl: null },
      ],
    },
    histories: {
      data: [
        {
          id: 1042,
          period: 'custom',
          interval: '1d',
          from: '2026-11-18T00:00:00.000Z',
          to: '2026-11-20T10:30:00.000Z',
          point_count: 2,
          data: [
            { timestamp: '2026-11-19T00:00:00.000Z', apy: '5.38', tvl: '1832000' },
            { timestamp: '2026-11-20T00:00:00.000Z', apy: '5.42', tvl: null },
          ],
        },
        {
          id: 2077,
          period: 'custom',
          interval: '1d',
          from: '2026-11-18T00:00:00.000Z',
          to: '2026-11-20T10:30:00.000Z',
          point_count: 0,
          data: [],
        },
      ],
    },
  },
  borrow: {
    history: {
      period: '1w',
      interval: '1h',
      from: '2026-11-13T10:30:00.000Z',
      to: '2026-11-20T10:30:00.000Z',
      point_count: 1,
      data: [{ timestamp: '2026-11-20T10:00:00.000Z', apy: '6.12' }],
    },
    histories: {
      data: [
        {
          id: 3105,
          period: '1w',
          interval: '1d',
          from: '2026-11-13T10:30:00.000Z',
          to: '2026-11-20T10:30:00.000Z',
          point_count: 1,
          data: [{ timestamp: '2026-11-20T00:00:00.000Z', apy: '6.12' }],
        },
        {
          id: 3117,
          period: '1w',
          interval: '1d',
          from: '2026-11-13T10:30:00.000Z',
          to: '2026-11-20T10:30:00.000Z',
          point_count: 2,
          data: [
            { timestamp: '2026-11-19T00:00:00.000Z', apy: '7.05' },
            { timestamp: '2026-11-20T00:00:00.000Z', apy: '7.1' },
          ],
        },
      ],
    },
  },
};

/** A first page of 1 in a list of 3: `has_more`, pinned to the newer version. */
const page = (item: Json, total = 3) => ({
  data: [item],
  pagination: { total, offset: 0, limit: 1, has_more: total > 1, snapshot: SNAPSHOT_EXAMPLES.newer },
});

const changes = (offer: Json) => ({
  since: SNAPSHOT_EXAMPLES.older,
  snapshot: SNAPSHOT_EXAMPLES.newer,
  data: [
    { id: offer.id, change: 'changed', offer },
    { id: (offer.id as number) + 1, change: 'removed', offer: null },
  ],
  pagination: { total: 2, offset: 0, limit: 50, has_more: false, snapshot: SNAPSHOT_EXAMPLES.newer },
});

/** The stage default of `maxDataAgeMinutes` (lib/config.ts), in seconds. */
const DEFAULT_MAX_AGE_SECONDS = 86_400;

const familyStatus = (stale = false) => ({
  snapshot: SNAPSHOT_EXAMPLES.newer,
  published_at: '2026-11-20T10:00:00.000Z',
  refreshed_at: stale ? '2026-11-18T10:00:00.000Z' : '2026-11-20T10:00:00.000Z',
  max_age_seconds: DEFAULT_MAX_AGE_SECONDS,
  stale,
});

const WEBHOOK_EXAMPLE = {
  id: 'wh_3f9c2a7e51b04d6a8e21',
  url: 'https://hooks.example.com/yields',
  family: 'earn',
  filter: 'asset=tether&chain=ethereum',
  events: ['offer.added', 'offer.removed', 'offer.changed'],
  conditions: { apy_change: '0.5', apy_above: '8' },
  status: 'active',
  disabled_reason: null,
  created_at: '2026-11-18T08:00:00.000Z',
  last_success_at: '2026-11-20T10:00:04.000Z',
  last_failure_at: null,
};

const DELIVERY_EXAMPLE = {
  id: 'msg_1795168800000a1b2c3d4e5f6',
  snapshot: SNAPSHOT_EXAMPLES.newer,
  previous_snapshot: SNAPSHOT_EXAMPLES.older,
  part: 1,
  parts: 1,
  events: 3,
  status: 'delivered',
  attempts: 1,
  last_attempt_at: '2026-11-20T10:00:04.000Z',
  last_status: 204,
  last_error: null,
  next_attempt_at: null,
  delivered_at: '2026-11-20T10:00:04.000Z',
};

const budget = (used: number, limit: number, resetAt: string) => ({ used, remaining: limit - used, reset_at: resetAt });

const envelope = (code: ErrorCode, message: string, details: Json | null = null) => ({
  error: { code, message, details },
});

/** The offers of the currency detail's example, by family (none for the others). */
const CURRENCY_OFFERS: Partial<Record<OfferFamily, Json[]>> = {
  earn: [{ ...EARN_OFFER, asset: BITCOIN, chain: ETHEREUM }],
  collateral: [COLLATERAL_OFFER],
};

/** Each family's entries, merged in the order of the families. */
const perFamily = <F extends OfferFamily>(families: readonly F[], entries: (family: F) => Record<string, unknown>) =>
  Object.assign({}, ...families.map(entries)) as Partial<Record<SchemaName, unknown>>;

/** The example body of each response schema the operations answer with. */
export const BODY_EXAMPLES: Partial<Record<SchemaName, unknown>> = {
  Exchange: EXCHANGE,
  Wallet: WALLET,
  Protocol: PROTOCOL,
  CurrencyDetail: {
    ...CURRENCY,
    ...Object.fromEntries(
      OFFER_FAMILIES.map((family) => [OFFER_FAMILY[family].dataset, CURRENCY_OFFERS[family] ?? []]),
    ),
  },
  ...perFamily(OFFER_FAMILIES, (family) => ({
    [offerSchemaNames(family).offer]: OFFER_EXAMPLES[family].offer,
    [offerSchemaNames(family).list]: page(OFFER_EXAMPLES[family].offer, OFFER_EXAMPLES[family].total),
    [offerSchemaNames(family).changes]: changes(OFFER_EXAMPLES[family].offer),
  })),
  ...perFamily(HISTORY_FAMILIES, (family) => ({
    [historySchemaNames(family).history]: HISTORY_EXAMPLES[family].history,
    [historySchemaNames(family).histories]: HISTORY_EXAMPLES[family].histories,
  })),
  ExchangeList: page(EXCHANGE, 42),
  WalletList: page(WALLET, 17),
  ProtocolList: page(PROTOCOL, 25),
  CurrencyList: page(CURRENCY, 250),
  SearchResults: {
    data: [
      { type: 'currency', slug: 'tether', name: 'Tether', symbol: 'USDT' },
      { type: 'currency', slug: 'tether-gold', name: 'Tether Gold', symbol: 'XAUT' },
      { type: 'exchange', slug: 'tetherex', name: 'TetherEx', symbol: null },
    ],
  },
  McpMessage: {
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'search', arguments: { q: 'tether', limit: 3 } },
  },
  McpAnswer: {
    jsonrpc: '2.0',
    id: 2,
    result: {
      content: [
        {
          type: 'text',
          text: '{"data":[{"type":"currency","slug":"tether","name":"Tether","symbol":"USDT"},{"type":"currency","slug":"tether-gold","name":"Tether Gold","symbol":"XAUT"},{"type":"exchange","slug":"tetherex","name":"TetherEx","symbol":null}]}',
        },
      ],
      structuredContent: {
        data: [
          { type: 'currency', slug: 'tether', name: 'Tether', symbol: 'USDT' },
          { type: 'currency', slug: 'tether-gold', name: 'Tether Gold', symbol: 'XAUT' },
          { type: 'exchange', slug: 'tetherex', name: 'TetherEx', symbol: null },
        ],
      },
    },
  },
  Usage: {
    plan: 'premium',
    premium_until: null,
    limits: { per_minute: DEFAULTS.ratePerMinute, per_month: DEFAULTS.quotaPerMonth },
    minute: budget(3, DEFAULTS.ratePerMinute, '2026-11-20T10:31:00.000Z'),
    month: budget(1234, DEFAULTS.quotaPerMonth, '2026-12-01T00:00:00.000Z'),
  },
  Webhook: WEBHOOK_EXAMPLE,
  WebhookList: { data: [WEBHOOK_EXAMPLE], pagination: { total: 1, offset: 0, limit: 50, has_more: false } },
  WebhookDelivery: DELIVERY_EXAMPLE,
  WebhookDeliveryList: { data: [DELIVERY_EXAMPLE], pagination: { total: 1, offset: 0, limit: 50, has_more: false } },
  Status: {
    // One family stale, to show the flag.
    families: Object.fromEntries(VERSIONED_FAMILIES.map((family) => [family, familyStatus(family === 'collateral')])),
  },
  ValidationError: envelope('validation_error', 'The request parameters are invalid.', {
    message: ['limit must not be greater than 200', 'asset must not contain an empty value'],
  }),
  InvalidApiKeyError: envelope('invalid_api_key', 'The Bearer API key is missing, invalid or revoked.'),
  SubscriptionRequiredError: envelope('subscription_required', 'The API key owner has no active premium subscription.'),
  NotFoundError: envelope('not_found', 'The requested resource does not exist.'),
  SnapshotExpiredError: envelope(
    'snapshot_expired',
    'The data version named by `snapshot` is no longer readable (replaced versions stay readable at least 60 minutes): read the list again without `snapshot`.',
    { parameter: 'snapshot' },
  ),
  QuotaError: envelope(
    'rate_limit_exceeded',
    `The per-minute limit of ${DEFAULTS.ratePerMinute} requests is exhausted.`,
    { reset_at: '2026-11-20T10:31:00.000Z', limit: DEFAULTS.ratePerMinute },
  ),
  FirewallRateLimitError: envelope('rate_limit_exceeded', WAF_RESPONSES.rateLimited.message),
  InternalError: envelope('internal_error', 'An unexpected error occurred.'),
  ServiceUnavailableError: envelope(
    'service_unavailable',
    'A required internal dependency is unavailable. Retry later.',
  ),
};

/** Examples of component schemas no answer is by itself: the figures `include=apy_stats` adds to an offer. */
export const COMPONENT_EXAMPLES: Partial<Record<SchemaName, unknown>> = { ApyStats: APY_STATS };

/** The `If-None-Match` of a conditional request: the `ETag` of an earlier answer. */
export const IF_NONE_MATCH_EXAMPLE = '"Yx0Jr1bKQ3C0lq6F0d9w0g"';

/** A slug of each catalog family, for the `{slug}` of its detail. */
export const SLUG_EXAMPLES = {
  exchanges: 'binance',
  wallets: 'ledger',
  protocols: 'aave',
  currencies: 'bitcoin',
} as const;
