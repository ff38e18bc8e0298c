/**
 * The prose of the document: the overview, and the ordering and history rules, written from the
 * tables the service itself runs on (orderings, buckets, limits, error statuses) so that the
 * words follow the code.
 */

import { CATALOG_FAMILIES, type CatalogFamily, type OfferFamily } from '../../shared/data/keys';
import { INTERVALS, PERIOD_SPEC, PERIODS, RETENTION_MS, SERIES } from '../../shared/domain/buckets';
import { DEFAULT_PERIOD, MAX_BUCKETS } from '../../shared/domain/history';
import { CATALOG_ORDER, DEFAULT_SORT, distinctSortModes } from '../../shared/domain/orderings';
import { historyColumnsOf, offerColumnsOf } from '../../shared/http/csv';
import { DEPRECATION_NOTICE_DAYS } from '../../shared/http/deprecation';
import { PAGE_SIZE } from '../../shared/http/query';
import type { Route } from '../../shared/http/routes';
import {
  filtersOf,
  inWords,
  isHistoryFamily,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  SORTS,
  type SortRole,
  sortModesOf,
} from '../../shared/model/offer-families';

/** Each family's flag: `` `available` on earn, `is_active` on borrow and collateral ``. */
const flagsInWords = () =>
  [...new Set(OFFER_FAMILIES.map((f) => OFFER_FAMILY[f].fields.flag))]
    .map((flag) => `\`${flag}\` on ${inWords(OFFER_FAMILIES.filter((f) => OFFER_FAMILY[f].fields.flag === flag))}`)
    .join(', ');

import { DEFAULTS } from '../../shared/platform/config';
import { type ErrorCode, STATUS_OF } from '../../shared/platform/errors';

const DAY = 86_400_000;
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** The field each catalog list is ordered by (docs/api.md, "Orderings"); the direction comes from CATALOG_ORDER. */
const CATALOG_SORT_FIELD: Record<CatalogFamily, string> = {
  exchanges: '`stats.weekly_visits`',
  wallets: '`name` (lowercased, compared by code unit)',
  protocols: '`stats.tvl` (exact decimal)',
  currencies: '`stats.rank_by_market_cap`',
};

const direction = (d: 'asc' | 'desc') => (d === 'asc' ? 'ascending' : 'descending');

/** The catalog sort fields that may be `null` (shared/domain/resources.ts): `name` never is. */
const NULLABLE_SORT_FIELD: Record<CatalogFamily, boolean> = {
  exchanges: true,
  wallets: false,
  protocols: true,
  currencies: true,
};

export function catalogOrdering(family: CatalogFamily): string {
  const nulls = NULLABLE_SORT_FIELD[family] ? ', `null` last' : '';
  return `Ordered by ${CATALOG_SORT_FIELD[family]} ${direction(CATALOG_ORDER[family].direction)}${nulls}, then \`slug\` ascending.`;
}

/** What each sort mode of a family orders by (its declaration, shared/model/offer-families.ts). */
export function offerOrdering(family: OfferFamily): string {
  const fields: Partial<Record<SortRole, string>> = OFFER_FAMILY[family].fields;
  const distinct = distinctSortModes(family);
  const parts = sortModesOf(family).map((mode) => {
    if (!distinct.includes(mode)) return `\`${mode}\` is accepted and gives the default order`;
    const sort = SORTS[mode];
    const by = 'figure' in sort ? `apy_stats.${sort.figure}` : fields[sort.role];
    return `\`${mode}\` orders by \`${by}\` ${direction(sort.direction)}`;
  });
  return `Default \`${DEFAULT_SORT[family]}\`. ${parts.join('; ')}. \`null\` sorts last in either direction, ties by \`id\` ascending; decimals compare exactly.`;
}

const windowText = (windowMs: number | null) =>
  windowMs === null ? 'from the first point' : `last ${windowMs / DAY === 1 ? '24 hours' : `${windowMs / DAY} days`}`;

