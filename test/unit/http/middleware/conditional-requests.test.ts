/** Entity tags and If-None-Match matching (RFC 9110 §8.8.3, §13.1.2); what a 304 keeps of the 200. */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { apiEvent } from '../../../../local/events';
import type { ApiEvent, ApiResult } from '../../../../shared/http/http';
import {
  conditionalRequests,
  ifNoneMatchMatches,
  strongEtag,
} from '../../../../shared/http/middleware/conditional-requests';

describe('strongEtag', () => {
  it.each([
    ['', '"47DEQpj8HBSa-_TImW-5JA"'],
    ['{"data":[]}', '"j-MuQHoQOO44dTtw5TdLOg"'],
  ])('tags %j with the first 128 bits of its SHA-256, base64url, quoted', (body, tag) => {
    expect(strongEtag(body)).toBe(tag);
  });

  it('differs when one byte of the body differs', () => {
    expect(strongEtag('{"a":1}')).not.toBe(strongEtag('{"a":2}'));
  });
});

describe('ifNoneMatchMatches', () => {
  const tag = '"abc"';
  it.each([
    ['the same tag', ['"abc"'], true],
    ['the weak form of the tag (weak comparison)', ['W/"abc"'], true],
    ['a list holding the tag', ['"x", W/"y", "abc"'], true],
    ['the tag in a second field', ['"x"', '"abc"'], true],
    ['*', ['*'], true],
    ['* with spaces', [' * '], true],
    ['another tag', ['"abd"'], false],
    ['the tag unquoted', ['abc'], false],
    ['a different case', ['"ABC"'], false],
    ['an empty value', [''], false],
    ['no field', [], false],
  ])('%s: %j → %s', (_, values, expected) => {
    expect(ifNoneMatchMatches(values, tag)).toBe(expected);
  });
});

describe('conditionalRequests', () => {
  const LIST: ApiResult = {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Last-Modified': 'Fri, 20 Nov 2026 10:00:00 GMT',
      Link: '</api/v1/earn?offset=50&snapshot=v2>; rel="next"',
    },
    body: '{"data":[],"pagination":{"total":0,"offset":0,"limit":50,"has_more":false,"snapshot":"v2"}}',
  };
  const answer = (ifNoneMatch?: string) => {
    const event = apiEvent('/api/v1/earn');
    if (ifNoneMatch !== undefined) event.headers = { 'If-None-Match': ifNoneMatch };
    return middy<ApiEvent, ApiResult>(async () => LIST).use(conditionalRequests())(event, {} as Context);
  };

  it('tags a list 200 and keeps its Last-Modified and Link', async () => {
    const res = await answer();
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      ETag: strongEtag(LIST.body),
      'Last-Modified': LIST.headers!['Last-Modified'],
      Link: LIST.headers!.Link,
    });
  });

  it('answers a matching If-None-Match with a 304 that keeps Last-Modified and drops Link and Content-Type', async () => {
    const res = await answer(strongEtag(LIST.body));
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers).toEqual({
      ETag: strongEtag(LIST.body),
      'Last-Modified': 'Fri, 20 Nov 2026 10:00:00 GMT',
      'Cache-Control': 'private, no-cache',
    });
  });
});
