/**
 * The bench report (tools/bench/report.ts): results.md prints the import cases and the traffic
 * mix, and the refresh cases are checked against the committed baseline (bench/baseline-writes.json)
 * at issue 21's ratios.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type CaseId, type ImportCase, readBaseline } from '../../../../tools/bench/imports';
import { type BenchResults, markdown, writeTargetChecks } from '../../../../tools/bench/report';

const committed = JSON.parse(
  readFileSync(resolve(__dirname, '../../../../bench/results.json'), 'utf8'),
) as BenchResults;

/** A measured case with `total` write units. */
const measured = (id: CaseId, total: number): ImportCase => ({
  id,
  name: `${id}. case`,
  items_written: 1,
  items_deleted: 0,
  write_units: total,
  delete_units: 0,
  total_units: total,
  items_read: 0,
  read_units: 0,
  ms: 1000,
  peak_heap_mb: 1,
});

describe('markdown', () => {
  it('prints every import case and the traffic mix', () => {
    const imports = [measured('b', 123_457), measured('c', 98_765)];
    const md = markdown({ ...committed, imports });
    const section = (title: string) => md.split(`## ${title}\n`)[1]?.split('\n## ')[0] ?? '';
    expect(section('Imports')).toContain('| b. case |');
    expect(section('Imports')).toContain('| 123457 |');
    expect(section('Imports')).toContain('| c. case |');
    for (const m of committed.mix!)
      expect(section('Traffic mix')).toContain(
        `| ${m.cache} | ${m.requests} | ${m.distinct_paths} | ${m.read_units_per_request} |`,
      );
  });
});

describe('writeTargetChecks', () => {
  const baseline = readBaseline('quick')!;
  const check = (id: CaseId, total: number, extra: Partial<ImportCase> = {}) =>
    writeTargetChecks([{ ...measured(id, total), ...extra }], 'quick').find((c) =>
      c.check.startsWith(`import (${id})`),
    )!;
  const passes = (id: CaseId, total: number, extra: Partial<ImportCase> = {}) => check(id, total, extra).pass;

  it('holds (b) to 1/8, (c) to 1/20, (d) to the refresh time alone and (e) to the quick baseline and the history journal’s', () => {
    expect(passes('b', Math.floor(baseline.b!.total / 8))).toBe(true);
    expect(passes('b', Math.floor(baseline.b!.total / 8) + 1)).toBe(false);
    expect(passes('c', Math.floor(baseline.c!.total / 20))).toBe(true);
    expect(passes('c', Math.floor(baseline.c!.total / 20) + 1)).toBe(false);
    expect(passes('d', 1)).toBe(true);
    expect(passes('d', 2)).toBe(false);
    expect(passes('e', baseline.e!.total + 1, { journal_units: 1 })).toBe(true);
    expect(passes('e', baseline.e!.total + 2, { journal_units: 1 })).toBe(false);
  });

  it('allows (e) the units its history journal measured, and says them', () => {
    expect(passes('e', baseline.e!.total + 5, { journal_units: 5 })).toBe(true);
    expect(passes('e', baseline.e!.total + 6, { journal_units: 5 })).toBe(false);
    expect(passes('e', baseline.e!.total + 3)).toBe(false);
    expect(check('e', baseline.e!.total + 5, { journal_units: 5 }).detail).toContain('journal: 5 units');
  });

  it('allows (e) what its pointer writes cost beyond the baseline’s 2 units, as measured', () => {
    expect(passes('e', baseline.e!.total + 4, { journal_units: 0, pointer_units: 6 })).toBe(true);
    expect(passes('e', baseline.e!.total + 5, { journal_units: 0, pointer_units: 6 })).toBe(false);
    // A pointer that cost less than the baseline's lends nothing to the rest.
    expect(passes('e', baseline.e!.total + 1, { journal_units: 0, pointer_units: 1 })).toBe(false);
  });

  it('allows (e) what its figures publish beside its history and pointer, up to 1.2 units an observation', () => {
    // The history as the baseline's (less its 2 pointer units), the pointer at the baseline's 2.
    const figures = (extra: number, history = baseline.e!.total - 2) => ({
      journal_units: 0,
      observations: 100,
      history_write_units: history,
      pointer_units: 2,
      total: history + 2 + extra,
    });
    const at = (extra: number, history?: number) => {
      const { total, ...rest } = figures(extra, history);
      return passes('e', total, rest);
    };
    expect(at(50)).toBe(true);
    expect(at(120)).toBe(true);
    expect(at(121)).toBe(false);
    // A history item more than the baseline's is not paid for by the figures' allowance.
    expect(at(50, baseline.e!.total - 1)).toBe(false);
  });

  it('fails a case that was not measured', () => {
    expect(writeTargetChecks([], 'quick').every((c) => !c.pass)).toBe(true);
  });
});
