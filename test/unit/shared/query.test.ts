import { ValidationError } from '../../../shared/errors';
import { HISTORY_QUERY, LIST_QUERY, NO_QUERY, OFFER_LIST_QUERY, parseOfferId, parseQuery, quoted } from '../../../shared/schemas/query';

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
    expect(parseQuery(LIST_QUERY(), {})).toEqual({ limit: 50, offset: 0 });
    expect(parseQuery(LIST_QUERY(), { limit: ['200'], offset: ['007'] })).toEqual({ limit: 200, offset: 7 });
    expect(parseQuery(HISTORY_QUERY(), {})).toEqual({ period: '1m' });
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
    expect(messagesOf(() => parseQuery(LIST_QUERY(), values))).toEqual(expected);
  });

  it('accepts min_apy as a JSON number without sign, on earn and borrow only', () => {
    for (const value of ['0', '4.75', '1e-7', '1.5E+2', '2.5E1', '0e0', '1'.repeat(32)]) {
      expect(parseQuery(OFFER_LIST_QUERY.earn(), { min_apy: [value] })).toMatchObject({ min_apy: value });
    }
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.borrow(), { min_apy: ['-1'] }))).toEqual(['min_apy must not be less than 0']);
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { min_apy: ['.5'] }))).toEqual(['min_apy must be a decimal number such as 4.75']);
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.collateral(), { min_apy: ['1'] }))).toEqual(['property min_apy should not exist']);
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.borrow(), { min_apy: ['-1e-7'] }))).toEqual(['min_apy must not be less than 0']);
    for (const value of ['+1', '5.', '05', '1e', '1e+', '1.e5', '-0', 'Infinity', '0x10', ' 1']) {
      expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { min_apy: [value] }))).toEqual(['min_apy must be a decimal number such as 4.75']);
    }
  });

  it('refuses a min_apy longer than 32 characters, whatever its form', () => {
    for (const value of ['1'.repeat(33), `1e-${'0'.repeat(29)}7`, '9'.repeat(15_000)]) {
      expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { min_apy: [value] }))).toEqual(['min_apy must not be longer than 32 characters']);
    }
  });

  it('bounds the slug filters at 256 characters', () => {
    expect(parseQuery(OFFER_LIST_QUERY.earn(), { asset: ['a'.repeat(256)] })).toMatchObject({ asset: 'a'.repeat(256) });
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { asset: ['a'.repeat(257)], platform: ['p'.repeat(10_000)] }))).toEqual([
      'platform must not be longer than 256 characters',
      'asset must not be longer than 256 characters',
    ]);
  });

  it('quotes at most 64 characters of an unknown parameter name', () => {
    const name = 'x'.repeat(15_000);
    expect(messagesOf(() => parseQuery(NO_QUERY(), { [name]: ['1'], ['y'.repeat(64)]: ['1'] }))).toEqual([
      `property ${'x'.repeat(64)}… should not exist`,
      `property ${'y'.repeat(64)} should not exist`,
    ]);
  });

  it('gives every route its own inferred type', () => {
    const history = parseQuery(HISTORY_QUERY(), { period: ['1y'] });
    const period: '24h' | '1w' | '1m' | '3m' | '1y' | 'all' = history.period;
    expect(period).toBe('1y');
    expect(parseQuery(NO_QUERY(), {})).toEqual({});
  });

  it('checks enums', () => {
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { sort: ['best'] }))).toEqual([
      'sort must be one of the following values: apy_desc, apy_asc, tvl_desc, updated_desc',
    ]);
    expect(parseQuery(OFFER_LIST_QUERY.collateral(), { sort: ['tvl_desc'], platform_type: ['wallet'] })).toMatchObject({ sort: 'tvl_desc', platform_type: 'wallet' });
  });

  it('answers a query it parsed before with the same frozen result, per schema and exact parameters', () => {
    const first = parseQuery(LIST_QUERY(), { limit: ['17'], offset: ['3'] });
    const again = parseQuery(LIST_QUERY(), { limit: ['17'], offset: ['3'] });
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { limit: number }).limit = 1;
    }).toThrow(TypeError);
    // Other values, or the same values under another schema, are parsed on their own.
    expect(parseQuery(LIST_QUERY(), { limit: ['18'], offset: ['3'] })).toEqual({ limit: 18, offset: 3 });
    expect(parseQuery(OFFER_LIST_QUERY.earn(), { limit: ['17'], offset: ['3'] })).not.toBe(first);
  });

  it('parses an invalid query every time, and keeps at most 256 results per schema', () => {
    expect(messagesOf(() => parseQuery(LIST_QUERY(), { limit: ['0'] }))).toEqual(['limit must not be less than 1']);
    expect(messagesOf(() => parseQuery(LIST_QUERY(), { limit: ['0'] }))).toEqual(['limit must not be less than 1']);
    const oldest = parseQuery(LIST_QUERY(), { offset: ['100000'] });
    for (let offset = 0; offset < 255; offset++) parseQuery(LIST_QUERY(), { offset: [String(offset)] });
    expect(parseQuery(LIST_QUERY(), { offset: ['100000'] })).toBe(oldest);
    // One more distinct query past the bound (256, this one included) and the oldest is parsed anew.
    for (let offset = 255; offset < 512; offset++) parseQuery(LIST_QUERY(), { offset: [String(offset)] });
    const anew = parseQuery(LIST_QUERY(), { offset: ['100000'] });
    expect(anew).toEqual(oldest);
    expect(anew).not.toBe(oldest);
  });
});

describe('parseOfferId', () => {
  it.each(['0', '12', '9007199254740991'])('accepts %s', (id) => expect(parseOfferId(id)).toBe(Number(id)));
  it.each(['', 'abc', '+5', '1.0', '1e2', '9007199254740992', '-1', '-0'])('refuses %j naming id', (id) => {
    expect(messagesOf(() => parseOfferId(id)).join(' ')).toMatch(/^id /);
  });
});

describe('quoted', () => {
  it('keeps text up to 64 characters and cuts a longer one with an ellipsis', () => {
    expect(quoted('a'.repeat(64))).toBe('a'.repeat(64));
    expect(quoted('a'.repeat(65))).toBe(`${'a'.repeat(64)}…`);
  });

  it('counts characters, never cutting a surrogate pair in half', () => {
    const text = '😀'.repeat(65);
    expect(quoted(text)).toBe(`${'😀'.repeat(64)}…`);
  });
});

describe('route schemas', () => {
  it('are built on their first use, once: every later request parses with the same schema', () => {
    const first = OFFER_LIST_QUERY.earn();
    expect(OFFER_LIST_QUERY.earn()).toBe(first);
    // earn and borrow accept the same parameters: one schema.
    expect(OFFER_LIST_QUERY.borrow()).toBe(first);
    expect(OFFER_LIST_QUERY.collateral()).not.toBe(first);
    expect(Object.keys(OFFER_LIST_QUERY.collateral().shape)).not.toContain('min_apy');
  });
});
