/**
 * The dataset file format (README.md, "Data import"), as plain types: a record carries exactly the API fields
 * of its resource (docs/openapi.json) plus the import-only flags. Kept local to the generator so it does
 * not depend on the service's schemas while they change; the import validates what we write.
 */

/** A decimal value written as a JSON string (`"4.25"`, `"-0.5"`; never an exponent). */
type Decimal = string;
/** An ISO 8601 UTC timestamp with milliseconds (`Date#toISOString()`). */
type Timestamp = string;

export type PlatformType = 'exchange' | 'wallet' | 'protocol';

export interface PlatformRef {
  type: PlatformType;
  slug: string;
  name: string;
}

export interface AssetRef {
  slug: string;
  symbol: string;
  name: string;
}

/** Import-only flags of every record (default `true`). */
export interface PublishFlag {
  published?: boolean;
}

/** Import-only flags of platforms and currencies (defaults `false` and `[]`). */
export interface CatalogFlags extends PublishFlag {
  delisted?: boolean;
  previous_slugs?: string[];
}

interface CurrencyStats {
  rank_by_market_cap: number | null;
  circulating_supply: number | null;
  total_supply: number | null;
  max_supply: number | null;
  usd_price: Decimal | null;
  usd_volume_24h: Decimal | null;
  usd_market_cap: Decimal | null;
  usd_percent_change_24h: number | null;
  usd_market_cap_dominance: number | null;
}

export interface CurrencyRecord extends CatalogFlags {
  slug: string;
  name: string;
  symbol: string;
  category: string;
  sign: string | null;
  logo64: string | null;
  stats: CurrencyStats;
  updated_at: Timestamp;
}

interface ExchangeStats {
  num_coins: number;
  num_markets: number;
  weekly_visits: number;
  daily_spot_volume: number;
  is_centralized: boolean;
}

interface WalletStats {
  wallet_type: string;
  num_coins: number;
  anonymity_rating: number;
  ease_of_use_rating: number;
  security_rating: number;
  platforms: string[];
  additional_services: string[];
}

interface ProtocolStats {
  category: string;
  tvl: Decimal;
}

interface PlatformRecordBase<T extends PlatformType, S> extends CatalogFlags {
  type: T;
  slug: string;
  name: string;
  url: string;
  logo64: string;
  stats: S;
  updated_at: Timestamp;
}

export type ExchangeRecord = PlatformRecordBase<'exchange', ExchangeStats>;
export type WalletRecord = PlatformRecordBase<'wallet', WalletStats>;
export type ProtocolRecord = PlatformRecordBase<'protocol', ProtocolStats>;
export type PlatformRecord = ExchangeRecord | WalletRecord | ProtocolRecord;

export interface EarnOfferRecord extends PublishFlag {
  id: number;
  compositeKey: string;
  platform: PlatformRef | null;
  chain: AssetRef | null;
  asset: AssetRef | null;
  reward_assets: AssetRef[];
  product_type: string;
  product_name: string;
  duration_days: number | null;
  apy: Decimal;
  estimated_apy: Decimal;
  estimated_apy_updated_at: Timestamp;
  tvl: Decimal | null;
  min_amount: Decimal | null;
  max_amount: Decimal | null;
  available: boolean;
  available_updated_at: Timestamp;
  link: string;
  updated_at: Timestamp;
}

export interface BorrowOfferRecord extends PublishFlag {
  id: number;
  compositeKey: string;
  platform: PlatformRef | null;
  chain: AssetRef | null;
  asset: AssetRef;
  platform_type: string;
  term_days: number | null;
  borrow_apy: Decimal | null;
  supply_apy: Decimal | null;
  net_borrow_apy: Decimal;
  real_net_borrow_apy: Decimal;
  total_supply_usd: Decimal | null;
  total_borrow_usd: Decimal | null;
  available_liquidity_usd: Decimal | null;
  is_active: boolean;
  link: string;
  synced_at: Timestamp;
  updated_at: Timestamp;
}

export interface CollateralOfferRecord extends PublishFlag {
  id: number;
  compositeKey: string;
  platform: PlatformRef | null;
  chain: AssetRef | null;
  asset: AssetRef;
  platform_type: string;
  term_days: number | null;
  initial_ltv: Decimal;
  margin_call_ltv: Decimal | null;
  liquidation_ltv: Decimal | null;
  is_active: boolean;
  link: string;
  synced_at: Timestamp;
  updated_at: Timestamp;
}

interface EarnHistoryPoint {
  timestamp: Timestamp;
  apy: Decimal;
  tvl: Decimal | null;
}

interface BorrowHistoryPoint {
  timestamp: Timestamp;
  apy: Decimal;
}

export interface EarnHistoryRecord {
  offer_id: number;
  points: EarnHistoryPoint[];
}

export interface BorrowHistoryRecord {
  offer_id: number;
  points: BorrowHistoryPoint[];
}

/** A dataset file: any of the arrays may be absent. */
export interface Dataset {
  exchanges?: ExchangeRecord[];
  wallets?: WalletRecord[];
  protocols?: ProtocolRecord[];
  currencies?: CurrencyRecord[];
  earn_offers?: EarnOfferRecord[];
  borrow_offers?: BorrowOfferRecord[];
  collateral_offers?: CollateralOfferRecord[];
  earn_history?: EarnHistoryRecord[];
  borrow_history?: BorrowHistoryRecord[];
}

/** What the generator produces: every array present, in the file's key order. */
export type GeneratedDataset = Required<Dataset>;
