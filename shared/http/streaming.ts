/**
 * A family function as Lambda runs it (ADR 0014): a function whose Transfer is `stream`
 * (shared/http/routes.ts) answers through `awslambda.streamifyResponse` (middy's
 * `streamifyResponse`), which no response size limit refuses; the others return the proxy result.
 * The middleware chain is the same either way and runs to its end before a byte leaves: the status
 * and headers it settled (ETag, usage, coding, error envelope) go in the stream's prelude, then the
 * body as bytes (a compressed body decoded from its base64).
 */
import { Readable } from 'node:stream';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from './http';
import { type FunctionName, transferOf } from './routes';

type BufferedHandler = (event: ApiEvent, context: Context) => Promise<ApiResult>;

/** What middy's streamifyResponse takes: the prelude's fields and the body as a stream. */
interface StreamedResult {
  statusCode: number;
  headers?: ApiResult['headers'];
  multiValueHeaders?: ApiResult['multiValueHeaders'];
  body: Readable;
}

/** The proxy result as a streamed one: the same status and headers, the body's bytes. */
function streamedResult(result: ApiResult): StreamedResult {
  const { statusCode, headers, multiValueHeaders, body, isBase64Encoded } = result;
  const bytes = Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
  return {
    statusCode,
    ...(headers && { headers }),
    ...(multiValueHeaders && { multiValueHeaders }),
    // One chunk, even an empty one: the runtime writes the prelude before the first chunk.
    body: Readable.from([bytes]),
  };
}

/** The handler a composition root exports: streamed or buffered as the route table says. */
export function lambdaHandler(fn: FunctionName, handler: BufferedHandler): BufferedHandler {
  if (transferOf(fn) === 'buffer') return handler;
  // Typed as the buffered handler: Lambda's runtime, marked by streamifyResponse, calls it with a response stream.
  const streamed = async (event: ApiEvent, context: Context) => streamedResult(await handler(event, context));
  return middy<ApiEvent, StreamedResult, Error, Context>(streamed, {
    streamifyResponse: true,
  }) as unknown as BufferedHandler;
}
