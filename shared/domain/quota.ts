/**
 * One request's charge against its key's budgets (docs/api.md "Quotas and headers"): one write
 * takes a unit of the minute and of the month together, or refuses (the counters:
 * shared/accounts/quota-store.ts). A per-minute refusal takes nothing, so it costs no monthly
 * budget; a monthly refusal keeps its per-minute unit; when both budgets are spent,
 * `rate_limit_exceeded` wins.
 */

import type { KeyLimits } from '../accounts/key-store';
import type { QuotaStore } from '../accounts/quota-store';
import { ApiError } from '../platform/errors';

export interface BudgetUsage {
  /** Units of the window spent, this request's included when it was admitted by that budget. */
  used: number;
  remaining: number;
  /** Unix second at which the next window starts. */
  resetAt: number;
}

/** The state of a key's budgets after a request's charge: what the usage headers and `/usage` show. */
export interface Usage {
  limits: KeyLimits;
  minute: BudgetUsage;
  month: BudgetUsage;
  /** The request time, for the seconds to each reset. */
  now: Date;
}

export interface UsageCharge {
  usage: Usage;
  /** The usage headers and their standard twins (usageHeaders; docs/api.md, "Quotas and headers"). */
  headers: Record<string, string>;
  /** Set when a budget refused the request. */
  refusal?: ApiError;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A budget's window: its id and the Unix second at which the next one starts. */
export interface Window {
  /** `202611221043` (a minute) or `202611` (a month). */
  id: string;
  resetAt: number;
}

/** The fixed UTC minute of `now`. */
function minuteWindow(now: Date): Window {
  const id = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}`;
  return { id, resetAt: Math.floor(now.getTime() / 60_000) * 60 + 60 };
}

/** The Unix second at which a minute `yyyymmddhhmm` (a charged window's id) ends. */
function minuteResetAt(minute: number): number {
  const id = String(minute);
  const at = (from: number, to: number) => Number(id.slice(from, to));
  return Date.UTC(at(0, 4), at(4, 6) - 1, at(6, 8), at(8, 10), at(10, 12) + 1) / 1000;
}

/** The calendar month (UTC) of `now`. */
export function monthWindow(now: Date): Window {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { id: `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}`, resetAt: next / 1000 };
}

/** Seconds to a reset, rounded up, at least 1 (Retry-After). */
const secondsUntil = (resetAt: number, now: Date) => Math.max(1, Math.ceil(resetAt - now.getTime() / 1000));

/**
 * The names of the two policies in `RateLimit-Policy` and `RateLimit`, as defined by the IETF httpapi
 * draft "RateLimit header fields for HTTP", draft-ietf-httpapi-ratelimit-headers-11 (23 May 2026):
 * a List of Items whose value is a String naming the policy, with Integer parameters (docs/api.md,
 * "Rate-limit headers").
 */
const RATE_LIMIT_POLICIES = { minute: 'minute', month: 'month' } as const;

/**
 * `RateLimit-Policy: "minute";q=60;w=60, "month";q=100000`: the quota `q` of each policy in requests
 * (the draft's default unit) and the window `w` in seconds. The month is a calendar month (28 to 31
 * days), so its policy carries no fixed `w`; `RateLimit`'s `t` gives its actual seconds to reset.
 */
const rateLimitPolicy = (limits: KeyLimits) =>
  `"${RATE_LIMIT_POLICIES.minute}";q=${limits.perMinute};w=60, "${RATE_LIMIT_POLICIES.month}";q=${limits.perMonth}`;

/** `RateLimit: "minute";r=57;t=42, "month";r=98766;t=1234567`: remaining units `r`, seconds to reset `t`. */
const rateLimit = (usage: Usage) =>
  `"${RATE_LIMIT_POLICIES.minute}";r=${usage.minute.remaining};t=${secondsUntil(usage.minute.resetAt, usage.now)}, ` +
  `"${RATE_LIMIT_POLICIES.month}";r=${usage.month.remaining};t=${secondsUntil(usage.month.resetAt, usage.now)}`;

/** Every usage header of a response: the `X-*` fields and the draft's two fields (docs/api.md, "Rate-limit headers"). */
function usageHeaders(usage: Usage): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(usage.limits.perMinute),
    'X-RateLimit-Remaining': String(usage.minute.remaining),
    'X-RateLimit-Reset': String(usage.minute.resetAt),
    'X-Quota-Limit': String(usage.limits.perMonth),
    'X-Quota-Remaining': String(usage.month.remaining),
    'X-Quota-Reset': String(usage.month.resetAt),
    'RateLimit-Policy': rateLimitPolicy(usage.limits),
    RateLimit: rateLimit(usage),
  };
}

const budget = (used: number, limit: number, resetAt: number): BudgetUsage => ({
  used: Math.min(Math.max(0, used), limit),
  remaining: Math.max(0, limit - used),
  resetAt,
});

/**
 * Charge one request. `sameMinute`: the key was charged earlier in this minute as far as this
 * instance knows (shared/domain/budget-memory.ts); a wrong guess costs a write, never a count.
 */
export async function chargeRequest(
  store: QuotaStore,
  keyId: string,
  limits: KeyLimits,
  now: Date,
  sameMinute = false,
): Promise<UsageCharge> {
  const minute = minuteWindow(now);
  const month = monthWindow(now);
  const outcome = await store.charge(
    keyId,
    { minute: Number(minute.id), month: month.id, monthResetAt: month.resetAt },
    limits,
    sameMinute,
  );
  // The window the request was counted in, which may be later than its clock's minute (another
  // instance's clock ahead started it): the headers, `/usage` and any 429 name that one, so that
  // the answers naming a window are exactly the requests counted in it (CONTRACT §6).
  const minuteReset = minuteResetAt(outcome.minute);
  // A budget that refused reports itself spent; the other reports its count (without this
  // request's unit when the minute refused it, since that refusal took nothing).
  const usage: Usage = {
    limits,
    minute: budget(
      outcome.admitted || outcome.refusedBy === 'month' ? outcome.minuteCount : limits.perMinute,
      limits.perMinute,
      minuteReset,
    ),
    month: budget(
      outcome.admitted || outcome.refusedBy === 'minute' ? outcome.monthCount : limits.perMonth,
      limits.perMonth,
      month.resetAt,
    ),
    now,
  };
  const headers = usageHeaders(usage);

  if (outcome.admitted) return { usage, headers };
  if (outcome.refusedBy === 'minute') {
    return {
      usage,
      headers,
      refusal: new ApiError(
        'rate_limit_exceeded',
        `The per-minute limit of ${limits.perMinute} requests is exhausted.`,
        { reset_at: new Date(minuteReset * 1000).toISOString(), limit: limits.perMinute },
        { 'Retry-After': String(secondsUntil(minuteReset, now)) },
      ),
    };
  }
  return {
    usage,
    headers,
    refusal: new ApiError(
      'monthly_quota_exceeded',
      `The monthly quota of ${limits.perMonth} requests is exhausted.`,
      { reset_at: new Date(month.resetAt * 1000).toISOString(), limit: limits.perMonth },
      { 'Retry-After': String(secondsUntil(month.resetAt, now)) },
    ),
  };
}
