/**
 * An oracle of history answers written from CONTRACT §5 and §12, not from the service: the
 * periods' table, the default interval of a custom window, UTC buckets (weeks from Monday), and
 * each bucket's last observation within [from, to], over the raw points of a fixture.
 */

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** §5's table: period → [interval, window]. */
export const PERIOD_TABLE: Record<string, [string, number | null]> = {
  '24h': ['1h', DAY],
  '1w': ['1h', 7 * DAY],
  '1m': ['4h', 30 * DAY],
  '3m': ['1d', 90 * DAY],
  '1y': ['1d', 365 * DAY],
  all: ['1w', null],
};

/** §12: ≤ 24 h → 1h, ≤ 7 d → 1h, ≤ 30 d → 4h, ≤ 365 d → 1d, longer → 1w. */
export function defaultIntervalOf(lengthMs: number): string {
  if (lengthMs <= 7 * DAY) return '1h';
  if (lengthMs <= 30 * DAY) return '4h';
  if (lengthMs <= 365 * DAY) return '1d';
  return '1w';
}

function bucketOf(interval: string, ms: number): number {
  if (interval === '1h') return Math.floor(ms / HOUR) * HOUR;
  if (interval === '4h') return Math.floor(ms / (4 * HOUR)) * 4 * HOUR;
  if (interval === '1d') return Math.floor(ms / DAY) * DAY;
  const d = new Date(Math.floor(ms / DAY) * DAY);
  return d.getTime() - ((d.getUTCDay() + 6) % 7) * DAY; // back to Monday
}

export interface OraclePoint {
  timestamp: string;
  apy: string;
  tvl?: string | null;
}

export interface WindowQuery {
  period?: string;
  from?: string;
  to?: string;
  interval?: string;
}

/** The answer of one offer's window at `now`. */
export function historyOracle(points: readonly OraclePoint[], query: WindowQuery, now: Date, earn: boolean) {
  const custom = query.from !== undefined;
  const period = custom ? 'custom' : (query.period ?? '1m');
  const to = query.to === undefined ? now.getTime() : Date.parse(query.to);
  let from: number;
  let interval: string;
  if (custom) {
    from = Date.parse(query.from as string);
    interval = query.interval ?? defaultIntervalOf(to - from);
  } else {
    const [own, windowMs] = PERIOD_TABLE[period];
    from = windowMs === null ? -Infinity : to - windowMs;
    interval = query.interval ?? own;
  }
  const buckets = new Map<number, Record<string, unknown>>();
  for (const p of [...points].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))) {
    const ms = Date.parse(p.timestamp);
    if (ms < from || ms > to) continue;
    const start = bucketOf(interval, ms);
    const timestamp = new Date(start).toISOString();
    buckets.set(start, earn ? { timestamp, apy: p.apy, tvl: p.tvl ?? null } : { timestamp, apy: p.apy });
  }
  const data = [...buckets.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
  const fromIso = Number.isFinite(from)
    ? new Date(from).toISOString()
    : data.length > 0
      ? (data[0].timestamp as string)
      : new Date(to).toISOString();
  return { period, interval, from: fromIso, to: new Date(to).toISOString(), point_count: data.length, data };
}

/**
 * The retention docs/data-model.md states (not the service's table): how long each interval's
 * series keeps an item, from its bucket's start (`1h`: the raw observation's time).
 */
const KEPT_MS: Record<string, number> = { '1h': 8 * DAY, '4h': 31 * DAY + 4 * HOUR, '1d': 367 * DAY };

/** The points whose item of `interval`'s series is still kept at `now` (an import never writes an expired one). */
export function retainedPoints<P extends OraclePoint>(points: readonly P[], interval: string, now: Date): P[] {
  const kept = KEPT_MS[interval];
  if (kept === undefined) return [...points];
  return points.filter((p) => {
    const ms = Date.parse(p.timestamp);
    return (interval === '1h' ? ms : bucketOf(interval, ms)) + kept > now.getTime();
  });
}
