/**
 * Every figure the docs quote from a bench run is marked (`<!-- bench imports.b.total_units -->14,443<!-- /bench -->`)
 * or sits in a generated table (`<!-- bench-table imports -->`), and each doc must equal its
 * rendering from bench/results.json (tools/bench/doc-figures.ts): a figure the next run moves fails
 * here until `npm run docs:figures` writes the new one. docs/performance.md also keeps to its
 * length and its sentences' (issue 44).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docFiles, figureAt, formatFigure, markersOf, renderDoc, TABLES } from '../../../tools/bench/doc-figures';
import type { BenchResults } from '../../../tools/bench/report';

const ROOT = join(__dirname, '../../..');
const results = JSON.parse(readFileSync(join(ROOT, 'bench/results.json'), 'utf8')) as BenchResults;
const docs = docFiles(ROOT).map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

/** The prose sentences of a Markdown text: no code, tables, headings or markers; a list item or paragraph ends one. */
function sentences(markdown: string): string[] {
  const prose = markdown
    .replace(/```[\s\S]*?```/g, '\n\n')
    .replace(/<!-- bench-table [\w-]+ -->[\s\S]*?<!-- \/bench-table -->/g, '\n\n')
    .replace(/<!-- \/?bench[^>]*-->/g, '')
    .split('\n')
    .filter((line) => !/^\s*(\||#)/.test(line))
    .join('\n');
  return prose
    .split(/\n\s*\n|\n(?=\s*(?:[-*]|\d+\.) )/)
    .map((block) => block.replace(/^\s*(?:[-*]|\d+\.) /, ''))
    .flatMap((block) => block.replace(/\s+/g, ' ').split(/(?<=[.!?])\s+(?=[A-Za-z`*([])/))
    .map((s) => s.trim())
    .filter((s) => /[A-Za-z]/.test(s));
}
const words = (sentence: string) => sentence.split(/\s+/).filter(Boolean).length;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

describe('figures the docs quote from bench/results.json', () => {
  it('are marked somewhere (the README quotes the import write units)', () => {
    const paths = docs.flatMap((d) => markersOf(d.text).figures.map((f) => f.path));
    expect(paths).toEqual(expect.arrayContaining(['imports.b.total_units', 'imports.c.total_units']));
  });

  it.each(docs.map((d) => [d.file, d] as const))('%s is its rendering from the results', (_, doc) => {
    const { text, missing } = renderDoc(doc.text, results);
    expect(missing).toEqual([]);
    expect(text).toBe(doc.text);
  });

  it('a marked figure the results moved is rewritten, and one they lack is named', () => {
    const b = figureAt(results, 'imports.b.total_units')!;
    const stale = `was <!-- bench imports.b.total_units -->${formatFigure(b + 1)}<!-- /bench --> and <!-- bench imports.nope.total_units -->7<!-- /bench -->`;
    const rendered = renderDoc(stale, results);
    expect(rendered.text).toContain(`<!-- bench imports.b.total_units -->${formatFigure(b)}<!-- /bench -->`);
    expect(rendered.missing).toEqual(['imports.nope.total_units']);
  });

  it('a generated table is rewritten from the results, and an unknown one is named', () => {
    const stale =
      '<!-- bench-table imports -->\n| old |\n<!-- /bench-table -->\n<!-- bench-table nope -->\nx\n<!-- /bench-table -->';
    const rendered = renderDoc(stale, results);
    expect(rendered.text).toContain(TABLES.imports(results));
    expect(rendered.text).not.toContain('| old |');
    expect(rendered.missing).toEqual(['table nope']);
  });

  it('a path reaches list elements by id, function or cache, and figures derived from the results', () => {
    expect(figureAt(results, 'imports.b.total_units')).toBe(results.imports?.find((c) => c.id === 'b')?.total_units);
    expect(figureAt(results, 'derived.request_kinds')).toBe(results.requests.length);
    expect(figureAt(results, 'mix.off.requests')).toBe(results.mix?.find((m) => m.cache === 'off')?.requests);
    expect(figureAt(results, 'imports.b.name')).toBeUndefined();
    expect(formatFigure(1000.5)).toBe('1,000.5');
  });
});

describe('docs/performance.md', () => {
  const performance = docs.find((d) => d.file === join('docs', 'performance.md'))!.text;

  it('is at most 350 lines', () => {
    expect(performance.split('\n').length).toBeLessThanOrEqual(350);
  });

  it('has sentences of at most 25 words on median', () => {
    const counted = sentences(performance).map(words);
    expect(counted.length).toBeGreaterThan(50);
    expect(median(counted)).toBeLessThanOrEqual(25);
    // The longest sentences stay readable too.
    expect(Math.max(...counted)).toBeLessThanOrEqual(60);
  });

  it('counts sentences as a reader would (the rule measures prose, not tables or code)', () => {
    const text =
      'One two three. Four five.\n\n| a | b |\n|---|---|\n\n```\nnot prose here\n```\n- An item, `code` too.\n';
    expect(sentences(text).map(words)).toEqual([3, 2, 4]);
  });
});