/** How long a series is kept: `8 days`, `31 days 4 hours`, `for ever`. */
function keptText(ms: number | null): string {
  if (ms === null) return 'for ever';
  const hours = (ms % DAY) / 3_600_000;
  return `${Math.floor(ms / DAY)} days${hours === 0 ? '' : ` ${hours} hours`}`;
}

export function historyRules(): string {
  const rows = PERIODS.map(
    (p) => `| \`${p}\` | \`${PERIOD_SPEC[p].interval}\` | ${windowText(PERIOD_SPEC[p].windowMs)} |`,
  );
  const defaults = PERIODS.map((p) => {
    const { windowMs, interval } = PERIOD_SPEC[p];
    return windowMs === null ? `longer → \`${interval}\`` : `≤ ${windowText(windowMs).slice(5)} → \`${interval}\``;
  });
  const kept = INTERVALS.map((i) => `\`${i}\` ${keptText(RETENTION_MS[SERIES[i].stored])}`);
  return [
    `The \`period\` parameter (default \`${DEFAULT_PERIOD}\`) selects the window and the bucket size (\`interval\`):`,
    '',
    '| period | interval | window |',
    '|---|---|---|',
    ...rows,
    '',
    'Buckets are aligned to UTC: hours at :00, 4-hour buckets at 00, 04, … 20 h, days at 00:00, weeks on Monday 00:00. ' +
      'An observation counts when its time is within `[from, to]`; its bucket may start before `from`. ' +
      "A point's `timestamp` is its bucket's start and its value the last observation inside the bucket; empty buckets are left out; points ascend in time. " +
      '`to` is the request time and `from` is `to` minus the window (for `all`, the first bucket start, or `to` when there are no points). ' +
      'An offer without history answers 200 with `point_count: 0`.',
    '',
    '**Custom windows.** Instead of `period`, give `from` (a timestamp such as `2026-03-01T00:00:00Z`) and optionally `to` ' +
      '(default: the request time); the answer says `period: "custom"` and carries `from` and `to` as given. ' +
      `Without \`interval\`, a custom window takes that of the shortest period at least as long (${defaults.join(', ')}). ` +
      '`interval` may also come with `period`, replacing its interval. `period` and `from`/`to` exclude each other; `to` needs `from`; ' +
      `\`from\` must be before \`to\`; a window spans at most ${MAX_BUCKETS.toLocaleString('en-US')} buckets of its interval. ` +
      'Each of these is a `validation_error` naming the parameters. ' +
      `Each interval's series is kept for as long as its periods read it, from the point's bucket start (\`1h\`: the observation's time): ${kept.join(', ')}. ` +
      'A window may reach further back: it answers the points still kept (older buckets of a finer interval are absent). ' +
      'The bucket that contains a past `to` has the last observation at or before `to`, exactly while the shorter series still hold that bucket (a `to` within 7 days of the request time); ' +
      'after that, the latest observation at or before `to` that they still record (the last of a whole shorter bucket before it), and the bucket is left out when none does.',
  ].join('\n');
}

const names = (columns: readonly { name: string }[]) => columns.map((c) => `\`${c.name}\``).join(', ');

/** The CSV representation (shared/http/csv.ts), for the overview and each operation that has it. */
function csvRules(): string {
  return (
    'With `Accept: text/csv` (named itself, at a higher quality than JSON: `*/*` or `text/*` alone get JSON), offer lists and history answer RFC 4180 CSV: ' +
    '`Content-Type: text/csv; charset=utf-8`, UTF-8 without BOM, a header row, CRLF line ends, one row per offer or per point. ' +
    'Nested objects are flattened with dots (`platform.slug`), `reward_assets` is the slugs of its references joined by `|`, `null` is an empty field, ' +
    'decimals are the JSON strings byte for byte. Text that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return and is not a decimal) ' +
    "is written with a leading `'`, so that it stays text; decimals, ids and timestamps are never altered. " +
    'A CSV list carries its pagination in headers: `X-Total-Count` (`pagination.total`), `X-Snapshot` (`pagination.snapshot`) and `Link` (send `Accept: text/csv` again when following it). ' +
    'These answers say `Vary: Accept` in both representations; each representation has its own `ETag`, and `If-None-Match` matches only the one it came from. ' +
    'Errors stay JSON envelopes. A CSV answer reads exactly what the JSON answer of the same request reads.'
  );
}

