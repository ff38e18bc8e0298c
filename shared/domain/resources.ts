/**
 * The API resources (docs/openapi.json, components.schemas), one zod schema each. They validate the dataset
 * import, drive the OpenAPI document and give the types. zod/mini keeps the Lambda bundles small.
 */
import * as z from 'zod/mini';
import { HISTORY_FAMILIES, type HistoryFamily, OFFER_FAMILY, type OfferFamily } from '../model/offer-families';
import { PLATFORM_TYPES, type PlatformType, SLUG_MAX_LENGTH } from '../platform/constants';
import { DECIMAL_PATTERN } from '../platform/decimal';
import { inYears, isRealInstant, TIMESTAMP_PATTERN, TIMESTAMP_YEARS } from '../platform/timestamps';

/** The longest decimal string a file may hold: it bounds the order-preserving key the family index stores for it (shared/data/family-index.ts). */
const DECIMAL_MAX_LENGTH = 64;

/**
 * A decimal in canonical form: no leading zero but the one before a point (`0.5`, not `00.5` or
 * `01`), no sign but `-` and never on zero (`-0`, `-0.00`); trailing fraction zeros are kept as
 * given (`5.0`). Checked besides DECIMAL_PATTERN, whose `pattern` the API description shows.
 */
const isCanonicalDecimal = (value: string): boolean =>
  /^-?(0|[1-9]\d*)(\.\d+)?$/.test(value) && !/^-0(\.0+)?$/.test(value);

export const decimal = () =>
  z.string().check(
    z.regex(DECIMAL_PATTERN, { error: 'must be a decimal string such as "4.25" (no exponent)' }),
    z.refine((value) => !DECIMAL_PATTERN.test(value) || isCanonicalDecimal(value), {
      error: 'must be a decimal in canonical form (no leading zeros such as "01.5" or "00", no "-0")',
    }),
    z.refine((value) => !DECIMAL_PATTERN.test(value) || value.length <= DECIMAL_MAX_LENGTH, {
      error: `must not be longer than ${DECIMAL_MAX_LENGTH} characters`,
    }),
  );

/** A timestamp of a data file: the pattern, then a real instant, then the years (one error each, the first that fails). */
export const timestamp = () =>
  z.string().check(
    z.regex(TIMESTAMP_PATTERN, { error: 'must be an ISO 8601 UTC timestamp such as "2026-01-31T12:00:00.000Z"' }),
    z.refine((value) => !TIMESTAMP_PATTERN.test(value) || isRealInstant(value), {
      error: 'must be a real instant (a day of its month, hours 00-23, minutes and seconds 00-59)',
    }),
    // Before 1970 the history windows would reach years the API cannot write (README, "Data import").
    z.refine((value) => !TIMESTAMP_PATTERN.test(value) || !isRealInstant(value) || inYears(value), {
      error: `must be within years ${TIMESTAMP_YEARS.min} to ${TIMESTAMP_YEARS.max}`,
    }),
  );

const text = () => z.string().check(z.minLength(1, { error: 'must not be empty' }));

const slug = () =>
  z
    .string()
    .check(
      z.minLength(1, { error: 'must not be empty' }),
      z.maxLength(SLUG_MAX_LENGTH, { error: `must not be longer than ${SLUG_MAX_LENGTH} characters` }),
    );

export { type PlatformType, SLUG_MAX_LENGTH };

export const PlatformRef = z.strictObject({ type: z.enum(PLATFORM_TYPES), slug: slug(), name: text() });
export const AssetRef = z.strictObject({ slug: slug(), symbol: z.string(), name: z.string() });

export const CurrencyStats = z.strictObject({
  rank_by_market_cap: z.nullable(z.int()),
  circulating_supply: z.nullable(z.number()),
  total_supply: z.nullable(z.number()),
  max_supply: z.nullable(z.number()),
  usd_price: z.nullable(decimal()),
  usd_volume_24h: z.nullable(decimal()),
  usd_market_cap: z.nullable(decimal()),
  usd_percent_change_24h: z.nullable(z.number()),
  usd_market_cap_dominance: z.nullable(z.number()),
});

