/**
 * Every response an integration test receives passes through `checkResponse`, which validates it
 * against the API description (docs/openapi.json), so the document and the service cannot drift:
 * the status must be documented for the operation, the documented headers present and well
 * formed (usage headers only where documented), the Content-Type one of the documented media
 * types and the body valid against its schema (ajv, JSON Schema 2020-12). A path that matches no
 * documented route must be the 404 envelope. Validators are compiled once per schema.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { matchRoute, methodNotAllowed } from '../../shared/http/routes';

export interface ObservedResponse {
  method: string;
  /** Path with query string, as requested. */
  path: string;
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON body, or undefined when the body is empty (a raw string when not JSON). */
  body: unknown;
}

type Json = Record<string, any>;

export const DOCUMENT_PATH = join(__dirname, '..', '..', 'docs', 'openapi.json');
const DOCUMENT_ID = 'https://contract.test/openapi.json';
/** Headers that must be documented on every response that carries them: usage, validators, CORS, challenge, deprecation. */
const DOCUMENTED_WHEN_SENT = [
  'access-control-allow-origin',
  'www-authenticate',
  'deprecation',
  'sunset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-quota-limit',
  'x-quota-remaining',
  'x-quota-reset',
  'ratelimit-policy',
  'ratelimit',
  'etag',
];

interface Contract {
  doc: Json;
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

let contract: Contract | undefined;

function load(): Contract {
  if (contract) return contract;
  const doc = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Json;
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  // The document is not a JSON Schema; registering `components` as a keyword lets ajv resolve the
  // document's own `#/components/schemas/...` references inside it.
  ajv.addKeyword({ keyword: 'components' });
  ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: doc.components.schemas } });
  return (contract = { doc, ajv, validators: new Map() });
}

/** A validator for a schema of the document (inline or `$ref`), compiled once. */
function validatorOf(c: Contract, schema: Json): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = c.validators.get(key);
  if (!validate) {
    // Inline schemas are resolved against the document, like its references.
    validate = c.ajv.compile({ $id: `${DOCUMENT_ID}?schema=${c.validators.size}`, ...rebase(schema) });
    c.validators.set(key, validate);
  }
  return validate;
}

function rebase(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${DOCUMENT_ID}#/`));
}

function deref(c: Contract, object: Json): Json {
  const ref = object?.$ref as string | undefined;
  if (!ref) return object;
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: Json, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], c.doc);
}

/** The documented operation behind a request, if any. */
function operationOf(c: Contract, method: string, pathname: string): { path: string; operation: Json } | undefined {
  const verb = method.toLowerCase();
  const match = matchRoute(method, pathname);
  const path = match ? match.route.path : pathname;
  const operation = c.doc.paths[path]?.[verb] as Json | undefined;
  return operation ? { path, operation } : undefined;
}

function errorsOf(c: Contract, validate: ValidateFunction, dataVar: string): string {
  return c.ajv.errorsText(validate.errors, { dataVar, separator: '; ' });
}

function checkHeaders(c: Contract, response: ObservedResponse, documented: Json, problems: string[]): void {
  const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const names = new Set<string>();
  for (const [name, rawHeader] of Object.entries((documented.headers ?? {}) as Json)) {
    const header = deref(c, rawHeader as Json);
    const lower = name.toLowerCase();
    names.add(lower);
    const value = headers[lower];
    if (value === undefined) {
      if (header.required) problems.push(`missing header ${name}`);
      continue;
    }
    const validate = validatorOf(c, header.schema ?? {});
    if (!validate(value))
      problems.push(`header ${name}: ${errorsOf(c, validate, name)} (got ${JSON.stringify(value)})`);
  }
  for (const name of DOCUMENTED_WHEN_SENT) {
    if (headers[name] !== undefined && !names.has(name))
      problems.push(`header ${name} is not documented on this response`);
  }
}

