/**
 * Throughput of the local stack for one hot endpoint: the local gateway (local/gateway.ts)
 * with the real authorizer (its decisions cached, as API Gateway does) and the real family
 * handlers, over the benchmark's table, loaded by `concurrency` keep-alive clients on the loopback
 * for a fixed duration.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type Authorizer, createGateway, type FamilyHandler } from '../../local/gateway';
import type { KeyStore } from '../../shared/accounts/key-store';
import type { FunctionName } from '../../shared/http/routes';
import { parseAccounts } from '../../shared/import/dataset';
import { systemClock } from '../../shared/platform/clock';
import { type Latency, latencyOf, round } from './stats';

export interface ThroughputReport {
  endpoint: string;
  concurrency: number;
  /** API keys the clients share (each key's quota counter is one item every request updates). */
  keys: number;
  duration_s: number;
  requests: number;
  requests_per_s: number | null;
  statuses: Record<string, number>;
  latency_ms: Latency & { p90: number | null };
  /** CPU used during the run, in cores (1 = one core busy all along): where the bottleneck is. */
  cpu_cores: { gateway_and_handlers: number | null; embedded_dynamodb: number | null };
  note: string;
}

export interface ThroughputOptions {
  /** Where the run's keys are loaded. */
  keyStore: KeyStore;
  handlers: Record<FunctionName, FamilyHandler>;
  authorizer: Authorizer;
  path: string;
  concurrency: number;
  /** Distinct API keys, used round-robin by the clients. */
  keys: number;
  durationMs: number;
  /** The embedded DynamoDB's process, when it runs in one of its own. */
  dynamoPid?: number;
}

/** CPU seconds a process has used (Linux /proc), or undefined elsewhere. */
function cpuSecondsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

function get(agent: Agent, url: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent, headers: { Authorization: `Bearer ${key}`, 'Accept-Encoding': 'gzip' } },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}

export async function measureThroughput(options: ThroughputOptions): Promise<ThroughputReport> {
  // Premium keys with limits far above what the run can spend, so no request is refused.
  const keys = Array.from({ length: options.keys }, () => `bench_${randomBytes(24).toString('hex')}`);
  const accounts = parseAccounts({
    users: [
      {
        id: 'bench',
        premium: true,
        premium_until: null,
        keys: keys.map((key) => ({ key, per_minute: 1_000_000_000, per_month: 1_000_000_000 })),
      },
    ],
  });
  await options.keyStore.loadAccounts(accounts);

  const server = createGateway({
    handlers: options.handlers,
    authorizer: options.authorizer,
    clock: systemClock,
    authCacheTtlMs: 300_000,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${options.path}`;
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  try {
    for (const key of keys) await get(agent, url, key); // the authorizer's decisions are cached from here on
    const started = performance.now();
    const ownCpu = process.cpuUsage();
    const dynamoCpu = options.dynamoPid === undefined ? undefined : cpuSecondsOf(options.dynamoPid);
    const deadline = started + options.durationMs;
    const worker = async (_: unknown, i: number) => {
      const key = keys[i % keys.length];
      while (performance.now() < deadline) {
        const t = performance.now();
        const status = await get(agent, url, key).catch(() => 0);
        latencies.push(performance.now() - t);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    const elapsed = (performance.now() - started) / 1000;
    const own = process.cpuUsage(ownCpu);
    const dynamoAfter = options.dynamoPid === undefined ? undefined : cpuSecondsOf(options.dynamoPid);
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      endpoint: options.path,
      concurrency: options.concurrency,
      keys: keys.length,
      duration_s: round(elapsed) ?? 0,
      requests: latencies.length,
      requests_per_s: round(latencies.length / elapsed, 1),
      statuses,
      latency_ms: { ...latencyOf(latencies), p90: round(sorted[Math.max(0, Math.ceil(0.9 * sorted.length) - 1)]) },
      cpu_cores: {
        gateway_and_handlers: round((own.user + own.system) / 1e6 / elapsed),
        embedded_dynamodb:
          dynamoCpu === undefined || dynamoAfter === undefined ? null : round((dynamoAfter - dynamoCpu) / elapsed),
      },
      note: 'gateway, authorizer (cached) and handlers in one Node process; the embedded DynamoDB in another; loopback, gzip accepted',
    };
  } finally {
    agent.destroy();
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
