/**
 * The local gateway: an HTTP server that does what API Gateway does in front of the functions.
 * It matches the same route table on the path as sent (no normalisation of `//` or encoded dot
 * segments), answers unknown routes 404 (and a method a path does not take
 * 405, where the route table says so) before anything else, runs the same TOKEN authorizer
 * (with an optional result cache, like API Gateway's), turns the request into a REST proxy event
 * and serves it through the same family handler: a buffered function's response over Lambda's 6 MB
 * refused as Lambda does, and gzip-compressing large bodies the function left uncompressed; a
 * streamed function's answer (ADR 0014) passed on as it comes, never refused for its size nor
 * compressed here (API Gateway does not code a streamed answer). A request the
 * HTTP parser refuses (oversized request line and headers, a malformed header) gets API Gateway's
 * DEFAULT_4XX answer in the error envelope, like every other refusal (docs/api.md, "Errors").
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { CORS_HEADERS, CORS_PREFLIGHT_HEADERS } from '../shared/http/cors';
import {
  GATEWAY_RESPONSE_HEADERS,
  GATEWAY_RESPONSES,
  type GatewayResponseSpec,
  type GatewayResponseType,
  gatewayResponseBody,
  methodNotAllowedResponse,
} from '../shared/http/gateway-responses';
import { type ApiEvent, type ApiResult, varyOnEncoding } from '../shared/http/http';
import { MIN_COMPRESSION_BYTES } from '../shared/http/middleware/compression';
import {
  FUNCTION_NAMES,
  type FunctionName,
  matchRoute,
  methodNotAllowed,
  ROUTES,
  type RouteMatch,
  transferOf,
} from '../shared/http/routes';
import { lambdaHandler } from '../shared/http/streaming';
import { BEARER_EXPRESSION } from '../shared/platform/bearer';
import type { Clock } from '../shared/platform/clock';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../shared/platform/constants';
import {
  installLambdaRuntime,
  isStreaming,
  type Prelude,
  ResponseStream,
  type StreamingHandler,
} from './lambda-streaming';

export type FamilyHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;
export type Authorizer = (event: APIGatewayTokenAuthorizerEvent) => Promise<APIGatewayAuthorizerResult>;

export interface GatewayOptions {
  /**
   * The family functions: built by their factories (a function the route table streams is
   * streamed as its composition root does), or loaded from their bundles (streamed ones marked).
   */
  handlers: Record<FunctionName, FamilyHandler>;
  authorizer: Authorizer;
  /** The stack's clock: each request's time (`requestTimeEpoch`) and the authorizer cache's expiry. */
  clock: Clock;
  /** Authorizer result cache, keyed by token, like API Gateway's (0: no cache). */
  authCacheTtlMs?: number;
  /** Bodies of at least this many bytes are gzip-compressed for clients that accept it. */
  minimumCompressionSize?: number;
  stage?: string;
  /** Extra routes served without a key (e.g. the API description). */
  publicRoutes?: Record<string, (req: IncomingMessage, requestId: string) => PublicAnswer | Promise<PublicAnswer>>;
  /** Invoked for each request that reached a family function, with the status it answered. */
  onInvoke?: (fn: FunctionName, event: ApiEvent, statusCode: number) => void;
}

interface PublicAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** @internal (exported for its tests) */
export { LAMBDA_RESPONSE_LIMIT_BYTES };

const API_ID = 'local';
const ACCOUNT = '000000000000';
const REGION = 'local';

/** The TOKEN authorizer's identity validation expression, as the deployed API has it. */
const IDENTITY_VALIDATION = new RegExp(BEARER_EXPRESSION);

type AuthOutcome = { context: Record<string, unknown>; principalId: string } | { refused: GatewayResponseType };

function lambdaContext(fn: string, requestId: string): Context {
  // A duration, not a time of day: the monotonic clock, whatever the stack's clock says.
  const deadline = performance.now() + 10_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: fn,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${fn}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${fn}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, Math.round(deadline - performance.now())),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Whether an IAM policy from the authorizer allows invoking `methodArn` (wildcards as IAM). */
function policyAllows(result: APIGatewayAuthorizerResult, methodArn: string): boolean {
  const matches = (pattern: string) =>
    new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(methodArn);
  let allowed = false;
  for (const statement of result.policyDocument.Statement as { Effect: string; Resource?: string | string[] }[]) {
    const resources = ([] as string[]).concat(statement.Resource ?? []);
    if (!resources.some(matches)) continue;
    if (statement.Effect === 'Deny') return false;
    if (statement.Effect === 'Allow') allowed = true;
  }
  return allowed;
}

