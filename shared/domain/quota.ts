/**
 * One request's charge against its key's budgets (docs/api.md
 * "Quotas"). Two orders:
 *
 * - `parallel`: both counters are taken concurrently (and concurrently with the data read, by the
 *   middleware): one round trip for a request that will be served. A request refused per minute
 *   gives back the monthly unit it took; a monthly refusal keeps its per-minute unit.
 * - `charge-first`: for a key that is expected to be refused (shared/domain/budget-memory.ts), the
 *   minute unit first and the monthly unit only once the minute allowed it, so a per-minute refusal
 *   never touches the monthly counter; the monthly count it reports is read, not taken.
 *
 * Either way a per-minute refusal reports the monthly budget without its own unit.
 */
import { ApiError } from '../errors';
import { logger } from '../logger';
import type { CounterResult, QuotaStore, WindowSpec } from '../repositories/quota-store';

export interface KeyLimits {
  perMinute: number;
  perMonth: number;
}

export type ChargeOrder = 'parallel' | 'charge-first';

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

/** The fixed UTC minute of `now`. */
function minuteWindow(now: Date): WindowSpec {
  const id = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}`;
  return { window: 'MIN', id, resetAt: Math.floor(now.getTime() / 60_000) * 60 + 60 };
}

/** The calendar month (UTC) of `now`. */
export function monthWindow(now: Date): WindowSpec {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { window: 'MON', id: `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}`, resetAt: next / 1000 };
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

export async function chargeRequest(store: QuotaStore, keyId: string, limits: KeyLimits, now: Date, order: ChargeOrder = 'parallel'): Promise<UsageCharge> {
  const minute = minuteWindow(now);
  const month = monthWindow(now);
  const counts = order === 'parallel' ? await takeInParallel(store, keyId, limits, minute, month) : await takeMinuteFirst(store, keyId, limits, minute, month);

  const usage: Usage = {
    limits,
    minute: budget(counts.minuteAdmitted ? counts.minuteUsed : limits.perMinute, limits.perMinute, minute.resetAt),
    month: budget(counts.monthRefused ? limits.perMonth : counts.monthUsed, limits.perMonth, month.resetAt),
    now,
  };
  const headers = usageHeaders(usage);

  if (!counts.minuteAdmitted) {
    return {
      usage,
      headers,
      refusal: new ApiError(
        'rate_limit_exceeded',
        `The per-minute limit of ${limits.perMinute} requests is exhausted.`,
        { reset_at: new Date(minute.resetAt * 1000).toISOString(), limit: limits.perMinute },
        { 'Retry-After': String(secondsUntil(minute.resetAt, now)) },
      ),
    };
  }
  if (counts.monthRefused) {
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
  return { usage, headers };
}

interface Counts {
  minuteAdmitted: boolean;
  minuteUsed: number;
  /** The monthly count to report: never this request's unit when the minute refused it. */
  monthUsed: number;
  monthRefused: boolean;
}

async function takeInParallel(store: QuotaStore, keyId: string, limits: KeyLimits, minute: WindowSpec, month: WindowSpec): Promise<Counts> {
  const [perMinute, perMonth] = await Promise.all([store.take(keyId, minute, limits.perMinute), store.take(keyId, month, limits.perMonth)]);
  return settleParallel(store, keyId, limits, month, perMinute, perMonth);
}

async function settleParallel(store: QuotaStore, keyId: string, limits: KeyLimits, month: WindowSpec, perMinute: CounterResult, perMonth: CounterResult): Promise<Counts> {
  if (perMinute.taken) {
    return { minuteAdmitted: true, minuteUsed: perMinute.count, monthUsed: perMonth.taken ? perMonth.count : limits.perMonth, monthRefused: !perMonth.taken };
  }
  // Refused per minute: rate_limit_exceeded wins, and the monthly unit is not this request's.
  if (!perMonth.taken) return { minuteAdmitted: false, minuteUsed: limits.perMinute, monthUsed: limits.perMonth, monthRefused: false };
  let monthUsed = perMonth.count - 1;
  try {
    // The count after the give-back can be lower still: others' units given back meanwhile.
    monthUsed = Math.min(monthUsed, await store.giveBack(keyId, month));
  } catch (error) {
    // The refusal stands; at worst the key lost one monthly unit.
    logger.warn('quota: could not give back a monthly unit', { keyId, error });
  }
  return { minuteAdmitted: false, minuteUsed: limits.perMinute, monthUsed, monthRefused: false };
}

async function takeMinuteFirst(store: QuotaStore, keyId: string, limits: KeyLimits, minute: WindowSpec, month: WindowSpec): Promise<Counts> {
  // The monthly count is read beside the minute unit, for the report of a per-minute refusal.
  const [perMinute, monthCount] = await Promise.all([
    store.take(keyId, minute, limits.perMinute),
    // Only the report needs it: if it cannot be read, the refusal stands and the month is counted as in parallel.
    store.count(keyId, month).catch((error: unknown) => {
      logger.warn('quota: could not read a monthly count', { keyId, error });
      return undefined;
    }),
  ]);
  if (!perMinute.taken && monthCount === undefined) {
    return settleParallel(store, keyId, limits, month, perMinute, await store.take(keyId, month, limits.perMonth));
  }
  if (!perMinute.taken) return { minuteAdmitted: false, minuteUsed: limits.perMinute, monthUsed: monthCount ?? 0, monthRefused: false };
  const perMonth = await store.take(keyId, month, limits.perMonth);
  return { minuteAdmitted: true, minuteUsed: perMinute.count, monthUsed: perMonth.taken ? perMonth.count : limits.perMonth, monthRefused: !perMonth.taken };
}
