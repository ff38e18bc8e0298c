/**
 * The real client against misbehaving DynamoDB endpoints on the loopback (docs/architecture.md, timeouts in shared/platform/config.ts): one that
 * accepts connections and never answers, one that resets them, one that answers 500 or throttles,
 * one that answers garbage. The client's timeouts and bounded retries (CLIENT_TIMEOUTS) must turn
 * each into an error within seconds, and the functions into a 503 envelope: never a wait for API
 * Gateway's 29 s integration timeout. Elapsed times are bounds, not benchmarks.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import type { AuthorizerHandler } from '../../../functions/authorizer/authorizer';
import { buildFunctions } from '../../../local/functions';
import type { ApiEvent, ApiResult } from '../../../shared/http/http';
import { ENV, readConfig } from '../../../shared/platform/config';
import { CLIENT_TIMEOUTS, createClients } from '../../../shared/platform/dynamodb';
import { isDependencyFailure } from '../../../shared/platform/errors';
import { setLogSink } from '../../../shared/platform/logger';
import { apiEvent } from '../../helpers/embedded';

/** What the timeouts allow: every attempt timing out, plus retry delays; well under API Gateway's 29 s. */
const BOUND_MS = 10_000;
/** A test gives up waiting here, so a missing timeout fails the test instead of hanging it. */
const GIVE_UP_MS = BOUND_MS + 2_000;

const TABLE = 'md-timeouts-table';

interface Endpoint {
  url: string;
  close: () => Promise<void>;
}

/** A TCP server that accepts every connection and never writes a byte. */
async function silentServer(): Promise<Endpoint> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A TCP server that resets every connection as soon as the request arrives. */
async function resettingServer(): Promise<Endpoint> {
  const server: Server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.resetAndDestroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An HTTP server that answers every DynamoDB call with the given status and body. */
async function answeringServer(
  status: number,
  body: string,
  contentType = 'application/x-amz-json-1.0',
): Promise<Endpoint & { calls: () => number }> {
  let calls = 0;
  const server: HttpServer = createHttpServer((req, res) => {
    calls++;
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'Content-Type': contentType, 'x-amzn-RequestId': `REQ${calls}` });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Settle `promise`, or report that it was still pending after GIVE_UP_MS. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown; pending?: true }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<{ pending: true }>((resolve) => {
    timer = setTimeout(() => resolve({ pending: true }), GIVE_UP_MS);
  });
  const settled = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const outcome = await Promise.race([settled, giveUp]);
  clearTimeout(timer);
  return { ms: performance.now() - started, ...outcome };
}

type Handler = (event: ApiEvent, context: never) => Promise<ApiResult>;

let endpoint: Endpoint | undefined;
let client: DynamoDBDocumentClient | undefined;
let counterClient: DynamoDBDocumentClient | undefined;
/** The functions' request time: quotas and keys are judged at it. */
const NOW = new Date('2026-11-20T10:00:00.000Z');
let platformsHandler: Handler;
let authorizerHandler: AuthorizerHandler;

/** Build the functions on `url` as their composition roots do: production timeouts and retries. */
function useEndpoint(url: string) {
  const config = readConfig({ [ENV.tableName]: TABLE, [ENV.dynamodbEndpoint]: url, [ENV.snapshotCacheMs]: '0' });
  const clients = createClients(config);
  ({ client, counterClient } = clients);
  const built = buildFunctions(config, clients, () => NOW);
  platformsHandler = built.handlers.platforms;
  authorizerHandler = built.authorizer;
}

beforeAll(() => {
  setLogSink(() => undefined);
});

afterEach(async () => {
  client?.destroy();
  counterClient?.destroy();
  client = undefined;
  await endpoint?.close();
  endpoint = undefined;
});

afterAll(() => {
  setLogSink(() => undefined);
});

it('the configured bounds leave room under API Gateway’s 29 s', () => {
  const worst = CLIENT_TIMEOUTS.maxAttempts * (CLIENT_TIMEOUTS.connectionTimeoutMs + CLIENT_TIMEOUTS.requestTimeoutMs);
  expect(worst).toBeLessThan(BOUND_MS);
  expect(CLIENT_TIMEOUTS.maxAttempts).toBeGreaterThanOrEqual(2);
});

type Outcome<T> = Awaited<ReturnType<typeof timed<T>>>;