/** Whether an Accept-Encoding header allows gzip (case-insensitive, honouring `q=0`). */
function acceptsGzip(header: string | string[] | undefined): boolean {
  const entries = String(header ?? '')
    .split(',')
    .map((part) =>
      part
        .trim()
        .toLowerCase()
        .split(';')
        .map((p) => p.trim()),
    )
    .filter(([coding]) => coding);
  const quality = (coding: string) => {
    const entry = entries.find(([c]) => c === coding);
    if (!entry) return undefined;
    const q = entry.find((p) => p.startsWith('q='));
    return q ? Number(q.slice(2)) : 1;
  };
  const q = quality('gzip') ?? quality('*');
  return q !== undefined && q > 0;
}

export interface ProxyEventInput {
  url: URL;
  /** The path as the client sent it (default: the URL's pathname, which the URL parser normalised). */
  path?: string;
  match: RouteMatch;
  method?: string;
  headers?: Record<string, string>;
  /** What the authorizer put in the context (null: none). */
  authorizer: Record<string, unknown> | null;
  requestId: string;
  stage?: string;
  sourceIp?: string;
  /** The request's body: API Gateway passes it base64-encoded (every media type is binary to the API: lib/constructs/rest-api.ts). */
  body?: Buffer;
  /** `requestTimeEpoch`: the gateway's clock when the request came in (the handlers read their own clock). */
  requestTime: number;
}

/** The REST proxy event API Gateway builds for a matched request (also used by the tests). */
export function proxyEvent(input: ProxyEventInput): ApiEvent {
  const { url, match, method = 'GET', headers = {}, requestId, stage = 'local' } = input;
  const path = input.path ?? url.pathname;
  // A prototype-free map: query names such as `constructor` are plain keys here.
  const multiValueQueryStringParameters: Record<string, string[]> = Object.create(null);
  for (const [key, value] of url.searchParams) (multiValueQueryStringParameters[key] ??= []).push(value);
  const hasQuery = Object.keys(multiValueQueryStringParameters).length > 0;
  return {
    resource: match.route.path,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: hasQuery
      ? Object.fromEntries(Object.entries(multiValueQueryStringParameters).map(([k, v]) => [k, v[v.length - 1]]))
      : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQueryStringParameters : null,
    pathParameters: Object.keys(match.pathParameters).length > 0 ? match.pathParameters : null,
    stageVariables: null,
    body: input.body === undefined ? null : input.body.toString('base64'),
    isBase64Encoded: input.body !== undefined,
    requestContext: {
      accountId: ACCOUNT,
      apiId: API_ID,
      authorizer: input.authorizer,
      protocol: 'HTTP/1.1',
      httpMethod: method,
      identity: {
        sourceIp: input.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      } as ApiEvent['requestContext']['identity'],
      path,
      stage,
      requestId,
      requestTimeEpoch: input.requestTime,
      resourceId: match.route.operationId,
      resourcePath: match.route.path,
    },
  };
}

/**
 * The path and query of a request target, taken literally: API Gateway matches resources on the
 * path as sent, so `//evil.com/api/v1/earn` is not `/api/v1/earn` (a relative URL parser would
 * make `evil.com` its host) and `/api/v1/exchanges/%2E%2E/exchanges` is not `/api/v1/exchanges`
 * (the WHATWG parser resolves encoded dot segments); neither matches a route.
 */
function requestTarget(target: string): { path: string; url: URL } {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  const url = new URL('http://localhost/');
  if (q !== -1) url.search = target.slice(q);
  return { path, url };
}

