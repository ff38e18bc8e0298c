import { resolveStageConfig } from '../../../../lib/config';
import {
  type CpuSample,
  cpuSamples,
  FULL_VCPU_MB,
  lambdaMemory,
  lambdaMemoryTable,
  p50AtMemory,
  usdPerMillion,
} from '../../../../tools/bench/lambda-memory';
import type { ModelResult } from '../../../../tools/bench/latency-model';
import type { KindResult } from '../../../../tools/bench/measure';

const sample = (fn: CpuSample['fn'], wall: number, cpu: number, kind = `${fn} kind`): CpuSample => ({
  kind,
  fn,
  base: 'embedded DynamoDB',
  wall_p50_ms: wall,
  cpu_p50_ms: cpu,
});

describe("a function's p50 and cost at a memory size", () => {
  it('stretches the CPU by the vCPU share below 1,769 MB and leaves the wait alone', () => {
    expect(p50AtMemory({ wall_p50_ms: 10, cpu_p50_ms: 2 }, FULL_VCPU_MB)).toBe(10);
    expect(p50AtMemory({ wall_p50_ms: 10, cpu_p50_ms: 2 }, 512)).toBeCloseTo(10 + 2 * (1769 / 512 - 1), 9);
    // Above one vCPU a single-threaded request is no faster.
    expect(p50AtMemory({ wall_p50_ms: 10, cpu_p50_ms: 2 }, 3538)).toBe(10);
  });

  it('bills a million requests by the started ms at the arm64 price, plus the request price', () => {
    expect(usdPerMillion(10, 1024)).toBeCloseTo(0.133334 + 0.2, 9);
    expect(usdPerMillion(9.2, 512)).toBeCloseTo(0.5 * 0.01 * 13.3334 + 0.2, 9);
  });

  it('picks the cheapest size within ×1.2 of the fastest p50', () => {
    const memory = lambdaMemory([sample('offers', 10, 1), sample('platforms', 5, 0.2)]);
    const offers = memory.functions.find((f) => f.fn === 'offers')!;
    // 512 MB: 12.46 ms, over 1.2 × 10; 1,024 MB: 10.73 ms for $0.347, 1,769 MB: 10 ms for $0.430.
    expect(offers.sizes.map((s) => s.memory_mb)).toEqual([512, 1024, 1769]);
    expect(offers.pick_mb).toBe(1024);
    expect(memory.functions.find((f) => f.fn === 'platforms')!.pick_mb).toBe(512);
    expect(lambdaMemoryTable(memory)).toContain(
      `| offers | 1 / 1 | 12.46 / 12.46 ms, $0.287 | **10.73 / 10.73 ms, $0.347** | 10 / 10 ms, $0.43 | ${offers.configured_mb.toLocaleString('en-US')} | 1,024 |`,
    );
  });

  it("tabulates a function's configured size beside the three, and its typical and worst kinds", () => {
    const memory = lambdaMemory([
      sample('usage', 4, 0.1),
      sample('currencies', 10, 1, 'a'),
      sample('currencies', 20, 30, 'b'),
      sample('currencies', 12, 2, 'c'),
    ]);
    // The configured size (lib/config.ts) beside 512, 1,024 and 1,769 MB.
    const usage = memory.functions.find((f) => f.fn === 'usage')!;
    expect(usage.configured_mb).toBe(resolveStageConfig('dev').memorySizes.usage);
    expect(usage.sizes.map((s) => s.memory_mb)).toEqual(
      [...new Set([usage.configured_mb, 512, 1024, 1769])].sort((a, b) => a - b),
    );
    const currencies = memory.functions.find((f) => f.fn === 'currencies')!;
    expect(currencies).toMatchObject({ kinds: 3, cpu_p50_ms: 2, worst_kind: 'b', worst_cpu_p50_ms: 30 });
    expect(currencies.sizes.at(-1)).toMatchObject({ memory_mb: 1769, p50_ms: 12, worst_p50_ms: 20 });
  });
});

describe("the kinds' samples", () => {
  const kind = (name: string, status: number, cpu?: number) =>
    ({
      kind: name,
      fn: 'offers',
      status,
      latency_ms: { p50: 9, p99: 12 },
      cpu_ms: cpu === undefined ? undefined : { p50: cpu, p99: cpu },
    }) as unknown as KindResult;
  const modelled = {
    kind: 'modelled',
    request_ms: { p50: 20, p99: 30 },
    request_cpu_ms: { p50: 3, p99: 4 },
  } as ModelResult;

  it('take the latency model where it ran, else the embedded DynamoDB; no refusal, no run without CPU', () => {
    expect(
      cpuSamples([kind('modelled', 200, 2), kind('plain', 200, 1), kind('gone', 404, 1), kind('old', 200)], [modelled]),
    ).toEqual([
      { kind: 'modelled', fn: 'offers', base: 'latency model', wall_p50_ms: 20, cpu_p50_ms: 3 },
      { kind: 'plain', fn: 'offers', base: 'embedded DynamoDB', wall_p50_ms: 9, cpu_p50_ms: 1 },
    ]);
  });
});
