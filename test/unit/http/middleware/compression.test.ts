/**
 * Content coding in the functions (shared/http/middleware/compression.ts): which coding a request gets,
 * the coded answer API Gateway's proxy passes on (base64, isBase64Encoded, Content-Encoding), and
 * a strong ETag per coding that still matches its own 304.
 */
import { gunzipSync, inflateSync } from 'node:zlib';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../../../local/events';
import type { ApiEvent, ApiResult } from '../../../../shared/http/http';
import { compression, MIN_COMPRESSION_BYTES, preferredCoding } from '../../../../shared/http/middleware/compression';
import { conditionalRequests, strongEtag } from '../../../../shared/http/middleware/conditional-requests';
import { responseHeaders } from '../../../../shared/http/middleware/response-headers';

describe('preferredCoding', () => {
  it.each([
    [[], undefined],
    [['gzip'], 'gzip'],
    [['gzip, deflate, br'], 'gzip'],
    [['br'], undefined],
    [['deflate'], 'deflate'],
    [['deflate;q=1, gzip;q=0.5'], 'deflate'],
    [['GZIP;Q=0.8'], 'gzip'],
    [['gzip;q=0'], undefined],
    [['*'], 'gzip'],
    [['*;q=0.1, gzip;q=0'], 'deflate'],
    [['identity'], undefined],
    [['br', 'gzip'], 'gzip'],
  ] as const)('%j gives %s', (values, coding) => {
    expect(preferredCoding(values)).toBe(coding);
  });
});

const LARGE = JSON.stringify({
  data: Array.from({ length: 200 }, (_, id) => ({ id, name: `offer ${id}` })),
  pagination: {},
});
const SMALL = '{"data":[],"pagination":{}}';

/** A list route answering `body`, wrapped as the family functions are (the middleware that concerns coding). */
function serve(body: string, headers: Record<string, string>) {
  const event = apiEvent('/api/v1/exchanges');
  for (const [name, value] of Object.entries(headers)) {
    event.headers[name] = value;
    event.multiValueHeaders[name] = [value];
  }
  const handler = middy<ApiEvent, ApiResult>(async () => ({
    statusCode: 200,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body,
  }))
    .use(compression())
    .use(responseHeaders())
    .use(conditionalRequests());
  return handler(event, {} as Context);
}

describe('compression', () => {
  it('codes a large answer for a client that accepts gzip, base64 for the proxy, tagged as its coding', async () => {
    const res = await serve(LARGE, { 'accept-encoding': 'gzip, deflate, br' });

    expect(Buffer.byteLength(LARGE)).toBeGreaterThanOrEqual(MIN_COMPRESSION_BYTES);
    expect(res.isBase64Encoded).toBe(true);
    expect(res.headers).toMatchObject({
      'Content-Encoding': 'gzip',
      Vary: 'Accept-Encoding',
      ETag: strongEtag(LARGE, 'gzip'),
    });
    expect(gunzipSync(Buffer.from(res.body, 'base64')).toString('utf8')).toBe(LARGE);
    expect(strongEtag(LARGE, 'gzip')).toBe(strongEtag(LARGE).replace(/"$/, '-gzip"'));
  });

  it('codes with deflate for a client that accepts only that', async () => {
    const res = await serve(LARGE, { 'Accept-Encoding': 'deflate' });
    expect(res.headers).toMatchObject({ 'Content-Encoding': 'deflate', ETag: strongEtag(LARGE, 'deflate') });
    expect(inflateSync(Buffer.from(res.body, 'base64')).toString('utf8')).toBe(LARGE);
  });

  it.each([
    ['no Accept-Encoding', LARGE, {}],
    ['a coding the functions do not produce', LARGE, { 'Accept-Encoding': 'br' }],
    ['a body under the threshold', SMALL, { 'Accept-Encoding': 'gzip' }],
  ])('leaves the answer as it is for %s, with the identity tag and Vary', async (_case, body, headers) => {
    const res = await serve(body, headers);
    expect(res.isBase64Encoded).toBeFalsy();
    expect(res.body).toBe(body);
    expect(res.headers?.['Content-Encoding']).toBeUndefined();
    expect(res.headers).toMatchObject({ ETag: strongEtag(body), Vary: 'Accept-Encoding' });
  });

  it("answers 304 to the tag of the client's coding, and the full answer to the other coding's tag", async () => {
    const gzip = await serve(LARGE, { 'Accept-Encoding': 'gzip', 'If-None-Match': strongEtag(LARGE, 'gzip') });
    expect(gzip.statusCode).toBe(304);
    expect(gzip.body).toBe('');
    expect(gzip.headers).toMatchObject({ ETag: strongEtag(LARGE, 'gzip'), Vary: 'Accept-Encoding' });
    expect(gzip.headers?.['Content-Encoding']).toBeUndefined();

    const identity = await serve(LARGE, { 'If-None-Match': strongEtag(LARGE) });
    expect(identity.statusCode).toBe(304);

    const other = await serve(LARGE, { 'Accept-Encoding': 'gzip', 'If-None-Match': strongEtag(LARGE) });
    expect(other.statusCode).toBe(200);
  });
});
