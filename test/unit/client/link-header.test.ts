/** The client's reading of a `Link` field (RFC 8288): targets by relation type, commas inside targets kept. */
import { parseLinkHeader } from '../../../client';

describe('parseLinkHeader', () => {
  it.each([
    ['nothing', null, {}],
    ['an empty field', '', {}],
    ['one link', '</a?x=1>; rel="next"', { next: '/a?x=1' }],
    [
      'two links, commas inside a target',
      '</a?asset=b,c&offset=2>; rel="next", </a?asset=b,c&offset=0>; rel="prev"',
      { next: '/a?asset=b,c&offset=2', prev: '/a?asset=b,c&offset=0' },
    ],
    ['a token rel and spaces', '<https://h/p> ;rel=next ; title="x"', { next: 'https://h/p' }],
    ['several relation types in one rel, any case', '</p>; rel="Next last"', { next: '/p', last: '/p' }],
    ['a link without rel', '</p>; title="x", </q>; rel="next"', { next: '/q' }],
    ['the first of two links of one type', '</1>; rel="next", </2>; rel="next"', { next: '/1' }],
  ])('%s', (_, value, expected) => {
    expect(parseLinkHeader(value)).toEqual(expected);
  });
});
