/**
 * The notes on fields (units, meanings; docs/api.md, "Values") as descriptions of the document's schemas
 * and fields. Types, nullability and required fields come from the zod schemas, never from here.
 */
import type { SchemaName } from './response-schemas';

const PERCENT = 'decimal string, percent (`4.25` means 4.25%)';
const USD = 'decimal string, USD';
/** What the platform schemas say about `null` (shared/domain/resources.ts, docs/adr/0002). */
const PLATFORM_NULLS =
  'Every field is present. `type`, `slug`, `name`, `stats` and `updated_at` are never `null`; `url`, `logo64` and each `stats` value may be (the specification defines platforms by sample payloads only).';

/** The fields of a history window, one offer's or an entry of several. */
const WINDOW_NOTES = {
  period: 'The window used: a period, or `custom` for `from`/`to`.',
  interval: 'Bucket size of the points.',
  from: 'Start of the window (`all`: start of the first bucket, or `to` when there are no points; `custom`: `from` as given).',
  to: 'End of the window: the request time, or `to` as given.',
  point_count: 'Number of points in `data`.',
};

export const SCHEMA_NOTES: Partial<Record<SchemaName, string>> = {
  PlatformRef: 'The platform an offer belongs to; `null` on an offer when the platform is unknown or not public.',
  AssetRef: 'A chain, asset or reward asset.',
  Pagination: 'Where a page sits in the whole list, and the data version it was read from.',
  Snapshot:
    'A data version of a family, opaque: send it back as `snapshot` (the same version) or `since` (changes from it).',
  Currency: 'A published, non-delisted currency.',
  CurrencyDetail:
    'A currency plus every published offer whose `asset.slug` is the currency slug, each array in its family default order (possibly empty).',
  Exchange: `A published, non-delisted exchange. ${PLATFORM_NULLS}`,
  Wallet: `A published, non-delisted wallet. ${PLATFORM_NULLS}`,
  Protocol: `A published, non-delisted protocol. ${PLATFORM_NULLS}`,
  EarnOffer: 'A published earn offer; `available: false` offers are returned too.',
  BorrowOffer: 'A published borrow offer; `is_active: false` offers are returned too.',
  CollateralOffer: 'A published collateral offer; `is_active: false` offers are returned too.',
  EarnChanges: 'The earn offers that differ between the versions `since` and `snapshot`, by ascending `id`.',
  BorrowChanges: 'The borrow offers that differ between the versions `since` and `snapshot`, by ascending `id`.',
  CollateralChanges:
    'The collateral offers that differ between the versions `since` and `snapshot`, by ascending `id`.',
  FamilyStatus: 'How fresh one family is.',
  Status: 'How fresh each family is, by its name in the paths.',
  SnapshotExpiredDetails: 'The parameter that named the version that is gone.',
  SnapshotExpiredError: '`snapshot_expired`: the data version named by `snapshot` or `since` is no longer readable.',
  EarnHistory: 'Earn offer history: one point per non-empty bucket, ascending in time.',
  BorrowHistory:
    'Borrow offer APY history (`apy` is `net_borrow_apy`): one point per non-empty bucket, ascending in time.',
  EarnHistories:
    "Several earn offers' history: one entry per published id, in the order of `ids` (unknown or unpublished ids are absent).",
  BorrowHistories:
    "Several borrow offers' APY history: one entry per published id, in the order of `ids` (unknown or unpublished ids are absent).",
  EarnHistoryEntry: "One earn offer's window, as its own history answers it, with its `id`.",
  BorrowHistoryEntry: "One borrow offer's window, as its own history answers it, with its `id`.",
  QuotaErrorDetails: 'When to try again and the limit that refused the request.',
  ValidationErrorDetails: 'The violated rules.',
  ValidationError: '`validation_error`: a query or path parameter failed validation.',
  InvalidApiKeyError: '`invalid_api_key`: the Bearer token is missing, invalid or revoked.',
  SubscriptionRequiredError: '`subscription_required`: the key owner has no active premium subscription.',
  NotFoundError: '`not_found`: no such resource (or not public), or no such route.',
  QuotaError: '`rate_limit_exceeded` (per-minute budget spent) or `monthly_quota_exceeded` (monthly budget spent).',
  InternalError: '`internal_error`: an unexpected server failure.',
  ServiceUnavailableError:
    '`service_unavailable`: a required internal dependency failed closed; retry after `Retry-After` seconds.',
};

