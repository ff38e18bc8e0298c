/**
 * Time is an input (STYLE 27, CONTRACT §9): only shared/platform/clock.ts reads the process clock.
 * Code takes a clock it is given; a test chooses its instant and derives every other from it; a
 * duration is measured on the monotonic clock (`performance.now()`), never on the time of day.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const TREES = ['bin', 'lib', 'functions', 'shared', 'local', 'scripts', 'tools', 'client', 'test'];
/** The one reader of the process clock. */
const CLOCK = 'shared/platform/clock.ts';
/** `Date.now` called or passed, or a `Date` built without an instant. */
const READS_THE_CLOCK = /\bDate\.now\b|\bnew Date\(\s*\)/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|js|cjs|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Each line of code (comments left out) that reads the process clock, as `file:line`. */
function clockReads(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' '));
  return text
    .split('\n')
    .map((line, i) => [line.replace(/\/\/.*$/, ''), i + 1] as const)
    .filter(([code]) => READS_THE_CLOCK.test(code))
    .map(([, line]) => `${relative(ROOT, file)}:${line}`);
}

describe('one clock', () => {
  it('is read by shared/platform/clock.ts alone: no other source or test reads the time of day', () => {
    const files = TREES.flatMap((tree) => sources(join(ROOT, tree))).filter((f) => relative(ROOT, f) !== CLOCK);

    expect(files.length).toBeGreaterThan(300);
    expect(files.flatMap(clockReads)).toEqual([]);
  });

  it('finds a read of the clock in code, and not in a comment', () => {
    const lines = readFileSync(join(ROOT, CLOCK), 'utf8').split('\n');
    const reader = lines.findIndex((line) => line.startsWith('export const systemClock')) + 1;

    // The file's header comment names `Date`s too; only the line of code counts.
    expect(reader).toBeGreaterThan(1);
    expect(clockReads(join(ROOT, CLOCK))).toEqual([`${CLOCK}:${reader}`]);
  });
});
