/**
 * What refused requests cost (docs/performance.md, "Refused requests"): the audit's sequence, five
 * requests of the most expensive list on a key limited to 3 per minute, one at a time, then a burst
 * of concurrent requests on a fresh key with the same limit. For each answer: its status and the
 * DynamoDB calls, read and write units its request made (the accounting middleware).
 */
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../local/events';
import { systemClock } from '../../shared/platform/clock';
import { withRequestAccounting } from '../../shared/platform/dynamo-accounting';
import type { Handler } from './measure';
import { round } from './stats';

interface RefusalCost {
  status: number;
  calls: number;
  read_capacity: number;
  write_capacity: number;
}

export interface RefusalReport {
  path: string;
  per_minute: number;
  /** The audit's sequence, one request at a time. */
  sequence: RefusalCost[];
  /** A burst of concurrent requests, summed by status. */
  burst: { requests: number; by_status: Record<string, { requests: number; calls: number; read_capacity: number }> };
}

const REFUSAL_PATH = '/api/v1/earn?min_apy=0&sort=tvl_desc&limit=200';
const PER_MINUTE = 3;

async function costOf(handler: Handler, keyId: string): Promise<RefusalCost> {
  const event = apiEvent(REFUSAL_PATH, { keyId, perMinute: PER_MINUTE, perMonth: 1e9 });
  const { result, accounting } = await withRequestAccounting(() => handler(event, {} as Context));
  const calls = accounting.calls;
  return {
    status: result.statusCode,
    calls: calls.length,
    read_capacity:
      round(
        calls.reduce((sum, c) => sum + c.readCapacity, 0),
        1,
      ) ?? 0,
    write_capacity:
      round(
        calls.reduce((sum, c) => sum + c.writeCapacity, 0),
        1,
      ) ?? 0,
  };
}

export async function measureRefusals(handler: Handler, burst = 20): Promise<RefusalReport> {
  // One UTC minute for the whole measurement: wait out the end of this one if it is close.
  const intoMinute = systemClock().getTime() % 60_000;
  if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
  const run = systemClock().getTime();

  const sequence: RefusalCost[] = [];
  for (let i = 0; i < 5; i++) sequence.push(await costOf(handler, `bench-refusals-${run}`));

  const costs = await Promise.all(Array.from({ length: burst }, () => costOf(handler, `bench-refusals-burst-${run}`)));
  const byStatus: RefusalReport['burst']['by_status'] = {};
  for (const c of costs) {
    const entry = (byStatus[c.status] ??= { requests: 0, calls: 0, read_capacity: 0 });
    entry.requests += 1;
    entry.calls += c.calls;
    entry.read_capacity = round(entry.read_capacity + c.read_capacity, 1) ?? 0;
  }
  return { path: REFUSAL_PATH, per_minute: PER_MINUTE, sequence, burst: { requests: burst, by_status: byStatus } };
}

/** The report's lines, for the console and bench/results*.md. */
export function refusalLines(report: RefusalReport): string[] {
  return [
    `\`GET ${report.path}\` on a key limited to ${report.per_minute} per minute, one request at a time:`,
    '',
    '| request | status | DynamoDB calls | RCU | WCU |',
    '|---|---|---|---|---|',
    ...report.sequence.map(
      (c, i) => `| ${i + 1} | ${c.status} | ${c.calls} | ${c.read_capacity} | ${c.write_capacity} |`,
    ),
    '',
    `A burst of ${report.burst.requests} concurrent requests on a fresh key with the same limit: ` +
      Object.entries(report.burst.by_status)
        .map(([status, s]) => `${s.requests} × ${status} with ${s.calls} calls and ${s.read_capacity} RCU in all`)
        .join('; ') +
      '.',
  ];
}
