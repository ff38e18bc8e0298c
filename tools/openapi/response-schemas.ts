/**
 * The response bodies around the resources of shared/domain/resources.ts: list envelopes, the
 * currency detail, history series and the error envelopes (docs/api.md, "Errors" and
 * "History buckets"). They exist to describe the API; the handlers assemble the same shapes from
 * pre-rendered JSON, and the contract tests hold the two together.
 */
import * as z from 'zod/mini';
import { VERSIONED_FAMILIES } from '../../shared/data/keys';
import { INTERVALS, PERIODS } from '../../shared/domain/buckets';
import * as r from '../../shared/domain/resources';
import { PAGE_SIZE, SEARCH_LIMIT, SNAPSHOT_MAX_LENGTH } from '../../shared/http/query';
import {
  HISTORY_FAMILIES,
  type HistoryFamily,
  hasFigures,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  type OfferFamily,
} from '../../shared/model/offer-families';
import { type ErrorCode, STATUS_OF } from '../../shared/platform/errors';

const count = () => z.int().check(z.minimum(0));

/** A data version, as `pagination.snapshot` names it and `snapshot=` and `since=` take it back. */
const Snapshot = z.string().check(z.minLength(1), z.maxLength(SNAPSHOT_MAX_LENGTH), z.regex(/^[A-Za-z0-9_-]+$/));

const Pagination = z.strictObject({
  total: count(),
  offset: count(),
  limit: z.int().check(z.minimum(PAGE_SIZE.minimum), z.maximum(PAGE_SIZE.maximum)),
  has_more: z.boolean(),
  snapshot: Snapshot,
});

const list = <T extends z.ZodMiniType>(item: T) => z.strictObject({ data: z.array(item), pagination: Pagination });

/**
 * One offer that differs between two versions (`GET /api/v1/{family}/changes`): the newer
 * representation when it is served now, `null` when it was removed. `id` is an offer id, bounded
 * like every offer id of the description.
 */
const change = <T extends z.ZodMiniType>(offer: T) =>
  z.union([
    z.strictObject({ id: r.offerId(), change: z.enum(['added', 'changed']), offer }),
    z.strictObject({ id: r.offerId(), change: z.literal('removed'), offer: z.null() }),
  ]);

const changes = <T extends z.ZodMiniType>(offer: T) =>
  z.strictObject({ since: Snapshot, snapshot: Snapshot, data: z.array(change(offer)), pagination: Pagination });

/** One family's freshness (`GET /api/v1/status`). */
const FamilyStatus = z.strictObject({
  snapshot: Snapshot,
  published_at: r.timestamp(),
  refreshed_at: r.timestamp(),
  max_age_seconds: z.int().check(z.minimum(1)),
  stale: z.boolean(),
});

/** Every served family by its name in the paths (exchanges … collateral). */
const Status = z.strictObject({
  families: z.strictObject(
    Object.fromEntries(VERSIONED_FAMILIES.map((family) => [family, FamilyStatus])) as Record<
      (typeof VERSIONED_FAMILIES)[number],
      typeof FamilyStatus
    >,
  ),
});

/** A family's name in a schema name: `earn` → `Earn`. */
type Cap<F extends string> = Capitalize<F>;
const cap = <F extends string>(family: F) => `${family[0].toUpperCase()}${family.slice(1)}` as Cap<F>;

/** The schema names of each offer family's answers (`EarnOffer`, `EarnOfferList`, …), derived from its name. */
export const offerSchemaNames = <F extends OfferFamily>(family: F) => ({
  offer: `${cap(family)}Offer` as const,
  list: `${cap(family)}OfferList` as const,
  changes: `${cap(family)}Changes` as const,
});
export const historySchemaNames = <F extends HistoryFamily>(family: F) => ({
  point: `${cap(family)}HistoryPoint` as const,
  history: `${cap(family)}History` as const,
  entry: `${cap(family)}HistoryEntry` as const,
  histories: `${cap(family)}Histories` as const,
});

/** One value per family, keyed by it. */
const byFamily = <F extends OfferFamily, T>(families: readonly F[], make: (family: F) => T): Record<F, T> =>
  Object.fromEntries(families.map((family) => [family, make(family)])) as Record<F, T>;

/** An offer as answered: with `apy_stats` last when the family has figures and the request includes it (docs/api.md, "APY figures"). */
const OFFER = byFamily(
  OFFER_FAMILIES,
  (family): z.ZodMiniType =>
    hasFigures(family)
      ? z.strictObject({ ...r.OFFER_FIELDS[family], apy_stats: z.optional(r.ApyStats) })
      : z.strictObject(r.OFFER_FIELDS[family]),
);

const CurrencyDetail = z.strictObject({
  ...r.currencyFields,
  ...(Object.fromEntries(OFFER_FAMILIES.map((family) => [OFFER_FAMILY[family].dataset, z.array(OFFER[family])])) as {
    [F in OfferFamily as (typeof OFFER_FAMILY)[F]['dataset']]: z.ZodMiniArray<z.ZodMiniObject>;
  }),
});