describe('a DynamoDB that accepts connections and never answers', () => {
  // The three calls wait out the same silent endpoint, started together: one wait for all three.
  let outcomes: { call: Outcome<unknown>; family: Outcome<ApiResult>; authorizer: Outcome<unknown> };
  beforeAll(async () => {
    endpoint = await silentServer();
    useEndpoint(endpoint.url);
    const event = {
      type: 'TOKEN',
      authorizationToken: `Bearer ${'t'.repeat(40)}`,
      methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:abc123/prod/GET/api/v1/exchanges',
    } as APIGatewayTokenAuthorizerEvent;
    const [call, family, authorizer] = await Promise.all([
      timed<unknown>(client!.send(new GetCommand({ TableName: TABLE, Key: { PK: 'SNAPSHOT', SK: 'CURRENT' } }))),
      timed((platformsHandler as unknown as Handler)(apiEvent('/api/v1/exchanges'), {} as never)),
      timed<unknown>(authorizerHandler(event)),
    ]);
    outcomes = { call, family, authorizer };
  });

  it(`a client call fails with a dependency error within ${BOUND_MS / 1000} s`, () => {
    const outcome = outcomes.call;
    expect({ pending: outcome.pending ?? false, withinBound: outcome.ms < BOUND_MS }).toEqual({
      pending: false,
      withinBound: true,
    });
    expect(outcome.error).toBeDefined();
    expect(isDependencyFailure(outcome.error)).toBe(true);
    // It timed out rather than failing at once: the request timeout, not a refused connection.
    expect(outcome.ms).toBeGreaterThanOrEqual(CLIENT_TIMEOUTS.requestTimeoutMs);
  });

  it(`a family function answers 503 service_unavailable within ${BOUND_MS / 1000} s`, () => {
    const outcome = outcomes.family;
    expect({ pending: outcome.pending ?? false, withinBound: outcome.ms < BOUND_MS }).toEqual({
      pending: false,
      withinBound: true,
    });
    expect(outcome.value?.statusCode).toBe(503);
    expect(JSON.parse(outcome.value!.body)).toEqual({
      error: { code: 'service_unavailable', message: expect.any(String), details: null },
    });
    expect(outcome.value!.headers?.['Retry-After']).toMatch(/^[1-9][0-9]*$/);
  });

  it(`the authorizer fails closed (not 'Unauthorized') within ${BOUND_MS / 1000} s`, () => {
    const outcome = outcomes.authorizer;
    expect({ pending: outcome.pending ?? false, withinBound: outcome.ms < BOUND_MS }).toEqual({
      pending: false,
      withinBound: true,
    });
    expect(outcome.error).toBeInstanceOf(Error);
    expect((outcome.error as Error).message).not.toBe('Unauthorized');
  });
});

describe('other broken endpoints: a 503 envelope within the bound, no SDK detail in the body', () => {
  const cases: [string, () => Promise<Endpoint>][] = [
    ['resets every connection', resettingServer],
    [
      'answers 500 InternalServerError',
      () =>
        answeringServer(
          500,
          JSON.stringify({ __type: 'com.amazon.coral.service#InternalServerError', message: `boom in ${TABLE}` }),
        ),
    ],
    [
      'answers 400 ThrottlingException',
      () =>
        answeringServer(
          400,
          JSON.stringify({
            __type: 'com.amazon.coral.availability#ThrottlingException',
            message: `Rate of requests exceeds the allowed throughput (${TABLE})`,
          }),
        ),
    ],
    [
      'answers 400 ProvisionedThroughputExceededException',
      () =>
        answeringServer(
          400,
          JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
            message: `throughput exceeded on ${TABLE}`,
          }),
        ),
    ],
    [
      'answers 503 with an HTML page',
      () => answeringServer(503, `<html><body>Service Unavailable ${TABLE}</body></html>`, 'text/html'),
    ],
  ];

  it.each(cases)('a DynamoDB that %s', async (_, start) => {
    endpoint = await start();
    useEndpoint(endpoint.url);
    const outcome = await timed(
      (platformsHandler as unknown as Handler)(apiEvent('/api/v1/wallets/trezor'), {} as never),
    );
    expect({ pending: outcome.pending ?? false, withinBound: outcome.ms < BOUND_MS }).toEqual({
      pending: false,
      withinBound: true,
    });
    expect(outcome.value?.statusCode).toBe(503);
    expect(JSON.parse(outcome.value!.body)).toEqual({
      error: { code: 'service_unavailable', message: expect.any(String), details: null },
    });
    expect(outcome.value!.body).not.toContain(TABLE);
    expect(outcome.value!.headers?.['Retry-After']).toMatch(/^[1-9][0-9]*$/);
  });

  it('retries are bounded: a failing DynamoDB sees at most maxAttempts calls per operation', async () => {
    const server = await answeringServer(
      500,
      JSON.stringify({ __type: 'com.amazon.coral.service#InternalServerError', message: 'boom' }),
    );
    endpoint = server;
    useEndpoint(server.url);
    const outcome = await timed(
      client!.send(new GetCommand({ TableName: TABLE, Key: { PK: 'SNAPSHOT', SK: 'CURRENT' } })),
    );
    expect(outcome.error).toBeDefined();
    expect(server.calls()).toBe(CLIENT_TIMEOUTS.maxAttempts);
  });

  it('a 200 answer that is not JSON is an envelope too (no parser message leaks)', async () => {
    endpoint = await answeringServer(200, `<<not json ${TABLE}>>`);
    useEndpoint(endpoint.url);
    const outcome = await timed((platformsHandler as unknown as Handler)(apiEvent('/api/v1/exchanges'), {} as never));
    expect(outcome.pending).toBeUndefined();
    expect([500, 503]).toContain(outcome.value?.statusCode);
    const body = JSON.parse(outcome.value!.body);
    expect(Object.keys(body)).toEqual(['error']);
    expect(['service_unavailable', 'internal_error']).toContain(body.error.code);
    expect(outcome.value!.body).not.toContain(TABLE);
    expect(outcome.value!.body).not.toMatch(/Unexpected token|JSON/);
  });
});
