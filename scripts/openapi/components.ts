/**
 * `components.schemas` of the document: the zod schemas turned into JSON Schema 2020-12 (the
 * dialect of OpenAPI 3.1), each named schema a component that the others `$ref`. Three corrections
 * on the way: response timestamps are always `toISOString()` output, stricter than what the
 * dataset import accepts; zod's implicit safe-integer bounds are dropped as noise; an offer `id`
 * (the only integer `id`) is `int64`, as it goes to 2^53-1.
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
  if (json.type === 'integer') {
    if (json.minimum === Number.MIN_SAFE_INTEGER) delete json.minimum;
    if (json.maximum === Number.MAX_SAFE_INTEGER) delete json.maximum;
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
    if (properties?.id?.type === 'integer') properties.id.format = 'int64';
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
