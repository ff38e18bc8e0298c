/**
 * Writers a newcomer can read (issue 44 item 3): no function in the data layer (`shared/data`), the accounts (`shared/accounts`) or
 * the import (`shared/import`) spans more than 80 lines, nested functions counted within the one
 * that holds them. Parsed with the TypeScript compiler, so a long arrow function or method counts
 * as a declaration does; the offenders are listed by file, line, name and length.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

const ROOT = resolve(__dirname, '../../..');
const FOLDERS = ['shared/data', 'shared/accounts', 'shared/import'];
const MAX_LINES = 80;

const sources = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

/** A function's name as a reader finds it: its own, or the variable, property or method it is assigned to. */
function nameOf(node: ts.SignatureDeclaration, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name
  )
    return parent.name.getText(file);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return `(anonymous ${ts.SyntaxKind[node.kind]})`;
}

/** Every function of `text` longer than `max` lines: `file:line name (lines)`. */
function longFunctions(path: string, text: string, max = MAX_LINES): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push(`${path}:${first + 1} ${nameOf(node, file)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('function length in the data layer and the import', () => {
  it(`finds functions of every form past the limit (a known answer)`, () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
    const text = [
      `function declared() {\n${body(79)}\n}`,
      `const arrow = () => {\n${body(79)}\n};`,
      `class C {\n  method() {\n${body(3)}\n  }\n}`,
      `function short() {\n${body(78)}\n}`,
    ].join('\n');
    expect(longFunctions('t.ts', text)).toEqual(['t.ts:1 declared (81 lines)', 't.ts:82 arrow (81 lines)']);
    expect(longFunctions('t.ts', text, 4)).toContain('t.ts:164 method (5 lines)');
  });

  it(`has no function over ${MAX_LINES} lines in ${FOLDERS.join(' or ')}`, () => {
    const offenders = FOLDERS.flatMap((folder) =>
      sources(join(ROOT, folder)).flatMap((path) => longFunctions(relative(ROOT, path), readFileSync(path, 'utf8'))),
    );
    expect(offenders).toEqual([]);
  });
});
