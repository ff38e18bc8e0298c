/**
 * The docs' bench figures, rendered from bench/results.json (`npm run docs:figures`): a quoted
 * figure sits in a marker, `<!-- bench imports.b.total_units -->14,443<!-- /bench -->`, and a table
 * between `<!-- bench-table NAME -->` and `<!-- /bench-table -->` is one of TABLES. Rendering a
 * doc rewrites both from the results; test/unit/docs/bench-figures.test.ts fails while a doc
 * differs from its rendering, so a figure the next run moves cannot stay stale.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImportCase } from './imports';
import { lambdaMemoryTable } from './lambda-memory';
import type { KindResult } from './measure';
import type { BenchResults } from './report';

const FIGURE = /<!-- bench ([\w.-]+) -->([^<]*)<!-- \/bench -->/g;
const TABLE = /<!-- bench-table ([\w-]+) -->\n[\s\S]*?<!-- \/bench-table -->/g;

/** The latency target under the model (tools/bench/model-pass.ts). */
const MODEL_TARGET = 1.2;

/** @internal (exported for its tests) Every Markdown file that may quote a figure: the README and docs/ (ADRs record, they do not quote a run). */
export function docFiles(root: string): string[] {
  return [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => join('docs', f)),
  ];
}

/** DynamoDB on-demand prices the cost table uses (us-east-1, DynamoDB pricing page, from 2024-11-01). */
const DYNAMO_USD_PER_MILLION = { write: 0.625, read: 0.125 } as const;

const byId = (cases: ImportCase[] | undefined, id: string) => cases?.find((c) => c.id === id);

/** Figures computed from the results, quoted as `derived.NAME`. */
function derived(results: BenchResults): Record<string, number | undefined> {
  const model = results.latency_model ?? [];
  const ratios = model.map((m) => m.ratio).filter((r): r is number => r !== null);
  const cached = model.map((m) => m.cached_ratio).filter((r): r is number => r !== null);
  const dynalite = results.requests.map((r) => r.overhead_ratio).filter((r): r is number => r !== null);
  const worstRead = results.requests.reduce((max, r) => Math.max(max, r.dynamo.read_capacity), 0);
  return {
    request_kinds: results.requests.length,
    model_kinds: model.length || undefined,
    model_within: model.length ? ratios.filter((r) => r <= MODEL_TARGET).length : undefined,
    model_ratio_max: ratios.length ? Math.max(...ratios) : undefined,
    model_cached_ratio_max: cached.length ? Math.max(...cached) : undefined,
    dynalite_overhead_min: dynalite.length ? Math.min(...dynalite) : undefined,
    dynalite_overhead_max: dynalite.length ? Math.max(...dynalite) : undefined,
    worst_read_units: worstRead,
    max_round_trips: Math.max(...results.requests.map((r) => r.dynamo.round_trips_max)),
  };
}

/** What names an element of a list of the results: an import case, a function, the mix's cache, an index's family. */
const LIST_KEYS = ['id', 'fn', 'cache', 'family'] as const;

/** @internal (exported for its tests) The number at a dotted path of the results (a list element by one of LIST_KEYS), or of `derived`. */
export function figureAt(results: BenchResults, path: string): number | undefined {
  let at: unknown = { ...results, derived: derived(results) };
  for (const part of path.split('.')) {
    if (Array.isArray(at)) at = at.find((e) => LIST_KEYS.some((key) => (e as Record<string, unknown>)[key] === part));
    else at = (at as Record<string, unknown> | undefined)?.[part];
  }
  return typeof at === 'number' ? at : undefined;
}

/** @internal (exported for its tests) A figure as the docs write it: thousands separated, at most three decimals. */
export const formatFigure = (value: number) => value.toLocaleString('en-US', { maximumFractionDigits: 3 });

const cell = (value: unknown) =>
  value === null || value === undefined ? '–' : typeof value === 'number' ? formatFigure(value) : String(value);
