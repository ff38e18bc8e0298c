/**
 * The tools of the MCP endpoint (docs/api.md, "For assistants and agents"; ADR 0027), derived and
 * called, never written by hand:
 *
 * - which tools there are: the routes that declare one (shared/http/routes.ts `tool`), several
 *   routes making one tool where an argument (`family`, `type`) chooses among them;
 * - what a tool takes: the parameters of its routes as the API description has them (generated
 *   from the zod schema each route validates with, `npm run openapi`), their descriptions and
 *   examples included, and the choosing argument;
 * - what it says it does: its routes' operation summaries;
 * - what it answers: the route's own handler, called in-process with the arguments as the query
 *   and path of a request: `structuredContent` is the route's JSON answer, a route's error a result
 *   with `isError` carrying its envelope. A former slug is followed to the current one, as an HTTP
 *   client follows the 301. A result stays under MAX_RESULT_BYTES of text: a list page that would
 *   not is asked again with a smaller `limit` (its `pagination` says so), an answer that is no page
 *   is refused naming what makes it large, and an answer no page bounds (a currency with every
 *   offer of its asset) gives the counts of its embedded lists (`counts`).
 *
 * Arguments that are not what a tool takes (an unknown name, a value of the wrong JSON type, no
 * `family` where one chooses the route) are the caller's error (McpArgumentsError: a JSON-RPC
 * error); values of the right type are the route's to judge, and its `validation_error` names them.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ValidationError } from '../platform/errors';
import type { ApiEvent, ApiResult } from './http';
import { toApiError } from './middleware/error-envelope';
import type { Route } from './routes';

/** A tool's result: what `tools/call` answers (MCP `CallToolResult`). */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The most text a result holds (UTF-8 bytes of its JSON).
 * @internal (exported for its tests)
 */
export const MAX_RESULT_BYTES = 100_000;

/** A query or path parameter as the API description (OpenAPI 3.1) declares it. */
interface DescribedParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Record<string, unknown>;
  example?: unknown;
}

/** What the tools read of the API description: each operation's summary and parameters. */
export interface ApiDescription {
  info: { version: string };
  paths: Record<string, Record<string, { summary?: string; parameters?: unknown[] }>>;
  components?: { parameters?: Record<string, unknown> };
}

type JsonSchema = Record<string, unknown>;

/** One route of a tool: what chooses it, its parameters by name and which of them are in the path. */
interface ToolRoute {
  route: Route;
  choose: Readonly<Record<string, string>>;
  parameters: ReadonlyMap<string, DescribedParameter>;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> };
  routes: readonly ToolRoute[];
  counts: boolean;
}

/** Arguments a tool does not take: a JSON-RPC error (invalid params), not a result. */
export class McpArgumentsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpArgumentsError';
  }
}

const REF = '#/components/parameters/';

