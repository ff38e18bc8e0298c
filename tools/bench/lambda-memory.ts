/**
 * Each function's p50 and cost per million requests at several memory sizes, from the service's
 * own CPU per request (docs/performance.md, "Memory and CPU"; ADR 0030), as AWS Lambda Power
 * Tuning would tabulate them. Lambda gives a function memory / 1,769 MB of a vCPU: the CPU time of
 * a request stretches by 1,769 / memory below that, its wait for DynamoDB does not.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { resolveStageConfig } from '../../lib/config';
import type { BuiltFunctions } from '../../local/functions';
import type { FunctionName } from '../../shared/http/routes';
import { parseAccounts } from '../../shared/import/dataset';
import type { ModelResult } from './latency-model';
import type { KindResult } from './measure';
import { cpuMsSince, type Latency, latencyOf, median, round } from './stats';

/** @internal (exported for its tests) The memory at which a function has one full vCPU (AWS Lambda developer guide, "Memory"). */
export const FULL_VCPU_MB = 1_769;
/** The sizes every function is tabulated at, beside its configured one. */
const MEMORY_SIZES = [512, 1_024, FULL_VCPU_MB] as const;

/**
 * Lambda's list prices for the stack's architecture (arm64, lib/constructs/stack-function.ts),
 * us-east-1, the first tier (7.5 billion GB-s a month): aws.amazon.com/lambda/pricing as
 * published since the tiers of 2022 (x86: $0.0000166667 per GB-s, the same request price).
 */
const LAMBDA_PRICES = {
  architecture: 'arm64',
  region: 'us-east-1',
  usd_per_gb_s: 0.0000133334,
  usd_per_million_requests: 0.2,
  as_of: '2024-01 (the pricing page; not re-read here: no internet)',
} as const;

/** A pick is the cheapest size whose typical p50 is within this factor of the fastest size's. */
const PICK_WITHIN = 1.2;

/** What one request kind costs in this run: its wall time and the service's own CPU in it. */
export interface CpuSample {
  kind: string;
  fn: FunctionName | 'authorizer';
  /** Where the wall time comes from: the latency model (DynamoDB as it behaves) or the embedded DynamoDB. */
  base: 'latency model' | 'embedded DynamoDB';
  wall_p50_ms: number;
  cpu_p50_ms: number;
}

interface MemoryRow {
  memory_mb: number;
  /** The median over the function's kinds of each kind's p50 at this size. */
  p50_ms: number;
  /** The slowest kind's p50 at this size. */
  worst_p50_ms: number;
  /** 1 million requests at the typical p50, billed by the started ms, plus the request price. */
  usd_per_million: number;
}

interface FunctionMemory {
  fn: FunctionName | 'authorizer';
  configured_mb: number;
  kinds: number;
  /** The median kind's own CPU per request at one vCPU. */
  cpu_p50_ms: number;
  worst_kind: string;
  worst_cpu_p50_ms: number;
  base: CpuSample['base'] | 'both';
  sizes: MemoryRow[];
  /** The cheapest size whose p50 is within PICK_WITHIN of the fastest's. */
  pick_mb: number;
}

export interface LambdaMemory {
  prices: typeof LAMBDA_PRICES;
  full_vcpu_mb: number;
  pick_within: number;
  functions: FunctionMemory[];
}

/** @internal (exported for its tests) A request's p50 at `memoryMb`: its CPU stretched by the vCPU share, its wait unchanged. */
export function p50AtMemory(sample: Pick<CpuSample, 'wall_p50_ms' | 'cpu_p50_ms'>, memoryMb: number): number {
  const stretch = Math.max(1, FULL_VCPU_MB / memoryMb);
  return sample.wall_p50_ms + sample.cpu_p50_ms * (stretch - 1);
}

/** @internal (exported for its tests) What a million requests of `ms` each cost at `memoryMb` (duration billed per started ms). */
export function usdPerMillion(ms: number, memoryMb: number): number {
  const gbSeconds = (memoryMb / 1024) * (Math.ceil(ms) / 1000);
  return 1e6 * gbSeconds * LAMBDA_PRICES.usd_per_gb_s + LAMBDA_PRICES.usd_per_million_requests;
}

/**
 * Each kind's sample: under the latency model where this run modelled it (cache off), else on the
 * embedded DynamoDB. A kind without a CPU figure (a run before it existed) has no sample.
 */
export function cpuSamples(requests: KindResult[], model: ModelResult[] = []): CpuSample[] {
  const modelled = new Map(model.map((m) => [m.kind, m]));
  return requests.flatMap((r): CpuSample[] => {
    const m = modelled.get(r.kind);
    if (m?.request_cpu_ms?.p50 != null && m.request_ms.p50 != null)
      return [
        {
          kind: r.kind,
          fn: r.fn,
          base: 'latency model',
          wall_p50_ms: m.request_ms.p50,
          cpu_p50_ms: m.request_cpu_ms.p50,
        },
      ];
    if (r.cpu_ms?.p50 == null || r.latency_ms.p50 == null || r.status >= 400) return [];
    return [
      { kind: r.kind, fn: r.fn, base: 'embedded DynamoDB', wall_p50_ms: r.latency_ms.p50, cpu_p50_ms: r.cpu_ms.p50 },
    ];
  });
}