const row = (cells: unknown[]) => `| ${cells.map(cell).join(' | ')} |`;
const table = (header: string[], rows: unknown[][]) =>
  [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');
const range = (values: number[]) =>
  values.length === 0
    ? '–'
    : Math.min(...values) === Math.max(...values)
      ? `×${formatFigure(values[0])}`
      : `×${formatFigure(Math.min(...values))}–×${formatFigure(Math.max(...values))}`;
/** What a table says while bench/results.json lacks its figures: the run that adds them. */
const absent = (what: string) =>
  `bench/results.json has no ${what} yet: a full \`npm run bench\` measures them, then \`npm run docs:figures\` writes them here.`;

const groups = (requests: KindResult[]) => [...new Set(requests.map((r) => r.group))];

/** @internal (exported for its tests) The generated tables, by the name their marker gives. */
export const TABLES: Record<string, (results: BenchResults) => string> = {
  run: (r) =>
    table(
      ['run', 'dataset', 'time', 'machine', 'load average (start, end)'],
      [
        [
          `\`npm run bench${r.mode === 'quick' ? ' -- --quick' : ''}\` of ${r.generated_at.slice(0, 16).replace('T', ' ')} UTC`,
          r.mode === 'quick' ? 'QUICK_BENCH' : 'BENCH',
          `${formatFigure(r.runtime_s)} s`,
          `${r.machine.cpus} × ${r.machine.cpu_model}, Node ${r.machine.node}`,
          `${r.machine.load_average_1m.start}, ${r.machine.load_average_1m.end}`,
        ],
      ],
    ),
  ceilings: (r) =>
    table(
      ['request group', 'kinds', 'most read units (kind)', 'round trips, most', 'own CPU p50 ms, most'],
      groups(r.requests).map((group) => {
        const kinds = r.requests.filter((k) => k.group === group);
        const worst = kinds.reduce((a, b) => (b.dynamo.read_capacity > a.dynamo.read_capacity ? b : a));
        const cpu = kinds.map((k) => k.cpu_ms?.p50).filter((c): c is number => typeof c === 'number');
        return [
          group,
          kinds.length,
          `${formatFigure(worst.dynamo.read_capacity)} (${worst.kind})`,
          Math.max(...kinds.map((k) => k.dynamo.round_trips_max)),
          cpu.length ? Math.max(...cpu) : undefined,
        ];
      }),
    ),
  'latency-model': (r) => {
    if (!r.latency_model?.length) return absent('latency figures under the model');
    const group = new Map(r.requests.map((k) => [k.kind, k.group]));
    const model = r.latency_model;
    return table(
      ['request group', 'kinds', `within ×${MODEL_TARGET}`, 'p50 / floor, cache off', 'cache on'],
      [...new Set(model.map((m) => group.get(m.kind) ?? 'other'))].map((g) => {
        const kinds = model.filter((m) => (group.get(m.kind) ?? 'other') === g);
        const ratios = kinds.map((m) => m.ratio).filter((x): x is number => x !== null);
        return [
          g,
          kinds.length,
          ratios.filter((x) => x <= MODEL_TARGET).length,
          range(ratios),
          range(kinds.map((m) => m.cached_ratio).filter((x): x is number => x !== null)),
        ];
      }),
    );
  },
  'cpu-kinds': (r) => {
    const kinds = r.requests.filter((k) => typeof k.cpu_ms?.p50 === 'number');
    if (kinds.length === 0) return absent('CPU figures per request kind');
    const model = new Map((r.latency_model ?? []).map((m) => [m.kind, m]));
    return table(
      ['kind (the six with the most own CPU)', 'own CPU p50 ms', 'p50 ms, model', 'floor p50 ms', 'ratio'],
      [...kinds]
        .sort((a, b) => (b.cpu_ms.p50 ?? 0) - (a.cpu_ms.p50 ?? 0))
        .slice(0, 6)
        .map((k) => {
          const m = model.get(k.kind);
          return [
            k.kind,
            k.cpu_ms.p50,
            m?.request_ms.p50,
            m?.floor_ms.p50,
            m?.ratio == null ? undefined : `×${m.ratio}`,
          ];
        }),
    );
  },
  memory: (r) => (r.lambda_memory ? lambdaMemoryTable(r.lambda_memory) : absent('CPU figures per function')),
  'index-loads': (r) =>
    r.index_loads
      ? table(
          ['family', 'entries', 'segments', 'read units', 'load p50 ms', 'p99 ms'],
          r.index_loads.loads.map((l) => [l.family, l.entries, l.segments, l.read_units, l.load_ms.p50, l.load_ms.p99]),
        )
      : absent('index load figures'),
  'warm-loads': (r) =>
    r.warm_loads
      ? table(
          ['function', 'memory MB', 'served budget MB', 'kinds', 'index loads, 1st pass', '2nd pass', 'heap MB'],
          r.warm_loads.map((w) => [
            w.fn,
            w.memory_mb,
            w.budget_mb,
            w.requests,
            w.first_pass_loads,
            w.second_pass_loads,
            w.heap_mb,
          ]),
        )
      : absent('warm instance figures'),
  imports: (r) =>
    r.imports
      ? table(
          ['case', 'items written / deleted', 'write + delete units = total', 'read units', 's'],
          r.imports.map((c) => [
            c.name,
            `${formatFigure(c.items_written)} / ${formatFigure(c.items_deleted)}`,
            `${formatFigure(c.write_units)} + ${formatFigure(c.delete_units)} = **${formatFigure(c.total_units)}**`,
            c.read_units,
            Math.round(c.ms / 100) / 10,
          ]),
        )
      : absent('import figures'),
  bundles: (r) =>
    table(
      ['bundle', 'KB', 'gzip KB', 'size × document client', 'init ms', 'first answer ms'],
      Object.entries(r.bundles).map(([name, b]) => [
        name,
        Math.round(b.bytes / 102.4) / 10,
        Math.round(b.gzip_bytes / 102.4) / 10,
        b.ratio_to_baseline === null ? undefined : `×${b.ratio_to_baseline}`,
        r.init_ms?.[name]?.median,
        r.first_answer_ms?.[name]?.median,
      ]),
    ),
  throughput: (r) =>
    r.throughput
      ? table(
          ['keys', 'req/s', 'p50 ms', 'p99 ms', 'CPU: gateway and handlers', 'CPU: embedded DynamoDB'],
          [r.throughput.one_key, r.throughput.key_per_client].map((t) => [
            t.keys,
            t.requests_per_s,
            t.latency_ms.p50,
            t.latency_ms.p99,
            t.cpu_cores.gateway_and_handlers,
            t.cpu_cores.embedded_dynamodb,
          ]),
        )
      : absent('throughput figures'),
  mix: (r) =>
    r.mix
      ? table(
          ['block cache', 'requests', 'read units a request', 'hit rate', 'p50 ms', 'p99 ms'],
          r.mix.map((m) => [
            m.cache,
            m.requests,
            m.read_units_per_request,
            m.cache_hit_rate,
            m.latency_ms.p50,
            m.latency_ms.p99,
          ]),
        )
      : absent('traffic mix figures'),
  refusals: (r) =>
    r.refusals
      ? table(
          ['requests', 'status', 'DynamoDB calls each', 'read units each', 'write units each'],
          [
            ...r.refusals.sequence
              .reduce<{ n: number; c: (typeof r.refusals.sequence)[number] }[]>((runs, c) => {
                const last = runs.at(-1);
                if (last && JSON.stringify(last.c) === JSON.stringify(c)) last.n++;
                else runs.push({ n: 1, c });
                return runs;
              }, [])
              .map(({ n, c }) => [n, c.status, c.calls, c.read_capacity, c.write_capacity]),
          ],
        )
      : absent('refusal figures'),
  'dynamo-cost': (r) => {
    const cases: [string, ImportCase | undefined, number][] = [
      ['earn refresh, every document changed (b), every 5 minutes', byId(r.imports, 'b'), 288],
      ['earn refresh, every document changed (b), hourly', byId(r.imports, 'b'), 24],
      ['earn refresh, 5 % changed (c), every 5 minutes', byId(r.imports, 'c'), 288],
      ['nothing changed (d), every 5 minutes', byId(r.imports, 'd'), 288],
      ['an hour of history for every earn and borrow offer (e), hourly', byId(r.imports, 'e'), 24],
    ];
    const rows = cases
      .filter((c): c is [string, ImportCase, number] => c[1] !== undefined)
      .map(([what, c, runs]) => {
        const day =
          (runs * (c.total_units * DYNAMO_USD_PER_MILLION.write + c.read_units * DYNAMO_USD_PER_MILLION.read)) / 1e6;
        return [
          what,
          `${formatFigure(c.total_units)} WU, ${formatFigure(c.read_units)} RU`,
          runs,
          Math.round(day * 100) / 100,
          Math.round(day * 30 * 10) / 10,
        ];
      });
    return rows.length
      ? table(['what', 'a run', 'runs a day', '$ a day', '$ per 30 days'], rows)
      : absent('import figures');
  },
};

interface Rendered {
  text: string;
  /** Marked paths the results hold no number at, and table names no renderer knows. */
  missing: string[];
}

/** @internal (exported for its tests) A doc with every marked figure and generated table rendered from the results. */
export function renderDoc(text: string, results: BenchResults): Rendered {
  const missing: string[] = [];
  const figures = text.replace(FIGURE, (whole, path: string) => {
    const value = figureAt(results, path);
    if (value === undefined) {
      missing.push(path);
      return whole;
    }
    return `<!-- bench ${path} -->${formatFigure(value)}<!-- /bench -->`;
  });
  const tables = figures.replace(TABLE, (whole, name: string) => {
    const render = TABLES[name];
    if (!render) {
      missing.push(`table ${name}`);
      return whole;
    }
    return `<!-- bench-table ${name} -->\n${render(results)}\n<!-- /bench-table -->`;
  });
  return { text: tables, missing };
}

/** @internal (exported for its tests) Every marker of a doc: the figures' paths and quoted text, and the tables' names. */
export function markersOf(text: string): { figures: { path: string; quoted: string }[]; tables: string[] } {
  return {
    figures: [...text.matchAll(FIGURE)].map((m) => ({ path: m[1], quoted: m[2] })),
    tables: [...text.matchAll(TABLE)].map((m) => m[1]),
  };
}

/**
 * `npm run docs:figures [-- --check]`: every doc rendered from bench/results.json and written back
 * (with `--check`, only compared). Its exit status: 1 when a marker names what the results lack, or
 * (`--check`) when a doc differs from its rendering.
 */
export function updateDocFigures(root: string, check: boolean, log: (line: string) => void): number {
  const results = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) as BenchResults;
  let status = 0;
  for (const file of docFiles(root)) {
    const path = join(root, file);
    const text = readFileSync(path, 'utf8');
    const { text: rendered, missing } = renderDoc(text, results);
    if (missing.length > 0) {
      log(`${file}: bench/results.json has nothing at ${missing.join(', ')}`);
      status = 1;
    }
    if (rendered === text) continue;
    if (check) {
      log(`${file}: differs from bench/results.json (npm run docs:figures rewrites it)`);
      status = 1;
    } else {
      writeFileSync(path, rendered);
      log(`${file}: rewritten from bench/results.json`);
    }
  }
  return status;
}