function checkBody(c: Contract, response: ObservedResponse, documented: Json, problems: string[]): void {
  const content = documented.content as Json | undefined;
  const contentType = Object.entries(response.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  if (!content) {
    if (response.body !== undefined && response.body !== '')
      problems.push(`body must be empty, got ${preview(response.body)}`);
    return;
  }
  if (!contentType) return void problems.push('missing header Content-Type');
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  const media = content[mediaType] as Json | undefined;
  if (!media) return void problems.push(`Content-Type ${contentType} is not one of ${Object.keys(content).join(', ')}`);
  if (mediaType === 'application/json' && (response.body === undefined || typeof response.body === 'string')) {
    return void problems.push(`body is not JSON: ${preview(response.body)}`);
  }
  const validate = validatorOf(c, media.schema ?? {});
  if (!validate(response.body)) problems.push(`body: ${errorsOf(c, validate, 'body')}`);
}

/** What is wrong with a response according to the document (empty when it conforms). */
export function contractProblems(response: ObservedResponse): string[] {
  const c = load();
  const pathname = response.path.split('?')[0];
  const found = operationOf(c, response.method, pathname);
  const problems: string[] = [];
  let documented: Json | undefined;
  if (found) {
    const responses = found.operation.responses as Json;
    const raw = responses[String(response.status)] ?? responses.default;
    if (!raw)
      return [
        `status ${response.status} is not documented for ${found.operation.operationId} (${Object.keys(responses).join(', ')})`,
      ];
    documented = deref(c, raw);
  } else if (response.status === 405) {
    return methodNotAllowedProblems(c, response, pathname);
  } else {
    // No such route: API Gateway (and the local gateway) answer the 404 envelope before authentication.
    if (response.status !== 404)
      return [`no documented route for ${response.method} ${pathname}, yet status ${response.status}`];
    const notFound = deref(c, c.doc.components.responses.NotFound);
    const { 'X-Request-Id': requestId, 'Access-Control-Allow-Origin': cors } = notFound.headers;
    documented = { ...notFound, headers: { 'X-Request-Id': requestId, 'Access-Control-Allow-Origin': cors } };
  }
  checkHeaders(c, response, documented, problems);
  checkBody(c, response, documented, problems);
  return problems;
}

/**
 * A method a documented path does not take, where the service answers 405 (`/mcp`: docs/api.md,
 * "Errors"): the path's operations say they are its only methods, `Allow` names them, and the body is
 * the envelope of `method_not_allowed` with the headers of the 404 of no route.
 */
function methodNotAllowedProblems(c: Contract, response: ObservedResponse, pathname: string): string[] {
  // The path as the route table matches it (a trailing slash included), as operationOf does.
  const path = methodNotAllowed(response.method, pathname)?.path ?? pathname;
  const methods = Object.keys((c.doc.paths[path] ?? {}) as Json).map((m) => m.toUpperCase());
  const problems: string[] = [];
  if (methods.length === 0) return [`no documented path ${pathname}, yet status 405`];
  const operations = methods.map((m) => c.doc.paths[path][m.toLowerCase()] as Json);
  if (!operations.some((op) => String(op.description).includes('`405 method_not_allowed`')))
    problems.push(`the operations of ${pathname} do not describe its 405`);
  const allow = Object.entries(response.headers).find(([k]) => k.toLowerCase() === 'allow')?.[1];
  if (allow !== methods.join(', ')) problems.push(`Allow is ${allow}, not ${methods.join(', ')}`);
  const notFound = deref(c, c.doc.components.responses.NotFound);
  const { 'X-Request-Id': requestId, 'Access-Control-Allow-Origin': cors } = notFound.headers;
  checkHeaders(c, response, { headers: { 'X-Request-Id': requestId, 'Access-Control-Allow-Origin': cors } }, problems);
  const body = response.body as Json | undefined;
  const error = body?.error as Json | undefined;
  if (
    typeof body !== 'object' ||
    Object.keys(body ?? {}).join() !== 'error' ||
    error?.code !== 'method_not_allowed' ||
    typeof error.message !== 'string' ||
    error.details !== null
  )
    problems.push(`body is not the method_not_allowed envelope: ${preview(response.body)}`);
  return problems;
}

export function checkResponse(response: ObservedResponse): void {
  const problems = contractProblems(response);
  if (problems.length === 0) return;
  throw new Error(
    `${response.method} ${response.path} → ${response.status} breaks docs/openapi.json:\n  - ${problems.join('\n  - ')}\n  body: ${preview(response.body)}`,
  );
}

function preview(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined ? '(empty)' : text.length > 600 ? `${text.slice(0, 600)}…` : text;
}
