/**
 * The CSV columns docs/api.md lists ("CSV") are the ones the service writes: the table is the one
 * the description's overview is generated with (tools/openapi/descriptions.ts), from the
 * resource schemas, so a field added to a resource that is not in the docs fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { csvColumns } from '../../../../tools/openapi/descriptions';

it('docs/api.md lists the CSV columns of every family as the service writes them', () => {
  const apiDoc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'api.md'), 'utf8');
  expect(apiDoc).toContain(csvColumns());
});
