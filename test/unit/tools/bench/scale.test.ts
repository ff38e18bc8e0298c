/**
 * The scale run's report (tools/bench/scale.ts): the first-after-publish checks the quick run
 * enforces, and the table of issue 31 with one column per factor.
 */
import { type FirstAfterPublish, publishChecks, type ScaleResults, scaleTable } from '../../../../tools/bench/scale';

const latency = (p50: number) => ({ p50, p90: p50, p99: p50, max: p50 });

const publish = (overrides: Partial<FirstAfterPublish> = {}): FirstAfterPublish => ({
  kind: 'earn first page',
  path: '/api/v1/earn?limit=50',
  first_ms: latency(60),
  warm_ms: latency(20),
  ratio: 3,
  first_round_trips: 2,
  first_index_loads: 0,
  first_index_deltas: 1,
  first_read_units: 30,
  ...overrides,
});

describe('publishChecks', () => {
  it('passes one delta applied, no index load, whose reads take 2 round trips', () => {
    expect(publishChecks([publish()]).map((c) => c.pass)).toEqual([true]);
  });

  it('fails a third round trip, an index load (the delta was not applied) or no delta', () => {
    const checks = publishChecks([
      publish({ first_round_trips: 3 }),
      publish({ first_index_loads: 1, first_index_deltas: 0 }),
      publish({ first_index_loads: 1 }),
      publish({ first_index_deltas: 0 }),
    ]);
    expect(checks.map((c) => c.pass)).toEqual([false, false, false, false]);
    expect(checks[0].detail).toBe('0 load(s), 1 delta(s), 3 round trip(s), 30 read units');
  });
});

describe('scaleTable', () => {
  const run = (factor: number) => ({
    factor,
    offers: { earn: 100 * factor, borrow: 10 * factor, collateral: 10 * factor },
    import_s: 2 * factor,
    warm: [
      {
        fn: 'currencies' as const,
        memory_mb: 512,
        budget_mb: 128,
        requests: 1,
        first_pass_loads: 4,
        second_pass_loads: 0,
        estimate_mb: 3 * factor,
        heap_mb: 2 * factor,
      },
    ],
    busiest: {
      currency: 'tether',
      status: 200,
      json_bytes: factor * 2 ** 20,
      gzip_bytes: factor * 2 ** 17,
      payload_bytes_without_gzip: factor * 1.1 * 2 ** 20,
      read_units_warm: 150 * factor,
    },
    earn_page_read_units_warm: 24,
    imports: [
      {
        id: 'c' as const,
        name: 'c. earn refresh, 5% of documents changed',
        items_written: 1,
        items_deleted: 1,
        write_units: 1,
        delete_units: 1,
        total_units: 7_000 * factor,
        items_read: 0,
        read_units: 0,
        ms: 1,
        peak_heap_mb: 1,
      },
    ],
    first_after_publish: [publish({ ratio: 2 * factor })],
  });
  const results: ScaleResults = { base: 'BENCH', factors: [1, 5], runs: [run(1), run(5)] };
  const rows = scaleTable(results).split('\n');

  it('has a column per factor', () => {
    expect(rows[0]).toBe('| | 1× | 5× |');
    expect(rows[1]).toBe('|---|---|---|');
  });

  it("gives each factor's figures in its column", () => {
    const row = (label: string) => rows.find((r) => r.startsWith(`| ${label}`));
    expect(row('offers')).toBe('| offers (earn / borrow / collateral) | 100 / 10 / 10 | 500 / 50 / 50 |');
    expect(row('every index one currencies instance needs')).toContain('| 2 MB (3) of 128; 0 | 10 MB (15) of 128; 0 |');
    expect(row('(c) earn refresh, 5% of documents changed')).toContain('| 7000 | 35000 |');
    expect(row('busiest currency detail')).toContain('tether: 1 MB / 0.13 MB (status 200) | tether: 5 MB / 0.63 MB');
    expect(row('first request after a 5 % refresh is published, earn first page')).toContain(
      '60 / 20 ms = ×2; 2 RT, 30 RU, 0 load(s), 1 delta(s) | 60 / 20 ms = ×10;',
    );
    // A function the run did not measure, and a case it did not run, print a dash.
    expect(row('every index one offers instance needs')).toContain('| – | – |');
    expect(row('(b)')).toContain('| – | – |');
  });
});
