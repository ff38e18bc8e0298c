/** Percentiles (nearest rank), rounding and CPU time for the report. */
function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (values: readonly number[]) => percentile(values, 0.5);

export const round = (value: number, digits = 2) =>
  Number.isFinite(value) ? Math.round(value * 10 ** digits) / 10 ** digits : null;

export interface Latency {
  p50: number | null;
  p99: number | null;
}

export const latencyOf = (values: readonly number[]): Latency => ({
  p50: round(percentile(values, 0.5)),
  p99: round(percentile(values, 0.99)),
});

/** CPU time (user + system, every thread) this process spent since `start`, in ms. */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}
