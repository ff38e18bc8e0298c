/**
 * One request's charge against its key's budgets (specification part 8, CONTRACT §6). Both
 * counters are updated concurrently (and concurrently with the data read, by the middleware). A
 * request refused per minute gives back the monthly unit it took, so a 429 costs no monthly
 * budget; a monthly refusal keeps its per-minute unit.
 */
import { ApiError } from '../errors';
import { logger } from '../logger';
import type { QuotaStore, WindowSpec } from '../repositories/quota-store';

export interface KeyLimits {
  perMinute: number;
  perMonth: number;
}

export interface UsageCharge {
  /** The usage headers of specification part 8. */
  headers: Record<string, string>;
  /** Set when a budget refused the request. */
  refusal?: ApiError;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The fixed UTC minute of `now`. */
export function minuteWindow(now: Date): WindowSpec {
  const id = `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}`;
  return { window: 'MIN', id, resetAt: Math.floor(now.getTime() / 60_000) * 60 + 60 };
}

/** The calendar month (UTC) of `now`. */
export function monthWindow(now: Date): WindowSpec {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { window: 'MON', id: `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}`, resetAt: next / 1000 };
}

const secondsUntil = (resetAt: number, now: Date) => Math.max(1, Math.ceil(resetAt - now.getTime() / 1000));

export async function chargeRequest(store: QuotaStore, keyId: string, limits: KeyLimits, now: Date): Promise<UsageCharge> {
  const minute = minuteWindow(now);
  const month = monthWindow(now);
  const [perMinute, perMonth] = await Promise.all([
    store.take(keyId, minute, limits.perMinute),
    store.take(keyId, month, limits.perMonth),
  ]);

  let monthUsed = perMonth.taken ? perMonth.count : limits.perMonth;
  if (!perMinute.taken && perMonth.taken) {
    try {
      monthUsed = await store.giveBack(keyId, month);
    } catch (error) {
      // The refusal stands; at worst the key lost one monthly unit.
      logger.warn('quota: could not give back a monthly unit', { keyId, error });
    }
  }

  const headers = {
    'X-RateLimit-Limit': String(limits.perMinute),
    'X-RateLimit-Remaining': String(perMinute.taken ? Math.max(0, limits.perMinute - perMinute.count) : 0),
    'X-RateLimit-Reset': String(minute.resetAt),
    'X-Quota-Limit': String(limits.perMonth),
    'X-Quota-Remaining': String(Math.max(0, limits.perMonth - monthUsed)),
    'X-Quota-Reset': String(month.resetAt),
  };

  if (!perMinute.taken) {
    return {
      headers,
      refusal: new ApiError(
        'rate_limit_exceeded',
        `The per-minute limit of ${limits.perMinute} requests is exhausted.`,
        { reset_at: new Date(minute.resetAt * 1000).toISOString(), limit: limits.perMinute },
        { 'Retry-After': String(secondsUntil(minute.resetAt, now)) },
      ),
    };
  }
  if (!perMonth.taken) {
    return {
      headers,
      refusal: new ApiError(
        'monthly_quota_exceeded',
        `The monthly quota of ${limits.perMonth} requests is exhausted.`,
        { reset_at: new Date(month.resetAt * 1000).toISOString(), limit: limits.perMonth },
        { 'Retry-After': String(secondsUntil(month.resetAt, now)) },
      ),
    };
  }
  return { headers };
}