export const FIELD_NOTES: Partial<Record<SchemaName, Record<string, string>>> = {
  Pagination: {
    total: 'Total records matching the request.',
    offset: 'Offset applied.',
    limit: 'Limit applied.',
    has_more: 'Whether more records exist beyond this page.',
    snapshot:
      'The data version this page was read from: `snapshot=` reads the same version again (same records, order and `total`), for at least 60 minutes after it is replaced.',
  },
  FamilyStatus: {
    snapshot: 'The data version served now.',
    published_at: 'When the served content last changed: the `Last-Modified` of its lists and details.',
    refreshed_at: 'When an import last carried the family, changed or not.',
    max_age_seconds: 'How old `refreshed_at` may be before the family is stale (per stage).',
    stale: '`true` when now minus `refreshed_at` is more than `max_age_seconds`.',
  },
  EarnChanges: {
    since: 'The older version.',
    snapshot: 'The newer version: pass it as `since` next time.',
    data: '`{ id, change, offer }`: `added` and `changed` carry the newer offer, `removed` carries `null`.',
  },
  BorrowChanges: {
    since: 'The older version.',
    snapshot: 'The newer version: pass it as `since` next time.',
    data: '`{ id, change, offer }`: `added` and `changed` carry the newer offer, `removed` carries `null`.',
  },
  CollateralChanges: {
    since: 'The older version.',
    snapshot: 'The newer version: pass it as `since` next time.',
    data: '`{ id, change, offer }`: `added` and `changed` carry the newer offer, `removed` carries `null`.',
  },
  Currency: { logo64: 'Image URL.', updated_at: 'Last update.' },
  CurrencyStats: {
    usd_price: USD,
    usd_volume_24h: USD,
    usd_market_cap: USD,
    usd_percent_change_24h: 'Percent (a JSON number).',
    usd_market_cap_dominance: 'Percent (a JSON number).',
  },
  Exchange: { url: 'Platform website.', logo64: 'Image URL.' },
  Wallet: { url: 'Platform website.', logo64: 'Image URL.' },
  Protocol: { url: 'Platform website.', logo64: 'Image URL.' },
  WalletStats: { platforms: 'Operating-system or device kinds.' },
  ProtocolStats: { tvl: `Total value locked, ${USD}.` },
  EarnOffer: {
    id: 'Numeric offer identifier.',
    apy: `APY, ${PERCENT}.`,
    estimated_apy: `Provider-estimated APY, ${PERCENT}.`,
    tvl: `Total value locked, ${USD}.`,
    min_amount: 'Decimal string.',
    max_amount: 'Decimal string.',
    available: 'Runtime availability; may be `false` on returned offers.',
    available_updated_at: 'Last refresh of `available`.',
  },
  BorrowOffer: {
    id: 'Numeric offer identifier.',
    borrow_apy: `Borrow APY, ${PERCENT}.`,
    supply_apy: `Supply APY, ${PERCENT}.`,
    net_borrow_apy: `Net borrow APY, ${PERCENT}.`,
    real_net_borrow_apy: `Service-normalized net borrow APY, ${PERCENT}.`,
    total_supply_usd: `${USD}.`,
    total_borrow_usd: `${USD}.`,
    available_liquidity_usd: `${USD}.`,
    is_active: 'Runtime activity; may be `false` on returned offers.',
  },
  CollateralOffer: {
    id: 'Numeric offer identifier.',
    initial_ltv: `Initial loan-to-value, ${PERCENT}.`,
    margin_call_ltv: `Margin-call loan-to-value, ${PERCENT}.`,
    liquidation_ltv: `Liquidation loan-to-value, ${PERCENT}.`,
    is_active: 'Runtime activity; may be `false` on returned offers.',
  },
  EarnHistory: WINDOW_NOTES,
  BorrowHistory: WINDOW_NOTES,
  EarnHistoryEntry: { id: 'Numeric offer identifier.', ...WINDOW_NOTES },
  BorrowHistoryEntry: { id: 'Numeric offer identifier.', ...WINDOW_NOTES },
  EarnHistoryPoint: {
    timestamp: 'Start of the bucket.',
    apy: `Last APY observed in the bucket, ${PERCENT}.`,
    tvl: `Last TVL observed in the bucket, ${USD}.`,
  },
  BorrowHistoryPoint: {
    timestamp: 'Start of the bucket.',
    apy: `Last net borrow APY observed in the bucket, ${PERCENT}.`,
  },
  QuotaErrorDetails: {
    reset_at: 'Start of the next window (next UTC minute, or next 1st of the month 00:00 UTC).',
    limit: 'The limit that refused the request (per minute, or per month).',
  },
  ValidationErrorDetails: { message: 'One string per violated rule, each naming its parameter.' },
};