const windowFields = <T extends z.ZodMiniType>(point: T) => ({
  period: z.enum([...PERIODS, 'custom']),
  interval: z.enum(INTERVALS),
  from: r.timestamp(),
  to: r.timestamp(),
  point_count: count(),
  data: z.array(point),
});

const history = <T extends z.ZodMiniType>(point: T) => z.strictObject(windowFields(point));

/** Several offers' windows: one entry per published id, in the order of `ids`. */
const histories = <T extends z.ZodMiniType>(entry: T) => z.strictObject({ data: z.array(entry) });
const historyEntry = <T extends z.ZodMiniType>(point: T) => z.strictObject({ id: count(), ...windowFields(point) });

/** Each family's schemas of one kind, by name, in the order of the families. */
function perFamily<F extends OfferFamily, K extends string>(
  families: readonly F[],
  entries: (family: F) => [K, z.ZodMiniType][],
): Record<K, z.ZodMiniType> {
  return Object.fromEntries(families.flatMap(entries)) as Record<K, z.ZodMiniType>;
}
const HISTORY_POINT = byFamily(
  HISTORY_FAMILIES,
  (family): z.ZodMiniType => z.strictObject(r.HISTORY_POINT_FIELDS[family]),
);
const HISTORY_ENTRY = byFamily(HISTORY_FAMILIES, (family): z.ZodMiniType => historyEntry(HISTORY_POINT[family]));

type OfferNames = ReturnType<typeof offerSchemaNames<OfferFamily>>;
type HistoryNames = ReturnType<typeof historySchemaNames<HistoryFamily>>;

/** The error envelope of one set of codes, with the details those codes carry. */
function errorEnvelope(codes: readonly ErrorCode[], details?: z.ZodMiniType) {
  const code = codes.length === 1 ? z.literal(codes[0]) : z.enum(codes as [ErrorCode, ...ErrorCode[]]);
  return z.strictObject({
    error: z.strictObject({
      code,
      message: z.string().check(z.minLength(1)),
      // Optional: an object of free-form keys or null (docs/api.md, "Errors").
      details: details ?? z.optional(z.nullable(z.record(z.string(), z.unknown()))),
    }),
  });
}

const codesWithStatus = (status: number) =>
  (Object.keys(STATUS_OF) as ErrorCode[]).filter((code) => STATUS_OF[code] === status);

const budget = z.strictObject({
  used: count(),
  remaining: count(),
  reset_at: r.timestamp(),
});

/** `GET /api/v1/usage` (functions/usage/usage-handler.ts): the numbers of the usage headers of the same response. */
const Usage = z.strictObject({
  plan: z.literal('premium'),
  premium_until: z.nullable(r.timestamp()),
  limits: z.strictObject({ per_minute: z.int().check(z.minimum(1)), per_month: z.int().check(z.minimum(1)) }),
  minute: budget,
  month: budget,
});

/** `GET /api/v1/search` (shared/domain/search.ts): the matches, best first. */
const SearchResult = z.strictObject({
  type: z.enum(['currency', 'exchange', 'wallet', 'protocol']),
  slug: r.Currency.shape.slug,
  name: z.string(),
  symbol: z.nullable(z.string()),
});
const SearchResults = z.strictObject({ data: z.array(SearchResult).check(z.maxLength(SEARCH_LIMIT.maximum)) });

/**
 * `POST /mcp` (shared/http/mcp-server.ts): a JSON-RPC 2.0 message of the Model Context Protocol
 * (`initialize`, `tools/list`, `tools/call`, notifications), and the answer to a request. The
 * protocol's own schema says what each method's params and result hold.
 */
const JsonRpcId = z.union([z.string(), z.int()]);
const McpMessage = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.optional(JsonRpcId),
  method: z.string().check(z.minLength(1)),
  params: z.optional(z.record(z.string(), z.unknown())),
});
const McpAnswer = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: JsonRpcId, result: z.record(z.string(), z.unknown()) }),
  z.object({
    jsonrpc: z.literal('2.0'),
    id: z.nullable(JsonRpcId),
    error: z.object({ code: z.int(), message: z.string(), data: z.optional(z.unknown()) }),
  }),
]);

/** The pagination of a list of the caller's own (webhooks): no data version. */
const OwnPagination = z.strictObject({
  total: count(),
  offset: count(),
  limit: z.int().check(z.minimum(PAGE_SIZE.minimum), z.maximum(PAGE_SIZE.maximum)),
  has_more: z.boolean(),
});

const decimalText = () => z.string().check(z.regex(/^-?\d+(\.\d+)?$/));

/** One of the caller's webhook subscriptions (shared/webhooks/owner-view.ts): never its secret. */
const Webhook = z.strictObject({
  id: z.string().check(z.regex(/^wh_[0-9a-f]{20}$/)),
  url: z.string(),
  family: z.enum(OFFER_FAMILIES),
  filter: z.string(),
  events: z.array(z.enum(['offer.added', 'offer.removed', 'offer.changed'])),
  conditions: z.strictObject({
    apy_change: z.optional(decimalText()),
    apy_above: z.optional(decimalText()),
    apy_below: z.optional(decimalText()),
    availability: z.optional(z.boolean()),
  }),
  status: z.enum(['active', 'disabled']),
  disabled_reason: z.nullable(z.string()),
  created_at: r.timestamp(),
  last_success_at: z.nullable(r.timestamp()),
  last_failure_at: z.nullable(r.timestamp()),
});

