/**
 * Content coding in the function (docs/api.md, "Compression"): a body of at least
 * `MIN_COMPRESSION_BYTES` goes out gzip- (or deflate-) compressed when the request accepts it,
 * base64 with `isBase64Encoded`, which API Gateway's Lambda proxy decodes (the API treats every
 * media type as binary: lib/constructs/rest-api.ts) and passes on without compressing again (it never compresses an answer that
 * has a Content-Encoding). A Lambda response is at most 6 MB: compressed, a currency detail of many
 * times that fits (docs/performance.md, "The largest answer").
 *
 * The coding is part of the representation, so a strong ETag names it (RFC 9110 §8.8.3): the
 * conditional requests middleware tags with `codingOf` and this one compresses with it, the two
 * deciding alike from the request and the identity body.
 */
import { constants, deflateSync, gzipSync } from 'node:zlib';
import type middy from '@middy/core';
import { type ApiEvent, type ApiResult, headerValues } from '../http';

/** Smaller bodies gain too little to pay for the coding; API Gateway's `minimumCompressionSize` is the same. */
export const MIN_COMPRESSION_BYTES = 1024;

/** The codings the functions produce, in their order of preference at equal quality. */
const CODINGS = ['gzip', 'deflate'] as const;
export type ContentCoding = (typeof CODINGS)[number];

/**
 * The coding an Accept-Encoding field value asks for (RFC 9110 §12.5.3): the produced coding of
 * highest quality, `*` standing for any not named, `q=0` refusing; none without the field.
 * @internal (exported for its tests)
 */
export function preferredCoding(values: readonly string[]): ContentCoding | undefined {
  const quality = new Map<string, number>();
  for (const part of values.join(',').split(',')) {
    const [coding, ...parameters] = part.split(';').map((p) => p.trim().toLowerCase());
    if (!coding) continue;
    const q = parameters.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    quality.set(coding, Number.isFinite(value) ? value : 0);
  }
  let best: ContentCoding | undefined;
  let bestQuality = 0;
  for (const coding of CODINGS) {
    const q = quality.get(coding) ?? quality.get('*') ?? 0;
    if (q > bestQuality) [best, bestQuality] = [coding, q];
  }
  return best;
}

/** The coding the answer with this identity body gets for this request, if any. */
export function codingOf(event: ApiEvent, body: string): ContentCoding | undefined {
  if (Buffer.byteLength(body, 'utf8') < MIN_COMPRESSION_BYTES) return undefined;
  return preferredCoding(headerValues(event, 'Accept-Encoding'));
}

/**
 * zlib's fastest level: the function pays for the coding on every large answer, in its latency and
 * its billed duration. It trades some ratio for speed against the default level (measured:
 * docs/performance.md, "The largest answer").
 */
const LEVEL = { level: constants.Z_BEST_SPEED };
const ENCODERS: Record<ContentCoding, (input: Buffer) => Buffer> = {
  gzip: (input) => gzipSync(input, LEVEL),
  deflate: (input) => deflateSync(input, LEVEL),
};

export function compression(): middy.MiddlewareObj<ApiEvent, ApiResult> {
  const compressionAfter: middy.MiddlewareFn<ApiEvent, ApiResult> = async (request) => {
    const response = request.response;
    if (!response?.body || response.isBase64Encoded) return;
    const headers = response.headers ?? {};
    if (Object.keys(headers).some((name) => name.toLowerCase() === 'content-encoding')) return;
    const coding = codingOf(request.event, response.body);
    if (!coding) return;
    request.response = {
      ...response,
      headers: { ...headers, 'Content-Encoding': coding },
      body: ENCODERS[coding](Buffer.from(response.body, 'utf8')).toString('base64'),
      isBase64Encoded: true,
    };
  };
  return { after: compressionAfter, onError: compressionAfter };
}