export const currencyFields = {
  slug: slug(),
  name: text(),
  symbol: z.string(),
  category: z.string(),
  sign: z.nullable(z.string()),
  logo64: z.nullable(z.string()),
  stats: CurrencyStats,
  updated_at: timestamp(),
};
export const Currency = z.strictObject(currencyFields);

/**
 * The specification defines platforms only by sample payloads and states no nullability; the
 * schemas require every field and accept `null` for `url`, `logo64` and each `stats` value
 * (docs/adr/0002).
 */
export const ExchangeStats = z.strictObject({
  num_coins: z.nullable(z.int()),
  num_markets: z.nullable(z.int()),
  weekly_visits: z.nullable(z.int()),
  daily_spot_volume: z.nullable(z.number()),
  is_centralized: z.nullable(z.boolean()),
});

export const WalletStats = z.strictObject({
  wallet_type: z.nullable(z.string()),
  num_coins: z.nullable(z.int()),
  anonymity_rating: z.nullable(z.number()),
  ease_of_use_rating: z.nullable(z.number()),
  security_rating: z.nullable(z.number()),
  platforms: z.nullable(z.array(z.string())),
  additional_services: z.nullable(z.array(z.string())),
});

export const ProtocolStats = z.strictObject({
  category: z.nullable(z.string()),
  tvl: z.nullable(decimal()),
});

const platformFields = <T extends PlatformType, S extends z.ZodMiniType>(type: T, stats: S) => ({
  type: z.literal(type),
  slug: slug(),
  name: text(),
  url: z.nullable(z.string()),
  logo64: z.nullable(z.string()),
  stats,
  updated_at: timestamp(),
});

export const exchangeFields = platformFields('exchange', ExchangeStats);
export const walletFields = platformFields('wallet', WalletStats);
export const protocolFields = platformFields('protocol', ProtocolStats);
export const Exchange = z.strictObject(exchangeFields);
export const Wallet = z.strictObject(walletFields);
export const Protocol = z.strictObject(protocolFields);

/** An offer id: a non-negative integer, at most 2^53-1 (`z.int()` is a safe integer). */
export const offerId = () => z.int().check(z.minimum(0, { error: 'must not be negative' }));

const earnOfferFields = {
  id: offerId(),
  compositeKey: z.string(),
  platform: z.nullable(PlatformRef),
  chain: z.nullable(AssetRef),
  asset: z.nullable(AssetRef),
  reward_assets: z.array(AssetRef),
  product_type: z.string(),
  product_name: z.string(),
  duration_days: z.nullable(z.int()),
  apy: decimal(),
  estimated_apy: decimal(),
  estimated_apy_updated_at: timestamp(),
  tvl: z.nullable(decimal()),
  min_amount: z.nullable(decimal()),
  max_amount: z.nullable(decimal()),
  available: z.boolean(),
  available_updated_at: timestamp(),
  link: z.string(),
  updated_at: timestamp(),
};

const borrowOfferFields = {
  id: offerId(),
  compositeKey: z.string(),
  platform: z.nullable(PlatformRef),
  chain: z.nullable(AssetRef),
  asset: AssetRef,
  platform_type: z.string(),
  term_days: z.nullable(z.int()),
  borrow_apy: z.nullable(decimal()),
  supply_apy: z.nullable(decimal()),
  net_borrow_apy: decimal(),
  real_net_borrow_apy: decimal(),
  total_supply_usd: z.nullable(decimal()),
  total_borrow_usd: z.nullable(decimal()),
  available_liquidity_usd: z.nullable(decimal()),
  is_active: z.boolean(),
  link: z.string(),
  synced_at: timestamp(),
  updated_at: timestamp(),
};

