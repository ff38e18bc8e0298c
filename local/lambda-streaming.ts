/**
 * What Lambda's Node.js runtime gives a streamed function, for the local stack: the `awslambda`
 * global (`streamifyResponse` marks the handler, `HttpResponseStream.from` writes the prelude with
 * the status and headers, then eight NUL bytes, before the body), and the reading of such a stream
 * as API Gateway does: the prelude gives the status and headers, the rest is the body.
 */
import { Writable } from 'node:stream';
import { runInThisContext } from 'node:vm';

/** The mark the runtime looks for on a handler (aws-lambda-nodejs-runtime-interface-client). */
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const DELIMITER = Buffer.alloc(8);

export interface Prelude {
  statusCode: number;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, (string | number | boolean)[]>;
}

/** A streamed handler as the runtime calls it. */
export type StreamingHandler = (event: unknown, responseStream: Writable, context: unknown) => Promise<void>;

const runtime = {
  streamifyResponse: (handler: StreamingHandler) => Object.assign(handler, { [STREAMING]: 'response' }),
  HttpResponseStream: {
    from: (stream: Writable, prelude: Prelude) => {
      stream.write(JSON.stringify(prelude));
      stream.write(DELIMITER);
      return stream;
    },
  },
};

/**
 * Gives `awslambda` what streaming needs where it is missing: in this realm and in Node's main one,
 * where bundles run (local/bundles.ts). The AWS SDK may have made the object already (its invoke
 * store lives on it): its members are kept. Call it before a streamed function is built: middy
 * calls `streamifyResponse` then.
 */
export function installLambdaRuntime(): void {
  for (const realm of [globalThis, runInThisContext('globalThis') as typeof globalThis]) {
    const scope = realm as unknown as { awslambda?: Partial<typeof runtime> };
    const awslambda = (scope.awslambda ??= {});
    awslambda.streamifyResponse ??= runtime.streamifyResponse;
    awslambda.HttpResponseStream ??= runtime.HttpResponseStream;
  }
}

export const isStreaming = (handler: unknown): handler is StreamingHandler =>
  typeof handler === 'function' && (handler as unknown as Record<symbol, unknown>)[STREAMING] === 'response';

/**
 * The response stream a streamed handler writes to: `onPrelude` once the delimiter is read, then
 * `onBody` with each piece of the body as it comes.
 */
export class ResponseStream extends Writable {
  private head: Buffer | undefined = Buffer.alloc(0);

  constructor(
    private readonly onPrelude: (prelude: Prelude) => void,
    private readonly onBody: (chunk: Buffer) => void,
  ) {
    super();
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error) => void): void {
    try {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (this.head === undefined) {
        if (bytes.length) this.onBody(bytes);
      } else {
        this.head = Buffer.concat([this.head, bytes]);
        const end = this.head.indexOf(DELIMITER);
        if (end >= 0) {
          const rest = this.head.subarray(end + DELIMITER.length);
          this.onPrelude(JSON.parse(this.head.subarray(0, end).toString('utf8')) as Prelude);
          this.head = undefined;
          if (rest.length) this.onBody(rest);
        }
      }
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  /** Whether the prelude has been read (the status and headers are known). */
  get started(): boolean {
    return this.head === undefined;
  }
}
