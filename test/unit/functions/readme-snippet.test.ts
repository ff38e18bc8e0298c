/**
 * The README's "Unit-testing a handler" snippet is an excerpt of handlers.test.ts, which compiles and
 * runs: every line of the snippet must be a line of that file, in the same order, so a copied snippet
 * never calls what no longer exists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const source = readFileSync(join(ROOT, 'test/unit/functions/handlers.test.ts'), 'utf8').split('\n');

function snippet(): string[] {
  const section = readme.slice(readme.indexOf('### Unit-testing a handler'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README.md: no ts block under "Unit-testing a handler"');
  return block[1].split('\n').filter((line) => line.trim() !== '');
}

it('every line of the README handler snippet is a line of handlers.test.ts, in order', () => {
  const lines = snippet();
  const lost: string[] = [];
  let at = 0;
  for (const line of lines) {
    // A snippet at top level may be indented one level less than the file's describe block.
    const found = source.findIndex((s, i) => i >= at && (s === line || s === `  ${line}`));
    if (found < 0) lost.push(line);
    else at = found + 1;
  }

  expect(lines.length).toBeGreaterThan(10);
  expect(lost).toEqual([]);
});
