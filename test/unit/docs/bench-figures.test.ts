/**
 * Every figure the docs quote from a bench run is marked (`<!-- bench imports.b.total_units -->14,443<!-- /bench -->`)
 * and checked against bench/results.json, so a figure the next run moves fails here until the
 * docs say the new one. A path names keys of the results, a list element by its `id`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const results = JSON.parse(readFileSync(join(ROOT, 'bench/results.json'), 'utf8')) as unknown;
const MARKER = /<!-- bench ([\w.]+) -->([^<]*)<!-- \/bench -->/g;

/** The value at a dotted path of the results: object keys, or a list element by its `id`. */
function valueAt(path: string): unknown {
  let at: unknown = results;
  for (const part of path.split('.')) {
    if (Array.isArray(at)) at = at.find((e) => (e as { id?: unknown }).id === part);
    else at = (at as Record<string, unknown> | undefined)?.[part];
  }
  return at;
}

/** A quoted figure as a number: thousands separators dropped. */
const figure = (text: string) => Number(text.trim().replaceAll(',', ''));

const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];
const marked = docs.flatMap((file) =>
  [...readFileSync(join(ROOT, file), 'utf8').matchAll(MARKER)].map((m) => ({ file, path: m[1], quoted: m[2] })),
);

describe('figures the docs quote from bench/results.json', () => {
  it('are marked somewhere (the README quotes the import write units)', () => {
    expect(marked.map((m) => m.path)).toEqual(
      expect.arrayContaining(['imports.b.total_units', 'imports.c.total_units']),
    );
  });

  it.each(marked.map((m) => [`${m.file}: ${m.path}`, m] as const))('%s is the value of the results', (_, m) => {
    expect(typeof valueAt(m.path)).toBe('number');
    expect(figure(m.quoted)).toBe(valueAt(m.path));
  });

  it('a path names a number of the results, a list element by its id', () => {
    expect(valueAt('imports.b.total_units')).toEqual(expect.any(Number));
    expect(valueAt('imports.nope.total_units')).toBeUndefined();
  });
});
