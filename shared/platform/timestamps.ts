/**
 * The one rule for a timestamp a file or a command writes (README.md, "Data import"): the data
 * files' timestamps, an accounts file's `premium_until`, `npm run keys -- premium --until`, and the
 * times the key store writes (`toISOString()`). The resource schemas (shared/domain/resources.ts)
 * and the account items' codecs (shared/accounts/account-items.ts) read by it. And the length of an
 * hour and of a day, which the history buckets, the APY figures and the deprecation notice count in.
 */

/** An hour and a day in milliseconds (UTC has no other lengths for them). */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** ISO 8601 in UTC; the API renders every timestamp as `toISOString()` (milliseconds, `Z`). */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]00:?00)$/;

/** The longest text TIMESTAMP_PATTERN accepts: nine digits of a second and a `+00:00` offset. */
export const TIMESTAMP_MAX_LENGTH = '2026-01-31T12:00:00.123456789+00:00'.length;

/** The years a timestamp may name: every history window of one stays a date the API can write. */
export const TIMESTAMP_YEARS = { min: 1970, max: 9999 } as const;

const daysInMonth = (year: number, month: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

/**
 * Whether a string of TIMESTAMP_PATTERN names a real instant: a month 01-12, a day that exists in
 * its month (leap years included), hours 00-23, minutes and seconds 00-59. `Date.parse` rolls
 * `02-30` and `T24:00` over into the next day; this refuses them, so what is stored is served back
 * as the same instant (digits past the millisecond are dropped, never rounded up).
 */
export function isRealInstant(value: string): boolean {
  const [year, month, day, hour, minute, second] = [0, 5, 8, 11, 14, 17].map((at) =>
    Number(value.slice(at, at + (at === 0 ? 4 : 2))),
  );
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59
  );
}

export const inYears = (value: string): boolean => {
  const year = Number(value.slice(0, 4));
  return year >= TIMESTAMP_YEARS.min && year <= TIMESTAMP_YEARS.max;
};

/** A timestamp a file may hold (what the resource schemas' `timestamp()` accepts), for checks outside zod. */
export const isFileTimestamp = (value: string): boolean =>
  TIMESTAMP_PATTERN.test(value) && isRealInstant(value) && inYears(value);