/** What one operation's description says of its CSV representation. */
export function csvNote(columns: readonly { name: string }[], list: boolean): string {
  const rows = list
    ? 'one row per offer; the pagination is in `X-Total-Count`, `X-Snapshot` and `Link`'
    : 'one row per point, the offer `id` first';
  return `With \`Accept: text/csv\` the answer is CSV (the overview's "CSV"): ${rows}. Columns: ${names(columns)}.`;
}

/**
 * The columns of each CSV, from the resource schemas.
 * @internal (exported for its tests)
 */
export function csvColumns(): string {
  return [
    '| answer | columns |',
    '|---|---|',
    ...OFFER_FAMILIES.map((f) => `| ${f} list | ${names(offerColumnsOf(f))} |`),
    `| earn history | ${names(historyColumnsOf('earn'))} |`,
    `| borrow history | ${names(historyColumnsOf('borrow'))} |`,
  ].join('\n');
}

const ERROR_MEANINGS: Record<ErrorCode, string> = {
  invalid_api_key: 'Bearer token missing, invalid or revoked',
  subscription_required: 'the key owner has no active premium subscription',
  not_found: `no such resource, or not public (unpublished or delisted); always for ${inWords(OFFER_FAMILIES.filter((f) => !isHistoryFamily(f)))} history; unknown routes and methods (but on \`/mcp\`)`,
  method_not_allowed:
    'a method `/mcp` does not take (any but `POST`: the endpoint offers no stream and no session); `Allow` names `POST`; before authentication, not charged',
  rate_limit_exceeded: 'per-minute budget spent; `details`: `reset_at`, `limit`; `Retry-After`',
  monthly_quota_exceeded: 'monthly budget spent; `details`: `reset_at`, `limit`; `Retry-After`',
  validation_error: 'query or path parameters failed validation; `details.message` is an array of strings',
  snapshot_expired:
    'the data version named by `snapshot` or `since` is no longer readable; `details.parameter` names it',
  service_unavailable: 'a required internal dependency failed closed; `Retry-After`',
  internal_error: 'unexpected server failure',
};

/** The policy (docs/api.md, "Versioning and deprecation"); deprecated answers link to the page that shows it. */
function versioningPolicy(routes: readonly Route[]): string {
  const marked = routes.some((route) => route.deprecated);
  return (
    '`info.version` is `major.minor.patch`; the paths carry the major version (`/api/v1`). A minor version only adds: routes, optional query parameters, values of ' +
    'a parameter, fields of a body, headers, and answers for new conditions; clients ignore fields they do not know. Nothing is removed, renamed or changed in meaning ' +
    'within a major version without first being deprecated. A deprecated route or parameter is marked `deprecated: true` here, and its answers (for a parameter: ' +
    'the answers to requests that send it) carry `Deprecation` (RFC 9745, `@` and Unix seconds: since when), `Sunset` (RFC 8594, an HTTP-date: when it may stop working) ' +
    `and \`Link: <…/docs>; rel="deprecation"\` to this page. It keeps working at least ${DEPRECATION_NOTICE_DAYS} days after its deprecation and until its \`Sunset\`. ` +
    (marked ? 'The operations and parameters marked below are deprecated.' : 'Nothing is deprecated today.')
  );
}

