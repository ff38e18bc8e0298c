/**
 * Every parameter, header and response of docs/openapi.json has an example, and every example is
 * valid against its schema (ajv, JSON Schema 2020-12, the document's own `$ref`s resolved), so
 * that tools that generate requests and tests from the description can use them. Redocly checks
 * media-type and parameter examples too (`npm run openapi:check`); this also covers headers and
 * says which one is missing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

const doc = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'openapi.json'), 'utf8')) as Json;
const ID = 'https://examples.test/openapi.json';
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema({ $id: ID, components: { schemas: doc.components.schemas } });

const deref = (node: Json): Json =>
  node?.$ref
    ? (node.$ref as string)
        .slice(2)
        .split('/')
        .reduce((n: Json, part: string) => n[part.replace(/~1/g, '/')], doc)
    : node;
const rebase = (schema: Json): Json => JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${ID}#/`));

/** One validator per distinct schema: most places share theirs (a header's, a list's body), and
 * compiling is what costs. */
const validators = new Map<string, ValidateFunction>();
function problemsOf(schema: Json, value: unknown): string | null {
  const text = JSON.stringify(schema);
  let validate = validators.get(text);
  if (!validate) {
    validate = ajv.compile({ $id: `${ID}?n=${validators.size}`, ...rebase(schema) });
    validators.set(text, validate);
  }
  return validate(value) ? null : ajv.errorsText(validate.errors);
}

/** [where, the object that must carry an example, its schema] for every parameter, header and body of an operation. */
function examplePlaces(path: string, method: string, op: Json): [string, Json, Json][] {
  const places: [string, Json, Json][] = [];
  const where = `${method.toUpperCase()} ${path}`;
  for (const param of ((op.parameters ?? []) as Json[]).map(deref))
    places.push([`${where} parameter ${param.name}`, param, param.schema]);
  for (const [status, raw] of Object.entries(op.responses as Record<string, Json>)) {
    const response = deref(raw);
    for (const [name, header] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
      places.push([`${where} ${status} header ${name}`, deref(header), deref(header).schema]);
    }
    for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>))
      places.push([`${where} ${status} ${type}`, media, media.schema]);
  }
  return places;
}

/** Every operation, with its places: one test each (a test per place made 2,300 tests, a second of jest's own time). */
const operations = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, methods]) =>
  Object.entries(methods).map(
    ([method, op]) => [`${method.toUpperCase()} ${path}`, examplePlaces(path, method, op)] as const,
  ),
);

describe('the examples of docs/openapi.json', () => {
  it('are many: every operation has its parameters and answers', () => {
    expect(operations.flatMap(([, places]) => places).length).toBeGreaterThan(500);
  });

  it.each(operations)('%s: every parameter, header and body has a valid example', (_, places) => {
    // Each place's problem named, all at once: [where, has an example, what the schema says of it].
    const checked = places.map(([where, holder, schema]) => [
      where,
      'example' in holder,
      'example' in holder ? problemsOf(schema, holder.example) : null,
    ]);

    expect(checked).toEqual(places.map(([where]) => [where, true, null]));
  });

  it('every response carries one: a body example, or examples on each of its headers', () => {
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Json>)) {
      const responses = Object.values(methods as Record<string, Json>).flatMap((op) =>
        Object.entries(op.responses as Record<string, Json>),
      );
      for (const [status, raw] of responses) {
        const response = deref(raw);
        const examples = [
          ...Object.values((response.content ?? {}) as Record<string, Json>).map((m) => m.example),
          ...Object.values((response.headers ?? {}) as Record<string, Json>).map((h) => deref(h).example),
        ];
        expect([path, status, examples.length > 0 && examples.every((e) => e !== undefined)]).toEqual([
          path,
          status,
          true,
        ]);
      }
    }
  });

  it('every example of a component schema is valid against it (the figures of include=apy_stats)', () => {
    const schemas = Object.entries(doc.components.schemas as Record<string, Json>).filter(([, s]) => s.examples);
    expect(schemas.map(([name]) => name)).toContain('ApyStats');
    for (const [name, schema] of schemas)
      for (const example of schema.examples) expect([name, problemsOf(schema, example)]).toEqual([name, null]);
  });

  it('a wrong example is caught (the check can fail)', () => {
    const list = deref(doc.paths['/api/v1/earn'].get.responses['200']);
    const wrong = structuredClone(list.content['application/json'].example);
    wrong.data[0].apy = 5.42;
    expect(problemsOf(list.content['application/json'].schema, wrong)).toMatch(/apy/);
  });
});
