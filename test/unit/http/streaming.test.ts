import { gzipSync } from 'node:zlib';
import { installLambdaRuntime, isStreaming, type Prelude, ResponseStream } from '../../../local/lambda-streaming';
import type { ApiEvent, ApiResult } from '../../../shared/http/http';
import { lambdaHandler } from '../../../shared/http/streaming';

installLambdaRuntime();

/** What a streamed handler sends, read as API Gateway reads it: the prelude, then the body's bytes. */
async function invokeStreamed(handler: unknown): Promise<{ prelude: Prelude; body: Buffer }> {
  if (!isStreaming(handler)) throw new Error('not a streamed handler');
  let prelude: Prelude | undefined;
  const chunks: Buffer[] = [];
  const stream = new ResponseStream(
    (p) => {
      prelude = p;
    },
    (chunk) => chunks.push(chunk),
  );
  await handler({} as ApiEvent, stream, {});
  if (!prelude) throw new Error('no prelude');
  return { prelude, body: Buffer.concat(chunks) };
}

const answering = (result: ApiResult) => async () => result;

describe('lambdaHandler', () => {
  it('returns the buffered handler itself for a function the route table buffers', () => {
    const handler = answering({ statusCode: 200, body: '{}' });
    expect(lambdaHandler('platforms', handler)).toBe(handler);
  });

  it('streams the status and headers in the prelude, then the body, for a function the route table streams', async () => {
    const body = JSON.stringify({ data: 'x'.repeat(100_000) });
    const handler = lambdaHandler(
      'currencies',
      answering({ statusCode: 200, headers: { ETag: '"v1"', 'Content-Type': 'application/json' }, body }),
    );

    const out = await invokeStreamed(handler);

    expect(out.prelude).toEqual({ statusCode: 200, headers: { ETag: '"v1"', 'Content-Type': 'application/json' } });
    expect(out.body.toString('utf8')).toBe(body);
  });

  it('streams a compressed body as its bytes, not as the base64 text of the proxy result', async () => {
    const coded = gzipSync(Buffer.from('{"data":[]}'));
    const handler = lambdaHandler(
      'currencies',
      answering({
        statusCode: 200,
        headers: { 'Content-Encoding': 'gzip' },
        body: coded.toString('base64'),
        isBase64Encoded: true,
      }),
    );

    const out = await invokeStreamed(handler);

    expect(out.prelude).toEqual({ statusCode: 200, headers: { 'Content-Encoding': 'gzip' } });
    expect(out.body.equals(coded)).toBe(true);
  });

  it('sends the prelude of an answer without a body (a 304)', async () => {
    const out = await invokeStreamed(
      lambdaHandler('currencies', answering({ statusCode: 304, headers: {}, body: '' })),
    );

    expect(out.prelude.statusCode).toBe(304);
    expect(out.body.length).toBe(0);
  });
});

describe('ResponseStream', () => {
  it('reads a prelude whose delimiter is split across writes, and the body after it', async () => {
    const preludes: Prelude[] = [];
    const chunks: Buffer[] = [];
    const stream = new ResponseStream(
      (p) => preludes.push(p),
      (chunk) => chunks.push(chunk),
    );
    const head = Buffer.concat([Buffer.from('{"statusCode":404}'), Buffer.alloc(8), Buffer.from('{"error"')]);
    await new Promise<void>((resolve) => stream.write(head.subarray(0, 21), () => resolve()));
    expect(stream.started).toBe(false);
    stream.write(head.subarray(21));
    await new Promise<void>((resolve) => stream.end(Buffer.from(':{}}'), () => resolve()));

    expect(preludes).toEqual([{ statusCode: 404 }]);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('{"error":{}}');
  });
});