export function overview(routes: readonly Route[]): string {
  const catalog = CATALOG_FAMILIES.map((f) => `| ${f} | ${catalogOrdering(f)} |`);
  const offers = OFFER_FAMILIES.map((f) => `| ${f} | ${offerOrdering(f)} |`);
  const errors = (Object.keys(STATUS_OF) as ErrorCode[]).map(
    (code) => `| \`${code}\` | ${STATUS_OF[code]} | ${ERROR_MEANINGS[code]} |`,
  );
  return [
    `Read-only market data about exchanges, wallets, protocols, currencies, and ${inWords(OFFER_FAMILIES)} offers with their APY history. ` +
      'Every endpoint uses GET and answers JSON (offer lists and history also CSV, on request); this description is generated from the schemas the service validates with.',
    '',
    '## Authentication',
    'Every `/api/v1/*` endpoint needs `Authorization: Bearer <API_KEY>` (the scheme word is case-insensitive), a key of a user with an active premium subscription. ' +
      'A missing, unknown or revoked key is `401 invalid_api_key`; a key whose owner has no active subscription is `403 subscription_required`. ' +
      'This description (`/openapi.json`), the docs page (`/docs`) and the data status (`/api/v1/status`) need no key.',
    '',
    '## Limits and usage headers',
    `Each key has a per-minute budget (fixed UTC minutes, default ${thousands(DEFAULTS.ratePerMinute)}) and a monthly budget (calendar months in UTC, default ${thousands(DEFAULTS.quotaPerMonth)}); ` +
      'the headers are authoritative. Every request that passes authentication takes one unit of both, whatever its outcome (200, 301, 400, 404); a 429 takes none of the monthly budget. ' +
      'Every response to an authenticated request carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (Unix second of the next UTC minute), ' +
      '`X-Quota-Limit`, `X-Quota-Remaining` and `X-Quota-Reset` (Unix second of the next 1st of the month, 00:00 UTC), all strings of digits; 401 and 403 do not. ' +
      'The same responses carry the standard fields of the IETF httpapi draft "RateLimit header fields for HTTP" (draft-ietf-httpapi-ratelimit-headers-11): ' +
      '`RateLimit-Policy: "minute";q=60;w=60, "month";q=100000` and `RateLimit: "minute";r=57;t=42, "month";r=98766;t=1234567` (`r` remaining, `t` seconds to the reset). ' +
      'A spent budget answers `429` with `Retry-After` (seconds, at least 1): wait that long before retrying. `GET /api/v1/usage` gives the same numbers as JSON.',
    '',
    '## Conditional requests and caching',
    'Every `200` of a list or detail carries a strong `ETag` (a hash of the body: it changes when and only when the body does) and `Cache-Control: private, no-cache`: ' +
      'a client may keep the body but revalidates it before each use, and shared caches do not store it. Send the tag back in `If-None-Match`: while the body is unchanged ' +
      'the answer is `304 Not Modified` with no body, the `ETag` and the usage headers. A `304` is charged like any other request; it saves the transfer, not the budget. ' +
      'History (whose window moves with the clock) and usage answers carry no `ETag`; they and every other answer are `Cache-Control: no-store`. ' +
      'Every `200` and `304` of a list or detail also carries `Last-Modified`: when the newest data version its body depends on was published. ' +
      'It tells the age of the data; `If-Modified-Since` is not evaluated (the `ETag` is the validator).',
    '',
    '## Conventions',
    '- Decimal finance values (prices, APY, TVL, LTV, amounts, volumes) are JSON strings such as `"4.25"` to keep their precision; percentages are in percent units.',
    '- Timestamps are ISO 8601 UTC with milliseconds, e.g. `2026-01-31T12:00:00.000Z`.',
    '- Every response carries `X-Request-Id`; quote it when reporting a problem. Bodies of 1 KiB or more are gzip-compressed when the request has `Accept-Encoding: gzip`.',
    '- CORS: any origin may call the API, send `If-None-Match`, and read the usage, `RateLimit*`, `ETag`, `Retry-After`, `Location`, `Link`, `Deprecation` and `Sunset` headers; ' +
      'every answer says `Access-Control-Allow-Origin: *`, and the preflight (`OPTIONS`) needs no key.',
    '- Validation is strict: an unknown, repeated, empty, malformed or out-of-range query parameter is `400 validation_error`. Integers are plain decimal digits.',
    '- A renamed platform or currency slug answers `301` with `Location` (same path with the current slug, query kept) and an empty body.',
    '- Paths are written here without a trailing slash. One is tolerated, as API Gateway matches it to the same resource: `/api/v1/earn/` answers what `/api/v1/earn` does, ' +
      'and `/api/v1/exchanges/binance/` what `/api/v1/exchanges/binance` does. Send the paths as written: a tool that matches requests against this description reads ' +
      '`/api/v1/earn/` as `/api/v1/earn/{id}` with an empty `id`.',
    '- Servers: the first server URL is `.`, relative to where this description is read: `<base>/openapi.json` describes the API at `<base>/api/v1`, a stage name or base path included. ' +
      'The second is the local stack (`npm start`, `http://127.0.0.1:3000`), an absolute base URL for generated clients.',
    '- Offer ids and offsets are integers of 0 to 2^53-1, without a `format`: exact as JSON numbers (a double) and in any 64-bit integer.',
    '',
    '## Pagination',
    `List endpoints return \`{ data, pagination }\`. \`limit\` is ${PAGE_SIZE.minimum} to ${PAGE_SIZE.maximum} (default ${PAGE_SIZE.default}), ` +
      `\`offset\` is zero-based (default 0). Request the next page with \`offset + data.length\` while \`pagination.has_more\` is true. ` +
      'Every ordering ends with a tie-break on the identifier, so pages never overlap or skip.',
    '',
    '## Paging one version',
    '`pagination.snapshot` names the data version a page was read from (1 to 64 characters of `A-Z a-z 0-9 _ -`, opaque). A list request with `snapshot=<value>` ' +
      'reads that version: the same records, order and `total` after any newer import, so a crawl that passes it on every page sees every record once. ' +
      'Every replaced version stays readable at least 60 minutes; a version that is not (or no longer) readable is `410 snapshot_expired`. ' +
      'Every list `200` carries a `Link` header (RFC 8288) with `rel="next"` while `has_more` and `rel="prev"` when `offset` > 0: relative references with the ' +
      "request's parameters, `offset` moved and `snapshot` set, so following `next` reads one version to the end.",
    '',
    '## Filters',
    'Offer lists filter by `platform_type`, `platform`, `asset`, `chain` (each a comma-separated list of 1 to 20 distinct values, any of which matches), ' +
      `\`ids\` (1 to 200 distinct offer ids), \`min_apy\` and \`min_tvl\` (${inWords(OFFER_FAMILIES.filter((f) => filtersOf(f).includes('min_apy')))}; exact decimals, \`null\` never matches) and the flag of the family ` +
      `(${flagsInWords()}). Different filters combine with AND; every combination has an exact \`total\` and the orderings below.`,
    '',
    '## Changes and freshness',
    `\`GET /api/v1/{${OFFER_FAMILIES.join('|')}}/changes?since=<snapshot>\` lists the offers that were added, changed or removed between two versions, by ascending id: ` +
      'keep a copy up to date without reading everything again. `GET /api/v1/status` tells, without a key and without taking budget, the version each family serves, ' +
      'when it last changed, when it was last refreshed and whether that is older than the stage allows (`stale`).',
    '',
    '## CSV',
    csvRules(),
    '',
    csvColumns(),
    '',
    '## Orderings',
    '| list | order |',
    '|---|---|',
    ...catalog,
    ...offers,
    '',
    '## History',
    historyRules(),
    '',
    '## Versioning and deprecation',
    versioningPolicy(routes),
    '',
    '## Errors',
    'Every error is `{"error": {"code", "message", "details"}}` (`details` an object or `null`), with `Content-Type: application/json`. ' +
      'On stages that enable the web application firewall, its refusals answer before API Gateway, with the envelope but without `X-Request-Id` or usage headers: ' +
      '`429 rate_limit_exceeded` for an address over its rate (`details: null`, `Retry-After`), `400 validation_error` for a request refused for its content.',
    '',
    '| code | HTTP | meaning |',
    '|---|---|---|',
    ...errors,
  ].join('\n');
}