/** A gateway response written straight to the socket, for requests Node's HTTP parser refused. */
function rawGatewayResponse(type: GatewayResponseType, requestId: string): string {
  const spec = GATEWAY_RESPONSES[type];
  const body = gatewayResponseBody(spec);
  const headers: Record<string, string> = {
    ...CORS_HEADERS,
    ...GATEWAY_RESPONSE_HEADERS,
    'X-Request-Id': requestId,
    ...spec.headers,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${spec.statusCode} ${STATUS_CODES[spec.statusCode]}\r\n${head}\r\n${body}`;
}

/** The methods of the route table: a preflight is answered for every path one of them serves. */
const ROUTE_METHODS = [...new Set(ROUTES.map((r) => r.method))];

/** A request's whole body. */
async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The function's answer as API Gateway reads it: a proxy result, or a stream (marked by streamifyResponse). */
type Invoker = { streamed: false; handler: FamilyHandler } | { streamed: true; handler: StreamingHandler };

function invokerOf(fn: FunctionName, handler: FamilyHandler): Invoker {
  if (isStreaming(handler)) return { streamed: true, handler };
  if (transferOf(fn) === 'buffer') return { streamed: false, handler };
  const streamed = lambdaHandler(fn, handler);
  if (!isStreaming(streamed)) throw new Error(`${fn} is not streamed`);
  return { streamed: true, handler: streamed };
}

/** Header values as strings, the multi-valued ones joined. */
function headersOf(prelude: Pick<ApiResult, 'headers' | 'multiValueHeaders'>): Record<string, string> {
  const out = Object.fromEntries(Object.entries(prelude.headers ?? {}).map(([k, v]) => [k, String(v)]));
  for (const [name, values] of Object.entries(prelude.multiValueHeaders ?? {})) out[name] = values.join(', ');
  return out;
}

export function createGateway(options: GatewayOptions): Server {
  installLambdaRuntime();
  const invokers = Object.fromEntries(FUNCTION_NAMES.map((fn) => [fn, invokerOf(fn, options.handlers[fn])])) as Record<
    FunctionName,
    Invoker
  >;
  const stage = options.stage ?? 'local';
  const cacheTtl = options.authCacheTtlMs ?? 0;
  const minimumCompressionSize = options.minimumCompressionSize ?? MIN_COMPRESSION_BYTES;
  const authCache = new Map<string, { result: APIGatewayAuthorizerResult; until: number }>();

  async function authorize(token: string | undefined, methodArn: string): Promise<AuthOutcome> {
    // Like API Gateway: no header, or one the expression refuses, is a 401 without invoking the authorizer.
    if (token === undefined || !IDENTITY_VALIDATION.test(token)) return { refused: 'UNAUTHORIZED' };
    let result = cacheTtl > 0 ? authCache.get(token) : undefined;
    const now = options.clock().getTime();
    if (!result || result.until <= now) {
      try {
        const fresh = await options.authorizer({ type: 'TOKEN', authorizationToken: token, methodArn });
        result = { result: fresh, until: now + cacheTtl };
        if (cacheTtl > 0) authCache.set(token, result);
      } catch (error) {
        return { refused: (error as Error)?.message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE' };
      }
    }
    if (!policyAllows(result.result, methodArn)) return { refused: 'ACCESS_DENIED' };
    return {
      context: { ...(result.result.context ?? {}), principalId: result.result.principalId },
      principalId: result.result.principalId,
    };
  }

  function send(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    headers: Record<string, string>,
    body: string | Buffer,
  ) {
    let payload = typeof body === 'string' ? Buffer.from(body) : body;
    const out: Record<string, string> = { ...CORS_HEADERS, ...headers };
    if (status === 304) {
      // No content and no content length (RFC 9110 §15.4.5): the validators and usage headers only.
      res.writeHead(status, out);
      res.end();
      return;
    }
    // Like API Gateway: an answer that has a coding (a function compressed it) is passed on as it is.
    if (
      !out['Content-Encoding'] &&
      payload.length >= minimumCompressionSize &&
      acceptsGzip(req.headers['accept-encoding'])
    ) {
      payload = gzipSync(payload);
      out['Content-Encoding'] = 'gzip';
      out.Vary = varyOnEncoding(out.Vary);
    }
    out['Content-Length'] = String(payload.length);
    res.writeHead(status, out);
    res.end(req.method === 'HEAD' ? undefined : payload);
  }

  function sendGatewayResponse(
    req: IncomingMessage,
    res: ServerResponse,
    type: GatewayResponseType | GatewayResponseSpec,
    requestId: string,
  ) {
    const spec = typeof type === 'string' ? GATEWAY_RESPONSES[type] : type;
    send(
      req,
      res,
      spec.statusCode,
      { ...GATEWAY_RESPONSE_HEADERS, 'X-Request-Id': requestId, ...spec.headers },
      gatewayResponseBody(spec),
    );
  }

  /**
   * A streamed answer, as API Gateway passes it on: the status and headers of the prelude, then the
   * body as it comes (chunked, no Content-Length). A function that fails before its prelude is a
   * DEFAULT_5XX; after it, the connection is cut, as the client of a broken stream sees it.
   */
  async function stream(
    req: IncomingMessage,
    res: ServerResponse,
    handler: StreamingHandler,
    event: ApiEvent,
    context: Context,
  ): Promise<number | undefined> {
    let status: number | undefined;
    const out = new ResponseStream(
      (prelude: Prelude) => {
        status = prelude.statusCode;
        res.writeHead(status, { ...CORS_HEADERS, ...headersOf(prelude as ApiResult) });
      },
      (chunk) => {
        if (req.method !== 'HEAD' && status !== 304) res.write(chunk);
      },
    );
    try {
      await handler(event, out, context);
    } catch {
      if (!out.started) return undefined;
      res.destroy();
      return status;
    }
    if (!out.started) return undefined;
    res.end();
    return status;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const requestId = randomUUID();
    const { path, url } = requestTarget(req.url ?? '/');
    const method = req.method ?? 'GET';

    const publicRoute = Object.hasOwn(options.publicRoutes ?? {}, path) ? options.publicRoutes![path] : undefined;
    if (publicRoute && method === 'GET') {
      const out = await publicRoute(req, requestId);
      return send(req, res, out.status, { 'X-Request-Id': requestId, ...out.headers }, out.body);
    }
    if (method === 'OPTIONS' && ROUTE_METHODS.some((m) => matchRoute(m, path))) {
      return send(req, res, 204, { ...CORS_PREFLIGHT_HEADERS, 'X-Request-Id': requestId }, '');
    }
    const match = matchRoute(method, path);
    if (!match) {
      const only = methodNotAllowed(method, path);
      if (only) return sendGatewayResponse(req, res, methodNotAllowedResponse(only.method), requestId);
      return sendGatewayResponse(req, res, 'MISSING_AUTHENTICATION_TOKEN', requestId);
    }

    const methodArn = `arn:aws:execute-api:${REGION}:${ACCOUNT}:${API_ID}/${stage}/${method}${path}`;
    const token = req.headers.authorization;
    const auth = await authorize(typeof token === 'string' ? token : undefined, methodArn);
    if ('refused' in auth) return sendGatewayResponse(req, res, auth.refused, requestId);

    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : (v ?? '')]),
    );
    const body = method === 'GET' || method === 'HEAD' ? undefined : await bodyOf(req);
    const event = proxyEvent({
      url,
      path,
      match,
      method,
      headers,
      body,
      authorizer: auth.context,
      requestId,
      stage,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      requestTime: options.clock().getTime(),
    });
    const invoker = invokers[match.route.fn];
    const context = lambdaContext(match.route.fn, requestId);
    if (invoker.streamed) {
      const status = await stream(req, res, invoker.handler, event, context);
      if (status === undefined) return sendGatewayResponse(req, res, 'DEFAULT_5XX', requestId);
      options.onInvoke?.(match.route.fn, event, status);
      return;
    }
    try {
      const result = await invoker.handler(event, context);
      options.onInvoke?.(match.route.fn, event, result.statusCode);
      // Lambda refuses to return a response over its limit: the invocation fails, and API Gateway
      // answers as for any function error (DEFAULT_5XX).
      if (Buffer.byteLength(JSON.stringify(result)) > LAMBDA_RESPONSE_LIMIT_BYTES)
        return sendGatewayResponse(req, res, 'DEFAULT_5XX', requestId);
      send(
        req,
        res,
        result.statusCode,
        headersOf(result),
        result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body,
      );
    } catch {
      // A function that throws past its middleware is an API Gateway 502/5xx.
      sendGatewayResponse(req, res, 'DEFAULT_5XX', requestId);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendGatewayResponse(req, res, 'DEFAULT_5XX', randomUUID());
    });
  });
  // Without this listener Node answers a request its parser refuses itself: 431 or 400 with an
  // empty body. API Gateway answers such a request (too large, malformed) with DEFAULT_4XX. Node's
  // limit on the request line and headers is 16 KB, API Gateway's 10,240 bytes: a request between
  // the two is served here (the fuzz test's longest paths are).
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(rawGatewayResponse('DEFAULT_4XX', randomUUID()));
  });
  return server;
}