function parametersOf(description: ApiDescription, route: Route): Map<string, DescribedParameter> {
  const operation = description.paths[route.path]?.[route.method.toLowerCase()];
  if (!operation) throw new Error(`the API description has no ${route.method} ${route.path}`);
  const parameters = new Map<string, DescribedParameter>();
  for (const raw of operation.parameters ?? []) {
    const ref = (raw as { $ref?: string }).$ref;
    const parameter = (ref ? description.components?.parameters?.[ref.slice(REF.length)] : raw) as DescribedParameter;
    if (parameter.in === 'query' || parameter.in === 'path') parameters.set(parameter.name, parameter);
  }
  return parameters;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A parameter's schema for the tool: as described, with its description and example; a note when only some routes take it. */
function propertyOf(declared: DescribedParameter[], only: string | undefined): JsonSchema {
  const [first] = declared;
  const schemas = declared.map((p) => p.schema).filter((s, i, all) => all.findIndex((t) => same(s, t)) === i);
  const description = [first.description, only].filter(Boolean).join(' ');
  return {
    ...(schemas.length === 1 ? schemas[0] : { anyOf: schemas }),
    ...(description ? { description } : {}),
    ...(first.example === undefined ? {} : { examples: [first.example] }),
  };
}

/** The tools of a route table, from its tool declarations and the API description. */
export function deriveTools(routes: readonly Route[], description: ApiDescription): Tool[] {
  const grouped = new Map<string, ToolRoute[]>();
  const counts = new Set<string>();
  for (const route of routes) {
    if (!route.tool) continue;
    const list = grouped.get(route.tool.name) ?? [];
    list.push({ route, choose: route.tool.choose ?? {}, parameters: parametersOf(description, route) });
    grouped.set(route.tool.name, list);
    if (route.tool.counts) counts.add(route.tool.name);
  }
  return [...grouped].map(([name, toolRoutes]) => {
    const properties: Record<string, JsonSchema> = {};
    const choosing = [...new Set(toolRoutes.flatMap((r) => Object.keys(r.choose)))];
    for (const argument of choosing) {
      const values = [...new Set(toolRoutes.map((r) => r.choose[argument]))];
      properties[argument] = { type: 'string', enum: values, description: `Which ${argument}: ${values.join(', ')}.` };
    }
    const names = [...new Set(toolRoutes.flatMap((r) => [...r.parameters.keys()]))];
    for (const parameter of names) {
      const taking = toolRoutes.filter((r) => r.parameters.has(parameter));
      const only =
        taking.length === toolRoutes.length
          ? undefined
          : `(Only with ${[...new Set(taking.flatMap((r) => Object.entries(r.choose).map(([k, v]) => `${k} ${v}`)))].join(', ') || 'some of its forms'}.)`;
      properties[parameter] = propertyOf(
        taking.map((r) => r.parameters.get(parameter)!),
        only,
      );
    }
    const required = [
      ...choosing,
      ...names.filter((p) => toolRoutes.every((r) => r.parameters.get(p)?.required === true)),
    ];
    const summaries = [
      ...new Set(toolRoutes.map((r) => description.paths[r.route.path][r.route.method.toLowerCase()].summary ?? '')),
    ];
    const note = counts.has(name) ? ' Its embedded lists are given as their counts, in `counts`.' : '';
    return {
      name,
      description: `${summaries.join('; ')}.${note}`,
      inputSchema: {
        type: 'object',
        properties,
        ...(required.length > 0 ? { required } : {}),
        additionalProperties: false,
      },
      routes: toolRoutes,
      counts: counts.has(name),
    };
  });
}

/** An argument's value as query or path text: a scalar as written, a list joined by commas (as the API takes lists). */
function textOf(name: string, value: unknown): string {
  const scalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
  if (scalar(value)) return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
    return value.join(',');
  throw new McpArgumentsError(`argument ${name} must be a string, a number, a boolean or a list of strings or numbers`);
}

/** The route of a tool the arguments choose: the chosen routes' first that takes every other argument given, else their first. */
function chosenRoute(tool: Tool, args: Record<string, unknown>): ToolRoute {
  const chosen = tool.routes.filter((r) => Object.entries(r.choose).every(([k, v]) => args[k] === v));
  if (chosen.length === 0) {
    const choosing = Object.keys(tool.routes[0].choose);
    throw new McpArgumentsError(
      `${choosing.map((k) => `${k} must be one of ${String((tool.inputSchema.properties[k] as { enum: string[] }).enum.join(', '))}`).join('; ')}`,
    );
  }
  const given = Object.keys(args).filter((k) => !(k in chosen[0].choose));
  return chosen.find((r) => given.every((k) => r.parameters.has(k))) ?? chosen[0];
}

/** What a tool call needs from the request that carried it: its context, as the authorizer and the quota left it. */
export interface ToolContext {
  event: ApiEvent;
  handlers: Partial<Record<string, (event: ApiEvent, context: never) => Promise<ApiResult>>>;
  context: unknown;
  retryAfterSeconds: number;
}

const result = (answer: Record<string, unknown>, isError = false): ToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(answer) }],
  structuredContent: answer,
  ...(isError ? { isError: true } : {}),
});

