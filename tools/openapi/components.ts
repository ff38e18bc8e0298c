/**
 * `components.schemas` of the document: the zod schemas turned into JSON Schema 2020-12 (the
 * dialect of OpenAPI 3.1), each named schema a component that the others `$ref`. Response
 * timestamps are corrected on the way: they are always `toISOString()` output, stricter than what
 * the dataset import accepts. zod's safe-integer bounds stay: every integer says its range and is
 * exact as a JSON number, and an offer id (here, in a changes row and as a parameter) is an
 * integer of 0 to 2^53-1 with no `format` (docs/api.md, "Parameters").
 */
import * as z from 'zod/mini';
import { DECIMAL_PATTERN } from '../../shared/platform/decimal';
import { TIMESTAMP_PATTERN } from '../../shared/platform/timestamps';
import { FIELD_NOTES, SCHEMA_NOTES } from './field-notes';
import { COMPONENT_SCHEMAS, type SchemaName } from './response-schemas';

export type JsonSchema = Record<string, unknown>;

/** What every timestamp of a response looks like (`Date.prototype.toISOString`). */
const RESPONSE_TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

export const schemaRef = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });

function correct(json: JsonSchema): void {
  if (json.pattern === TIMESTAMP_PATTERN.source) {
    json.format = 'date-time';
    json.pattern = RESPONSE_TIMESTAMP_PATTERN;
  } else if (json.pattern === DECIMAL_PATTERN.source) {
    json.description ??= 'Exact decimal number as a string (no exponent).';
  }
}

export function componentSchemas(): Record<SchemaName, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENT_SCHEMAS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'output',
    uri: (id) => `#/components/schemas/${id}`,
    override: ({ jsonSchema }) => correct(jsonSchema as JsonSchema),
  });

  const out = {} as Record<SchemaName, JsonSchema>;
  for (const name of Object.keys(COMPONENT_SCHEMAS) as SchemaName[]) {
    const { $schema: _dialect, $id: _id, ...schema } = schemas[name] as JsonSchema;
    const properties = schema.properties as Record<string, JsonSchema> | undefined;
    for (const [field, note] of Object.entries(FIELD_NOTES[name] ?? {})) {
      if (!properties?.[field]) throw new Error(`field note for unknown field ${name}.${field}`);
      properties[field] = { description: note, ...withoutDescription(properties[field]) };
    }
    out[name] = SCHEMA_NOTES[name] ? { description: SCHEMA_NOTES[name], ...schema } : schema;
  }
  return out;
}

function withoutDescription({ description: _description, ...rest }: JsonSchema): JsonSchema {
  return rest;
}