/** One delivery of the last 7 days (one POST and its retries). */
const WebhookDelivery = z.strictObject({
  id: z.string(),
  snapshot: z.string(),
  previous_snapshot: z.string(),
  part: z.int().check(z.minimum(1)),
  parts: z.int().check(z.minimum(1)),
  events: z.int().check(z.minimum(1)),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: count(),
  last_attempt_at: z.nullable(r.timestamp()),
  last_status: z.nullable(z.int()),
  last_error: z.nullable(z.string()),
  next_attempt_at: z.nullable(r.timestamp()),
  delivered_at: z.nullable(r.timestamp()),
});

const ownList = <T extends z.ZodMiniType>(item: T) =>
  z.strictObject({ data: z.array(item), pagination: OwnPagination });

/** The error codes and their statuses (docs/api.md, "Errors"). */
const QuotaErrorDetails = z.object({
  reset_at: r.timestamp(),
  limit: z.int().check(z.minimum(1)),
});

/** Which parameter named the version that is gone. */
const SnapshotExpiredDetails = z.object({ parameter: z.enum(['snapshot', 'since']) });

/** One string per violated rule, each naming its parameter (docs/api.md, "Errors"). */
const ValidationErrorDetails = z.object({
  message: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
});

const ERROR_ENVELOPES = {
  ValidationError: errorEnvelope(codesWithStatus(400), ValidationErrorDetails),
  InvalidApiKeyError: errorEnvelope(codesWithStatus(401)),
  SubscriptionRequiredError: errorEnvelope(codesWithStatus(403)),
  NotFoundError: errorEnvelope(codesWithStatus(404)),
  SnapshotExpiredError: errorEnvelope(codesWithStatus(410), SnapshotExpiredDetails),
  QuotaError: errorEnvelope(codesWithStatus(429), QuotaErrorDetails),
  // The web application firewall's per-address refusal (WAF_RESPONSES.rateLimited): no key, no window.
  FirewallRateLimitError: errorEnvelope(['rate_limit_exceeded'], z.null()),
  InternalError: errorEnvelope(codesWithStatus(500)),
  ServiceUnavailableError: errorEnvelope(codesWithStatus(503)),
} as const;

/** Every schema of the document, by component name, in the order the document lists them. */
export const COMPONENT_SCHEMAS = {
  PlatformRef: r.PlatformRef,
  AssetRef: r.AssetRef,
  Pagination,
  Snapshot,
  CurrencyStats: r.CurrencyStats,
  Currency: r.Currency,
  CurrencyDetail,
  ExchangeStats: r.ExchangeStats,
  Exchange: r.Exchange,
  WalletStats: r.WalletStats,
  Wallet: r.Wallet,
  ProtocolStats: r.ProtocolStats,
  Protocol: r.Protocol,
  ApyStats: r.ApyStats,
  ...perFamily(OFFER_FAMILIES, (f): [OfferNames['offer'], z.ZodMiniType][] => [[offerSchemaNames(f).offer, OFFER[f]]]),
  ExchangeList: list(r.Exchange),
  WalletList: list(r.Wallet),
  ProtocolList: list(r.Protocol),
  CurrencyList: list(r.Currency),
  ...perFamily(OFFER_FAMILIES, (f): [OfferNames['list'], z.ZodMiniType][] => [
    [offerSchemaNames(f).list, list(OFFER[f])],
  ]),
  ...perFamily(OFFER_FAMILIES, (f): [OfferNames['changes'], z.ZodMiniType][] => [
    [offerSchemaNames(f).changes, changes(OFFER[f])],
  ]),
  ...perFamily(HISTORY_FAMILIES, (f): [HistoryNames['point' | 'history'], z.ZodMiniType][] => [
    [historySchemaNames(f).point, HISTORY_POINT[f]],
    [historySchemaNames(f).history, history(HISTORY_POINT[f])],
  ]),
  ...perFamily(HISTORY_FAMILIES, (f): [HistoryNames['entry' | 'histories'], z.ZodMiniType][] => [
    [historySchemaNames(f).entry, HISTORY_ENTRY[f]],
    [historySchemaNames(f).histories, histories(HISTORY_ENTRY[f])],
  ]),
  SearchResult,
  SearchResults,
  McpMessage,
  McpAnswer,
  Usage,
  Webhook,
  WebhookList: ownList(Webhook),
  WebhookDelivery,
  WebhookDeliveryList: ownList(WebhookDelivery),
  FamilyStatus,
  Status,
  QuotaErrorDetails,
  SnapshotExpiredDetails,
  ValidationErrorDetails,
  ...ERROR_ENVELOPES,
} as const;

export type SchemaName = keyof typeof COMPONENT_SCHEMAS;