/** The table: one entry per function with samples, its sizes and the pick. */
export function lambdaMemory(samples: CpuSample[]): LambdaMemory {
  const configured = resolveStageConfig('dev').memorySizes;
  const fns = [...new Set(samples.map((s) => s.fn))];
  const functions = fns.map((fn): FunctionMemory => {
    const own = samples.filter((s) => s.fn === fn);
    const worst = own.reduce((a, b) => (b.cpu_p50_ms > a.cpu_p50_ms ? b : a));
    const sizes = [...new Set([configured[fn], ...MEMORY_SIZES])]
      .sort((a, b) => a - b)
      .map((memory_mb): MemoryRow => {
        const p50s = own.map((s) => p50AtMemory(s, memory_mb));
        const p50 = median(p50s);
        return {
          memory_mb,
          p50_ms: round(p50) ?? 0,
          worst_p50_ms: round(Math.max(...p50s)) ?? 0,
          usd_per_million: round(usdPerMillion(p50, memory_mb), 3) ?? 0,
        };
      });
    const fastest = Math.min(...sizes.map((s) => s.p50_ms));
    const within = sizes.filter((s) => s.p50_ms <= fastest * PICK_WITHIN);
    const pick = within.reduce((a, b) => (b.usd_per_million < a.usd_per_million ? b : a));
    const bases = new Set(own.map((s) => s.base));
    return {
      fn,
      configured_mb: configured[fn],
      kinds: own.length,
      cpu_p50_ms: round(median(own.map((s) => s.cpu_p50_ms))) ?? 0,
      worst_kind: worst.kind,
      worst_cpu_p50_ms: worst.cpu_p50_ms,
      base: bases.size === 1 ? [...bases][0] : 'both',
      sizes,
      pick_mb: pick.memory_mb,
    };
  });
  return { prices: LAMBDA_PRICES, full_vcpu_mb: FULL_VCPU_MB, pick_within: PICK_WITHIN, functions };
}

/**
 * The authorizer's request: a key that is not cached (API Gateway caches a decision per key, so
 * this runs once per key and TTL), read from the table and checked, `runs` times after a warm-up.
 */
export async function measureAuthorizer(
  built: Pick<BuiltFunctions, 'authorizer' | 'keyStore'>,
  runs: number,
): Promise<{ runs: number; latency_ms: Latency; cpu_ms: Latency }> {
  // A premium user's key, as the throughput's (a key of a user without a subscription is denied).
  const secret = `bench_${randomBytes(24).toString('hex')}`;
  await built.keyStore.loadAccounts(
    parseAccounts({
      users: [
        {
          id: 'bench-authorizer',
          premium: true,
          premium_until: null,
          keys: [{ key: secret, per_minute: 1_000_000_000, per_month: 1_000_000_000 }],
        },
      ],
    }),
  );
  const event: APIGatewayTokenAuthorizerEvent = {
    type: 'TOKEN',
    authorizationToken: `Bearer ${secret}`,
    methodArn: 'arn:aws:execute-api:us-east-1:123456789012:bench/prod/GET/api/v1/earn',
  };
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = -3; i < runs; i++) {
    const start = performance.now();
    const cpuAtStart = process.cpuUsage();
    const decision = await built.authorizer(event);
    if (decision.policyDocument.Statement[0]?.Effect !== 'Allow') throw new Error('the bench key was not allowed');
    if (i < 0) continue;
    cpu.push(cpuMsSince(cpuAtStart));
    wall.push(performance.now() - start);
  }
  return { runs, latency_ms: latencyOf(wall), cpu_ms: latencyOf(cpu) };
}

const cell = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 3 });

/** The Markdown table: a row per function, a column per size (p50 typical / worst, $ per million), the pick in bold. */
export function lambdaMemoryTable(memory: LambdaMemory): string {
  const cellOf = (f: FunctionMemory, s: MemoryRow | undefined) => {
    if (!s) return '–';
    const text = `${cell(s.p50_ms)} / ${cell(s.worst_p50_ms)} ms, $${cell(s.usd_per_million)}`;
    return s.memory_mb === f.pick_mb ? `**${text}**` : text;
  };
  const rows = memory.functions.map((f) => {
    const at = (mb: number) => f.sizes.find((s) => s.memory_mb === mb);
    const configured = (MEMORY_SIZES as readonly number[]).includes(f.configured_mb)
      ? cell(f.configured_mb)
      : `${cell(f.configured_mb)}: ${cellOf(f, at(f.configured_mb))}`;
    return `| ${f.fn} | ${cell(f.cpu_p50_ms)} / ${cell(f.worst_cpu_p50_ms)} | ${MEMORY_SIZES.map((mb) => cellOf(f, at(mb))).join(' | ')} | ${configured} | ${cell(f.pick_mb)} |`;
  });
  return [
    `| function | own CPU p50 ms, typical / worst kind | ${MEMORY_SIZES.map((mb) => `${cell(mb)} MB: p50 typical / worst, $ per million`).join(' | ')} | configured MB | pick MB |`,
    `|---|---|${MEMORY_SIZES.map(() => '---').join('|')}|---|---|`,
    ...rows,
  ].join('\n');
}
