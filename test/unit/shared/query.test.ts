import { ValidationError } from '../../../shared/errors';
import { HISTORY_PARAMS, LIST_PARAMS, OFFER_LIST_PARAMS, parseOfferId, parseQuery } from '../../../shared/schemas/query';

const messagesOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error.messages;
    throw error;
  }
  throw new Error('expected a validation error');
};

describe('parseQuery', () => {
  it('applies defaults and converts integers', () => {
    expect(parseQuery({}, LIST_PARAMS)).toEqual({ limit: 50, offset: 0 });
    expect(parseQuery({ limit: ['200'], offset: ['007'] }, LIST_PARAMS)).toEqual({ limit: 200, offset: 7 });
    expect(parseQuery({}, HISTORY_PARAMS)).toEqual({ period: '1m' });
  });

  it.each([
    [{ limit: ['0'] }, ['limit must not be less than 1']],
    [{ limit: ['201'] }, ['limit must not be greater than 200']],
    [{ limit: ['-3'] }, ['limit must not be less than 1']],
    [{ limit: ['1e2'] }, ['limit must be an integer']],
    [{ limit: [' 5'] }, ['limit must be an integer']],
    [{ offset: ['9007199254740992'] }, ['offset must not be greater than 9007199254740991']],
    [{ offset: [''] }, ['offset must not be empty']],
    [{ offset: ['1', '2'] }, ['offset must not be repeated']],
    [{ foo: ['1'], bar: [''] }, ['property foo should not exist', 'property bar should not exist']],
  ])('refuses %j', (values, expected) => {
    expect(messagesOf(() => parseQuery(values, LIST_PARAMS))).toEqual(expected);
  });

  it('accepts min_apy as digits with an optional fraction, on earn and borrow only', () => {
    expect(parseQuery({ min_apy: ['4.75'] }, OFFER_LIST_PARAMS.earn)).toMatchObject({ min_apy: '4.75' });
    expect(messagesOf(() => parseQuery({ min_apy: ['-1'] }, OFFER_LIST_PARAMS.borrow))).toEqual(['min_apy must not be less than 0']);
    expect(messagesOf(() => parseQuery({ min_apy: ['.5'] }, OFFER_LIST_PARAMS.earn))).toEqual(['min_apy must be a decimal number such as 4.75']);
    expect(messagesOf(() => parseQuery({ min_apy: ['1'] }, OFFER_LIST_PARAMS.collateral))).toEqual(['property min_apy should not exist']);
  });

  it('checks enums', () => {
    expect(messagesOf(() => parseQuery({ sort: ['best'] }, OFFER_LIST_PARAMS.earn))).toEqual([
      'sort must be one of the following values: apy_desc, apy_asc, tvl_desc, updated_desc',
    ]);
    expect(parseQuery({ sort: ['tvl_desc'], platform_type: ['wallet'] }, OFFER_LIST_PARAMS.collateral)).toMatchObject({ sort: 'tvl_desc', platform_type: 'wallet' });
  });
});

describe('parseOfferId', () => {
  it.each(['0', '12', '9007199254740991'])('accepts %s', (id) => expect(parseOfferId(id)).toBe(Number(id)));
  it.each(['', 'abc', '+5', '1.0', '1e2', '9007199254740992', '-1', '-0'])('refuses %j naming id', (id) => {
    expect(messagesOf(() => parseOfferId(id)).join(' ')).toMatch(/^id /);
  });
});
