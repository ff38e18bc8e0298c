/**
 * `npm run openapi` writes docs/openapi.json from the code (tools/openapi/), and the client's
 * types (client/api-types.ts) from that description.
 * `npm run openapi:check` (`--check`) exits 1 when a committed file differs from what the code
 * generates; the npm script then lints the description with Redocly.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { runMain } from '../tools/cli';
import { CLIENT_TYPES_PATH, generateClientTypes } from '../tools/openapi/client-types';
import { buildOpenApiDocument, serializeDocument } from '../tools/openapi/document';

export const DOCUMENT_PATH = join(__dirname, '..', 'docs', 'openapi.json');

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const document = serializeDocument(buildOpenApiDocument());
  const outputs = [
    { path: DOCUMENT_PATH, content: document },
    { path: CLIENT_TYPES_PATH, content: await generateClientTypes(document) },
  ];
  for (const { path, content } of outputs) {
    const shown = relative(process.cwd(), path);
    if (!values.check) {
      writeFileSync(path, content);
      process.stdout.write(`wrote ${shown} (${content.length} bytes)\n`);
      continue;
    }
    let committed = '';
    try {
      committed = readFileSync(path, 'utf8');
    } catch {
      // reported below as stale
    }
    if (committed !== content) {
      throw new Error(
        `${shown} is stale: it differs from what the code generates. Run \`npm run openapi\` and commit the result.`,
      );
    }
    process.stdout.write(`${shown} is up to date\n`);
  }
}

runMain(main);
