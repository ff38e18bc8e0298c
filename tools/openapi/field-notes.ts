/**
 * The notes on fields (units, meanings; docs/api.md, "Values") as descriptions of the document's schemas
 * and fields. Types, nullability and required fields come from the zod schemas, never from here.
 */
import {
  HISTORY_FAMILIES,
  type HistoryFamily,
  hasFigures,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  type OfferFamily,
} from '../../shared/model/offer-families';
import { historySchemaNames, offerSchemaNames, type SchemaName } from './response-schemas';

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

/** Each family's entries, merged in the order of the families. */
const perFamily = <F extends OfferFamily, T>(families: readonly F[], entries: (family: F) => Record<string, T>) =>
  Object.assign({}, ...families.map(entries)) as Partial<Record<SchemaName, T>>;

const CHANGES_NOTES = {
  since: 'The older version.',
  snapshot: 'The newer version: pass it as `since` next time.',
  data: '`{ id, change, offer }`: `added` and `changed` carry the newer offer, `removed` carries `null`.',
};

/** A field's name in words: `net_borrow_apy` → `net borrow APY`. */
const inWords = (field: string) =>
  field
    .split('_')
    .map((word) => (word === 'apy' || word === 'tvl' ? word.toUpperCase() : word))
    .join(' ');

/** A history point's fields: the bucket, and the last value of each role its series records. */
function pointNotes(family: HistoryFamily): Record<string, string> {
  const fields = OFFER_FAMILY[family].fields as Partial<Record<'apy' | 'tvl', string>>;
  const unit = { apy: PERCENT, tvl: USD };
  return {
    timestamp: 'Start of the bucket.',
    ...Object.fromEntries(
      OFFER_FAMILY[family].history.map((role) => [
        role,
        `Last ${inWords(fields[role] ?? role)} observed in the bucket, ${unit[role]}.`,
      ]),
    ),
  };
}

/** The notes on each offer family's own fields (its `id` is noted for all): a family without them does not build. */
const OFFER_FIELD_NOTES: Record<OfferFamily, Record<string, string>> = {
  earn: {
    apy: `APY, ${PERCENT}.`,
    estimated_apy: `Provider-estimated APY, ${PERCENT}.`,
    tvl: `Total value locked, ${USD}.`,
    min_amount: 'Decimal string.',
    max_amount: 'Decimal string.',
    available: 'Runtime availability; may be `false` on returned offers.',
    available_updated_at: 'Last refresh of `available`.',
  },
  borrow: {
    borrow_apy: `Borrow APY, ${PERCENT}.`,
    supply_apy: `Supply APY, ${PERCENT}.`,
    net_borrow_apy: `Net borrow APY, ${PERCENT}.`,
    real_net_borrow_apy: `Service-normalized net borrow APY, ${PERCENT}.`,
    total_supply_usd: `${USD}.`,
    total_borrow_usd: `${USD}.`,
    available_liquidity_usd: `${USD}.`,
    is_active: 'Runtime activity; may be `false` on returned offers.',
  },
  collateral: {
    initial_ltv: `Initial loan-to-value, ${PERCENT}.`,
    margin_call_ltv: `Margin-call loan-to-value, ${PERCENT}.`,
    liquidation_ltv: `Liquidation loan-to-value, ${PERCENT}.`,
    is_active: 'Runtime activity; may be `false` on returned offers.',
  },
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
  ApyStats:
    'Trend and stability figures of an offer\'s APY (earn `apy`, borrow `net_borrow_apy`) as of `as_of`, the refresh time of the version, from its stored history, exact (docs/api.md, "APY figures"). ' +
    'Present only with `include=apy_stats`, as the last field of the offer.',
  ...perFamily(OFFER_FAMILIES, (family) => ({
    [offerSchemaNames(family).offer]:
      `A published ${family} offer; \`${OFFER_FAMILY[family].fields.flag}: false\` offers are returned too.` +
      (hasFigures(family) ? ' `apy_stats` only with `include=apy_stats`.' : ''),
    [offerSchemaNames(family).changes]:
      `The ${family} offers that differ between the versions \`since\` and \`snapshot\`, by ascending \`id\`.`,
  })),
  FamilyStatus: 'How fresh one family is.',
  Status: 'How fresh each family is, by its name in the paths.',
  SnapshotExpiredDetails: 'The parameter that named the version that is gone.',
  SnapshotExpiredError: '`snapshot_expired`: the data version named by `snapshot` or `since` is no longer readable.',
  ...perFamily(HISTORY_FAMILIES, (family) => {
    const Family = `${family[0].toUpperCase()}${family.slice(1)}`;
    // A family whose history holds its APY alone says so; one whose APY field has another name says which.
    const what = OFFER_FAMILY[family].history.length === 1 ? 'APY history' : 'history';
    const apyField = (OFFER_FAMILY[family].fields as { apy?: string }).apy;
    const renamed = apyField && apyField !== 'apy' ? ` (\`apy\` is \`${apyField}\`)` : '';
    return {
      [historySchemaNames(family).history]:
        `${Family} offer ${what}${renamed}: one point per non-empty bucket, ascending in time.`,
      [historySchemaNames(family).histories]:
        `Several ${family} offers' ${what}: one entry per published id, in the order of \`ids\` (unknown or unpublished ids are absent).`,
      [historySchemaNames(family).entry]:
        `One ${family} offer's window, as its own history answers it, with its \`id\`.`,
    };
  }),
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
  ...perFamily(OFFER_FAMILIES, (family) => ({ [offerSchemaNames(family).changes]: CHANGES_NOTES })),
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
  ...perFamily(OFFER_FAMILIES, (family) => ({
    [offerSchemaNames(family).offer]: { id: 'Numeric offer identifier.', ...OFFER_FIELD_NOTES[family] },
  })),
  ApyStats: {
    as_of: 'The refresh time the figures are computed at.',
    change_1d:
      'The served APY minus the latest observation at or before `as_of` − 1 day, percentage points, exact; `null` when none lies in the 24 hours before that instant.',
    change_7d: 'As `change_1d`, 7 days back.',
    change_30d: 'As `change_1d`, 30 days back.',
    mean_7d:
      'Mean of the daily points (the last observation of each UTC day) whose day starts in the last 7 days, rounded half-even to 6 places; `null` with fewer than 3.5 such days.',
    mean_30d: 'As `mean_7d` over 30 days (`null` with fewer than 15 days).',
    stddev_30d:
      'Population standard deviation of the same 30-day points, percentage points, rounded half-even to 6 places; `null` as `mean_30d`.',
    points_30d: 'How many daily points `mean_30d` and `stddev_30d` used.',
  },
  ...perFamily(HISTORY_FAMILIES, (family) => ({
    [historySchemaNames(family).history]: WINDOW_NOTES,
    [historySchemaNames(family).entry]: { id: 'Numeric offer identifier.', ...WINDOW_NOTES },
    [historySchemaNames(family).point]: pointNotes(family),
  })),
  QuotaErrorDetails: {
    reset_at: 'Start of the next window (next UTC minute, or next 1st of the month 00:00 UTC).',
    limit: 'The limit that refused the request (per minute, or per month).',
  },
  ValidationErrorDetails: { message: 'One string per violated rule, each naming its parameter.' },
};