const bytes = (answer: unknown) => Buffer.byteLength(JSON.stringify(answer));

/** The request a route's handler would get for these arguments: the carrying request's identity and authorizer, the route's path and query. */
function routeEvent(
  carrier: ApiEvent,
  route: Route,
  path: Record<string, string>,
  query: Record<string, string>,
): ApiEvent {
  const concrete = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path[name] ?? ''));
  const names = Object.keys(query);
  return {
    ...carrier,
    resource: route.path,
    path: concrete,
    httpMethod: route.method,
    headers: {},
    multiValueHeaders: {},
    body: null,
    isBase64Encoded: false,
    pathParameters: Object.keys(path).length > 0 ? path : null,
    queryStringParameters: names.length > 0 ? query : null,
    multiValueQueryStringParameters:
      names.length > 0 ? Object.fromEntries(names.map((name) => [name, [query[name]]])) : null,
    requestContext: {
      ...carrier.requestContext,
      httpMethod: route.method,
      path: concrete,
      resourcePath: route.path,
      resourceId: route.operationId,
    },
  } as APIGatewayProxyEvent;
}

/** The answer's embedded lists replaced by their counts. */
function counted(answer: Record<string, unknown>): Record<string, unknown> {
  const counts: Record<string, number> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(answer)) {
    if (Array.isArray(value)) counts[key] = value.length;
    else rest[key] = value;
  }
  return { ...rest, counts };
}

/** Call a tool: its route's handler, in-process, with the arguments as the request. */
export async function callTool(tool: Tool, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
  if (rawArgs !== undefined && (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)))
    throw new McpArgumentsError('arguments must be an object');
  const args = (rawArgs ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(args))
    if (!Object.hasOwn(tool.inputSchema.properties, name))
      throw new McpArgumentsError(`${tool.name} takes no argument ${name}`);
  const { route, choose } = chosenRoute(tool, args);
  const path: Record<string, string> = {};
  const query: Record<string, string> = {};
  const pathNames = new Set([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  for (const [name, value] of Object.entries(args)) {
    if (name in choose) continue;
    (pathNames.has(name) ? path : query)[name] = textOf(name, value);
  }
  const handler = ctx.handlers[route.operationId];
  if (!handler) throw new Error(`no handler for ${route.operationId}`);
  const call = async (): Promise<ApiResult> => {
    let answer = await handler(routeEvent(ctx.event, route, path, query), ctx.context as never);
    const location = answer.statusCode === 301 ? String(answer.headers?.Location ?? '') : '';
    const [renamed] = [...pathNames];
    if (location && renamed !== undefined) {
      // A former slug: the route answers the current one, as an HTTP client following the 301 gets it.
      path[renamed] = decodeURIComponent(location.split('?')[0].split('/').pop() ?? '');
      answer = await handler(routeEvent(ctx.event, route, path, query), ctx.context as never);
    }
    return answer;
  };
  try {
    for (;;) {
      let answer = JSON.parse((await call()).body) as Record<string, unknown>;
      if (tool.counts) answer = counted(answer);
      if (bytes(answer) <= MAX_RESULT_BYTES) return result(answer);
      const page = (answer.pagination as { limit?: number } | undefined)?.limit;
      if (page === undefined || page <= 1) {
        const size = bytes(answer).toLocaleString('en-US');
        throw new ValidationError([
          `the answer is ${size} bytes, more than a tool result holds (${MAX_RESULT_BYTES.toLocaleString('en-US')}): ask for less (fewer ids, a shorter window or a longer interval)`,
        ]);
      }
      // A page too large for a result: the same list, a smaller page (its `pagination.limit` says which).
      query.limit = String(Math.floor(page / 2));
    }
  } catch (error) {
    if (error instanceof McpArgumentsError) throw error;
    return result(toApiError(error, ctx.retryAfterSeconds).toEnvelope() as unknown as Record<string, unknown>, true);
  }
}
