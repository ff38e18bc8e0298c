/**
 * The scale run's report (tools/bench/scale.ts): the first-after-publish checks the quick run
 * enforces, and the table of issue 31 with one column per factor.
 */

import { OFFER_FAMILIES, type OfferFamily } from '../../../../shared/model/offer-families';
import { type FirstAfterPublish, publishChecks, type ScaleResults, scaleTable } from '../../../../tools/bench/scale';

const latency = (p50: number) => ({ p50, p90: p50, p99: p50, max: p50 });

const publish = (overrides: Partial<FirstAfterPublish> = {}): FirstAfterPublish => ({
  kind: 'earn first page',
  path: '/api/v1/earn?limit=50',
  first_ms: latency(22),
  during_ms: latency(24),
  expired_ms: latency(60),
  warm_ms: latency(20),
  ratio: 1.1,
  during_ratio: 1.2,
  expired_ratio: 3,
  first_round_trips: 1,
  first_index_loads: 0,
  first_index_deltas: 0,
  first_read_units: 24,
  ahead_index_loads: 0,
  ahead_index_deltas: 1,
  expired_round_trips: 3,
  expired_index_loads: 0,
  expired_index_deltas: 1,
  ...overrides,
});

describe('publishChecks', () => {
  it('passes a read ahead that applied one delta and a first request that read neither, in 1 round trip; and after an expiry one delta in 3', () => {
    expect(publishChecks([publish()]).map((c) => c.pass)).toEqual([true, true]);
  });

  it('fails a read ahead that loaded the index or applied none, a first request that read one, a second round trip', () => {
    const checks = publishChecks([
      publish({ ahead_index_loads: 1, ahead_index_deltas: 0 }),
      publish({ ahead_index_deltas: 0 }),
      publish({ first_index_deltas: 1 }),
      publish({ first_index_loads: 1 }),
      publish({ first_round_trips: 2 }),
    ]);
    expect(checks.filter((_, i) => i % 2 === 0).map((c) => c.pass)).toEqual([false, false, false, false, false]);
    expect(checks[8].detail).toBe(
      'ahead: 0 load(s), 1 delta(s); the request: 0 load(s), 0 delta(s), 2 round trip(s), 24 read units',
    );
  });

  it('fails, after an expiry, an index load, no delta or a fourth round trip', () => {
    const checks = publishChecks([
      publish({ expired_index_loads: 1, expired_index_deltas: 0 }),
      publish({ expired_index_deltas: 0 }),
      publish({ expired_round_trips: 4 }),
    ]);
    expect(checks.map((c) => c.pass)).toEqual([true, false, true, false, true, false]);
    expect(checks[5].detail).toBe('0 load(s), 1 delta(s), 4 round trip(s)');
  });
});

describe('scaleTable', () => {
  const run = (factor: number) => ({
    factor,
    offers: Object.fromEntries(
      OFFER_FAMILIES.map((family) => [family, (family === 'earn' ? 100 : 10) * factor]),
    ) as Record<OfferFamily, number>,
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
    const counts = (factor: number) => OFFER_FAMILIES.map((f) => (f === 'earn' ? 100 : 10) * factor).join(' / ');
    expect(row('offers')).toBe(`| offers (${OFFER_FAMILIES.join(' / ')}) | ${counts(1)} | ${counts(5)} |`);
    expect(row('every index one currencies instance needs')).toContain('| 2 MB (3) of 128; 0 | 10 MB (15) of 128; 0 |');
    expect(row('(c) earn refresh, 5% of documents changed')).toContain('| 7000 | 35000 |');
    expect(row('busiest currency detail')).toContain('tether: 1 MB / 0.13 MB (status 200) | tether: 5 MB / 0.63 MB');
    expect(row('after a 5 % refresh is published, earn first page, warm instance with traffic')).toContain(
      '22 / 20 ms = ×2; the request beside the read ahead ×1.2; 1 RT, 24 RU, 0 load(s), 0 delta(s); ahead: 0 load(s), 1 delta(s) | 22 / 20 ms = ×10;',
    );
    expect(
      row('after a 5 % refresh is published, earn first page, warm instance whose cached pointer expired'),
    ).toContain('60 / 20 ms = ×3; 3 RT, 0 load(s), 1 delta(s) |');
    // A function the run did not measure, and a case it did not run, print a dash.
    expect(row('every index one offers instance needs')).toContain('| – | – |');
    expect(row('(b)')).toContain('| – | – |');
  });
});