const collateralOfferFields = {
  id: offerId(),
  compositeKey: z.string(),
  platform: z.nullable(PlatformRef),
  chain: z.nullable(AssetRef),
  asset: AssetRef,
  platform_type: z.string(),
  term_days: z.nullable(z.int()),
  initial_ltv: decimal(),
  margin_call_ltv: z.nullable(decimal()),
  liquidation_ltv: z.nullable(decimal()),
  is_active: z.boolean(),
  link: z.string(),
  synced_at: timestamp(),
  updated_at: timestamp(),
};

/**
 * The trend and stability figures of an earn or borrow offer (CONTRACT §13, docs/api.md "APY
 * figures"), which `include=apy_stats` adds last to each offer: its own schema, never a field of
 * the offers' (their documents do not hold it).
 */
const apyStatsFields = {
  as_of: timestamp(),
  change_1d: z.nullable(decimal()),
  change_7d: z.nullable(decimal()),
  change_30d: z.nullable(decimal()),
  mean_7d: z.nullable(decimal()),
  mean_30d: z.nullable(decimal()),
  stddev_30d: z.nullable(decimal()),
  points_30d: z.int().check(z.minimum(0)),
};
export const ApyStats = z.strictObject(apyStatsFields);

/**
 * One point of an offer's APY history (docs/api.md, "History"), by family: earn points carry the
 * offer's `tvl` beside `apy`; a borrow point's `apy` is its `net_borrow_apy`.
 */
const POINT_ROLE_FIELDS = { apy: () => decimal(), tvl: () => z.nullable(decimal()) };
type PointRole = keyof typeof POINT_ROLE_FIELDS;
type PointFields<F extends HistoryFamily> = { timestamp: ReturnType<typeof timestamp> } & {
  [R in (typeof OFFER_FAMILY)[F]['history'][number]]: ReturnType<(typeof POINT_ROLE_FIELDS)[R]>;
};
/** Derived from the roles each family's history holds (shared/model/offer-families.ts `history`), in their order. */
export const HISTORY_POINT_FIELDS = Object.fromEntries(
  HISTORY_FAMILIES.map((family) => [
    family,
    {
      timestamp: timestamp(),
      ...Object.fromEntries(
        (OFFER_FAMILY[family].history as readonly PointRole[]).map((role) => [role, POINT_ROLE_FIELDS[role]()]),
      ),
    },
  ]),
) as { [F in HistoryFamily]: PointFields<F> };
/** The fields an offer family's declaration names (shared/model/offer-families.ts): its identifier and the field of each role. */
type Declared<F extends OfferFamily> = (typeof OFFER_FAMILY)[F];
type DeclaredFields<F extends OfferFamily> = Extract<
  Declared<F>['identifier'] | Declared<F>['fields'][keyof Declared<F>['fields']],
  string
>;

/** Each offer family's fields, which hold every field its declaration names (or this does not compile). */
export const OFFER_FIELDS = {
  earn: earnOfferFields,
  borrow: borrowOfferFields,
  collateral: collateralOfferFields,
} satisfies { [F in OfferFamily]: Record<DeclaredFields<F>, unknown> };

export type PlatformRef = z.infer<typeof PlatformRef>;
export type AssetRef = z.infer<typeof AssetRef>;
export type Currency = z.infer<typeof Currency>;
export type Exchange = z.infer<typeof Exchange>;
export type Wallet = z.infer<typeof Wallet>;
export type Protocol = z.infer<typeof Protocol>;

/** Every timestamp field of each resource, rendered as `toISOString()` on output. */
export const TIMESTAMP_FIELDS = {
  platform: ['updated_at'],
  currency: ['updated_at'],
  earn: ['estimated_apy_updated_at', 'available_updated_at', 'updated_at'],
  borrow: ['synced_at', 'updated_at'],
  collateral: ['synced_at', 'updated_at'],
} as const;
