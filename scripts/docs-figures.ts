/**
 * `npm run docs:figures [-- --check]`: the docs' marked figures and generated tables rewritten from
 * bench/results.json (tools/bench/doc-figures.ts); run it after `npm run bench`.
 */
import { resolve } from 'node:path';
import { updateDocFigures } from '../tools/bench/doc-figures';

process.exit(
  updateDocFigures(resolve(__dirname, '..'), process.argv.includes('--check'), (line) =>
    process.stderr.write(`${line}\n`),
  ),
);
