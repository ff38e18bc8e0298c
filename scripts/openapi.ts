/**
 * `npm run openapi` writes docs/openapi.json from the code (scripts/openapi/).
 * `npm run openapi:check` (`--check`) exits 1 when the committed file differs from what the code
 * generates; the npm script then lints the file with Redocly.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { buildOpenApiDocument, serializeDocument } from './openapi/document';
import { runMain } from './cli';

export const DOCUMENT_PATH = join(__dirname, '..', 'docs', 'openapi.json');

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const generated = serializeDocument(buildOpenApiDocument());
  const shown = relative(process.cwd(), DOCUMENT_PATH);
  if (!values.check) {
    writeFileSync(DOCUMENT_PATH, generated);
    process.stdout.write(`wrote ${shown} (${generated.length} bytes)\n`);
    return;
  }
  let committed = '';
  try {
    committed = readFileSync(DOCUMENT_PATH, 'utf8');
  } catch {
    // reported below as stale
  }
  if (committed !== generated) {
    throw new Error(`${shown} is stale: it differs from what the code generates. Run \`npm run openapi\` and commit the result.`);
  }
  process.stdout.write(`${shown} is up to date\n`);
}

runMain(main);
