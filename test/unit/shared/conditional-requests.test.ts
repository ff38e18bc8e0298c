/** Entity tags and If-None-Match matching (RFC 9110 §8.8.3, §13.1.2). */
import { ifNoneMatchMatches, strongEtag } from '../../../shared/middleware/conditional-requests';

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
