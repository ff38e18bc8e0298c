import {
  CHANGES_QUERY,
  CURRENCY_DETAIL_QUERY,
  HISTORY_QUERY,
  LIST_QUERY,
  NO_QUERY,
  OFFER_DETAIL_QUERY,
  OFFER_LIST_QUERY,
  parseOfferId,
  parseQuery,
  quoted,
} from '../../../shared/http/query';
import { ValidationError } from '../../../shared/platform/errors';
import { TIMESTAMP_MAX_LENGTH, TIMESTAMP_PATTERN } from '../../../shared/platform/timestamps';

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
    expect(parseQuery(HISTORY_QUERY(), {})).toEqual({});
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
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.borrow(), { min_apy: ['-1'] }))).toEqual([
      'min_apy must not be less than 0',
    ]);
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { min_apy: ['.5'] }))).toEqual([
      'min_apy must be a decimal number such as 4.75',
    ]);
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.collateral(), { min_apy: ['1'] }))).toEqual([
      'property min_apy should not exist',
    ]);
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.borrow(), { min_apy: ['-1e-7'] }))).toEqual([
      'min_apy must not be less than 0',
    ]);
    for (const value of ['+1', '5.', '05', '1e', '1e+', '1.e5', '-0', 'Infinity', '0x10', ' 1']) {
      expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { min_apy: [value] }))).toEqual([
        'min_apy must be a decimal number such as 4.75',
      ]);
    }
  });

  it('refuses a min_apy longer than 32 characters, whatever its form', () => {
    for (const value of ['1'.repeat(33), `1e-${'0'.repeat(29)}7`, '9'.repeat(15_000)]) {
      expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { min_apy: [value] }))).toEqual([
        'min_apy must not be longer than 32 characters',
      ]);
    }
  });

  it('bounds the slug filters at 256 characters', () => {
    expect(parseQuery(OFFER_LIST_QUERY.earn(), { asset: ['a'.repeat(256)] })).toMatchObject({
      asset: ['a'.repeat(256)],
    });
    expect(
      messagesOf(() =>
        parseQuery(OFFER_LIST_QUERY.earn(), { asset: ['a'.repeat(257)], platform: ['p'.repeat(10_000)] }),
      ),
    ).toEqual(['platform must not be longer than 256 characters', 'asset must not be longer than 256 characters']);
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
    const period: '24h' | '1w' | '1m' | '3m' | '1y' | 'all' | undefined = history.period;
    expect(period).toBe('1y');
    expect(parseQuery(NO_QUERY(), {})).toEqual({});
  });

  it('checks enums', () => {
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { sort: ['best'] }))).toEqual([
      'sort must be one of the following values: apy_desc, apy_asc, tvl_desc, updated_desc, apy_mean_30d_desc, apy_change_7d_desc, apy_stddev_30d_asc',
    ]);
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.collateral(), { sort: ['best'] }))).toEqual([
      'sort must be one of the following values: apy_desc, apy_asc, tvl_desc, updated_desc',
    ]);
    expect(parseQuery(OFFER_LIST_QUERY.collateral(), { sort: ['tvl_desc'], platform_type: ['wallet'] })).toMatchObject({
      sort: 'tvl_desc',
      platform_type: ['wallet'],
    });
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
    expect(OFFER_LIST_QUERY.borrow()).not.toBe(first);
    expect(CHANGES_QUERY.earn()).toBe(CHANGES_QUERY.earn());
    expect(Object.keys(OFFER_LIST_QUERY.collateral().shape)).not.toContain('min_apy');
  });
});

// ---- version 1.2 (CONTRACT §11) ----------------------------------------------------------------

const earn = (values: Record<string, string[]>) => parseQuery(OFFER_LIST_QUERY.earn(), values);
const refusal = (family: 'earn' | 'borrow' | 'collateral', values: Record<string, string[]>) =>
  messagesOf(() => parseQuery(OFFER_LIST_QUERY[family](), values));

describe('list parameters (asset, platform, chain, platform_type)', () => {
  it.each(['asset', 'platform', 'chain'])(
    '%s: a single value is a list of one, a comma-separated value a list of its values',
    (name) => {
      expect(earn({ [name]: ['tether'] })).toMatchObject({ [name]: ['tether'] });
      expect(earn({ [name]: ['tether,usd-coin,dai'] })).toMatchObject({ [name]: ['tether', 'usd-coin', 'dai'] });
      const twenty = Array.from({ length: 20 }, (_, i) => `s${i}`);
      expect(earn({ [name]: [twenty.join(',')] })).toMatchObject({ [name]: twenty });
    },
  );

  it('platform_type takes a list of platform families', () => {
    expect(earn({ platform_type: ['exchange,protocol'] })).toMatchObject({ platform_type: ['exchange', 'protocol'] });
  });

  it.each([
    ['asset', ''],
    ['platform', ''],
    ['chain', ''],
    ['platform_type', ''],
  ])('%s empty is refused as in 1.1, naming it', (name, value) => {
    expect(refusal('earn', { [name]: [value] })).toEqual([`${name} must not be empty`]);
  });

  it.each(['asset', 'platform', 'chain', 'platform_type'])(
    '%s: an empty element, a repeated element and a list over 20 are refused, naming it',
    (name) => {
      const value = name === 'platform_type' ? 'exchange' : 'a';
      expect(refusal('earn', { [name]: [`${value},`] })).toEqual([`${name} must not contain an empty value`]);
      expect(refusal('earn', { [name]: [`,${value}`] })).toEqual([`${name} must not contain an empty value`]);
      expect(refusal('earn', { [name]: [`${value},${value}`] })).toEqual([`${name} must not contain ${value} twice`]);
      const many =
        name === 'platform_type'
          ? Array.from({ length: 21 }, () => 'wallet')
          : Array.from({ length: 21 }, (_, i) => `s${i}`);
      expect(refusal('earn', { [name]: [many.join(',')] })).toEqual([`${name} must not have more than 20 values`]);
    },
  );

  it('checks each element as 1.1 checked the one value', () => {
    expect(refusal('earn', { asset: [`bitcoin,${'a'.repeat(257)}`] })).toEqual([
      'asset must not be longer than 256 characters',
    ]);
    expect(refusal('borrow', { platform_type: ['exchange,dex'] })).toEqual([
      'platform_type must be one of the following values: exchange, wallet, protocol',
    ]);
    expect(earn({ chain: [`${'c'.repeat(256)},arbitrum`] })).toMatchObject({ chain: ['c'.repeat(256), 'arbitrum'] });
  });

  it('quotes at most 64 characters of a repeated value', () => {
    const long = 'r'.repeat(100);
    expect(refusal('earn', { platform: [`${long},${long}`] })).toEqual([
      `platform must not contain ${'r'.repeat(64)}… twice`,
    ]);
  });

  it('keeps the 1.1 refusal of a repeated parameter', () => {
    expect(refusal('earn', { asset: ['bitcoin', 'ethereum'] })).toEqual(['asset must not be repeated']);
  });

  it('freezes the lists of a parsed query: the next request with the same parameters gets the same values', () => {
    const parsed = earn({ asset: ['x,y'], ids: ['7,8'] });
    expect(Object.isFrozen(parsed.asset)).toBe(true);
    expect(Object.isFrozen(parsed.ids)).toBe(true);
    expect(() => (parsed.asset as string[]).push('z')).toThrow(TypeError);
    expect(earn({ asset: ['x,y'], ids: ['7,8'] })).toMatchObject({ asset: ['x', 'y'], ids: [7, 8] });
  });
});

describe('ids', () => {
  it('takes 1 to 200 distinct plain-digit ids up to 2^53-1, as numbers', () => {
    expect(earn({ ids: ['12'] })).toMatchObject({ ids: [12] });
    expect(earn({ ids: ['0,007,9007199254740991'] })).toMatchObject({ ids: [0, 7, Number.MAX_SAFE_INTEGER] });
    const all = Array.from({ length: 200 }, (_, i) => i);
    expect(earn({ ids: [all.join(',')] })).toMatchObject({ ids: all });
  });

  it.each([
    ['', 'ids must not be empty'],
    ['1,,2', 'ids must not contain an empty value'],
    ['1,2,', 'ids must not contain an empty value'],
    ['1,2,1', 'ids must not contain 1 twice'],
    ['7,07', 'ids must not contain 07 twice'],
    ['1,-2', 'ids must be a comma-separated list of integers'],
    ['+5', 'ids must be a comma-separated list of integers'],
    ['1e2', 'ids must be a comma-separated list of integers'],
    ['1.0', 'ids must be a comma-separated list of integers'],
    ['1, 2', 'ids must be a comma-separated list of integers'],
    ['abc', 'ids must be a comma-separated list of integers'],
    ['9007199254740992', 'ids must not be greater than 9007199254740991'],
    [Array.from({ length: 201 }, (_, i) => i).join(','), 'ids must not have more than 200 values'],
  ])('refuses %j naming ids', (value, message) => {
    expect(refusal('borrow', { ids: [value] })).toEqual([message]);
  });

  it('is taken by every offer family', () => {
    expect(parseQuery(OFFER_LIST_QUERY.collateral(), { ids: ['3'] })).toMatchObject({ ids: [3] });
  });
});

describe('min_tvl', () => {
  it('has the grammar of min_apy, on earn and borrow', () => {
    for (const value of ['0', '1000000', '1e6', '2.5E+3', '0.000001']) {
      expect(earn({ min_tvl: [value] })).toMatchObject({ min_tvl: value });
      expect(parseQuery(OFFER_LIST_QUERY.borrow(), { min_tvl: [value] })).toMatchObject({ min_tvl: value });
    }
    expect(refusal('earn', { min_tvl: ['-1'] })).toEqual(['min_tvl must not be less than 0']);
    expect(refusal('earn', { min_tvl: ['1M'] })).toEqual(['min_tvl must be a decimal number such as 4.75']);
    expect(refusal('earn', { min_tvl: [''] })).toEqual(['min_tvl must not be empty']);
    expect(refusal('earn', { min_tvl: ['1'.repeat(33)] })).toEqual(['min_tvl must not be longer than 32 characters']);
  });

  it('is a validation_error on collateral, like min_apy', () => {
    expect(refusal('collateral', { min_tvl: ['1'] })).toEqual(['property min_tvl should not exist']);
  });
});

describe('available and is_active', () => {
  it('take true or false, as booleans, each on its own families', () => {
    expect(earn({ available: ['true'] })).toMatchObject({ available: true });
    expect(earn({ available: ['false'] })).toMatchObject({ available: false });
    expect(parseQuery(OFFER_LIST_QUERY.borrow(), { is_active: ['false'] })).toMatchObject({ is_active: false });
    expect(parseQuery(OFFER_LIST_QUERY.collateral(), { is_active: ['true'] })).toMatchObject({ is_active: true });
  });

  it("refuse the other family's name as an unknown parameter, and anything but true or false", () => {
    expect(refusal('earn', { is_active: ['true'] })).toEqual(['property is_active should not exist']);
    expect(refusal('borrow', { available: ['true'] })).toEqual(['property available should not exist']);
    expect(refusal('collateral', { available: ['false'] })).toEqual(['property available should not exist']);
    for (const value of ['1', 'TRUE', 'yes', 'True'])
      expect(refusal('earn', { available: [value] })).toEqual([
        'available must be one of the following values: true, false',
      ]);
    expect(refusal('borrow', { is_active: [''] })).toEqual(['is_active must not be empty']);
  });
});

describe('snapshot', () => {
  it.each([
    ['list', () => LIST_QUERY()],
    ['earn', () => OFFER_LIST_QUERY.earn()],
    ['borrow', () => OFFER_LIST_QUERY.borrow()],
    ['collateral', () => OFFER_LIST_QUERY.collateral()],
    ['changes', () => CHANGES_QUERY.collateral()],
  ])('is taken by every %s', (_, schema) => {
    const extra: Record<string, string[]> = schema() === CHANGES_QUERY.collateral() ? { since: ['a'] } : {};
    expect(parseQuery(schema(), { ...extra, snapshot: ['Az09_-'] })).toMatchObject({ snapshot: 'Az09_-' });
    expect(parseQuery(schema(), { ...extra, snapshot: ['s'.repeat(64)] })).toMatchObject({ snapshot: 's'.repeat(64) });
  });

  it.each([
    ['', 'snapshot must not be empty'],
    ['s'.repeat(65), 'snapshot must not be longer than 64 characters'],
    ['a.b', 'snapshot must contain only letters, digits, _ and -'],
    ['a b', 'snapshot must contain only letters, digits, _ and -'],
    ['é', 'snapshot must contain only letters, digits, _ and -'],
  ])('refuses %j naming snapshot', (value, message) => {
    expect(messagesOf(() => parseQuery(LIST_QUERY(), { snapshot: [value] }))).toEqual([message]);
    expect(refusal('collateral', { snapshot: [value] })).toEqual([message]);
  });

  it('is the only new parameter of platform and currency lists', () => {
    expect(messagesOf(() => parseQuery(LIST_QUERY(), { asset: ['bitcoin'], since: ['x'] }))).toEqual([
      'property asset should not exist',
      'property since should not exist',
    ]);
  });
});

describe('changes', () => {
  it('takes since (required), snapshot, limit and offset', () => {
    expect(parseQuery(CHANGES_QUERY.earn(), { since: ['v1'] })).toEqual({ since: 'v1', limit: 50, offset: 0 });
    expect(
      parseQuery(CHANGES_QUERY.borrow(), { since: ['v1'], snapshot: ['v2'], limit: ['200'], offset: ['400'] }),
    ).toEqual({
      since: 'v1',
      snapshot: 'v2',
      limit: 200,
      offset: 400,
    });
  });

  it.each([
    [{}, ['since is required']],
    [{ since: [''] }, ['since must not be empty']],
    [{ since: ['a/b'] }, ['since must contain only letters, digits, _ and -']],
    [{ since: ['x'.repeat(65)] }, ['since must not be longer than 64 characters']],
    [{ since: ['a', 'b'] }, ['since must not be repeated']],
    [{ since: ['v1'], asset: ['bitcoin'] }, ['property asset should not exist']],
    [{ since: ['v1'], limit: ['0'] }, ['limit must not be less than 1']],
  ])('refuses %j', (values, expected) => {
    for (const family of ['earn', 'borrow', 'collateral'] as const)
      expect(messagesOf(() => parseQuery(CHANGES_QUERY[family](), values))).toEqual(expected);
  });
});

describe('a 1.1 request', () => {
  it('answers as before: the same values (single filters become lists of one) and the same messages in the same order', () => {
    expect(
      earn({
        platform_type: ['exchange'],
        platform: ['binance'],
        asset: ['bitcoin'],
        sort: ['tvl_desc'],
        min_apy: ['5'],
        limit: ['2'],
        offset: ['1'],
      }),
    ).toEqual({
      platform_type: ['exchange'],
      platform: ['binance'],
      asset: ['bitcoin'],
      sort: 'tvl_desc',
      min_apy: '5',
      limit: 2,
      offset: 1,
    });
    expect(
      refusal('earn', {
        min_apy: ['x'],
        sort: ['best'],
        asset: [''],
        platform: ['p'.repeat(257)],
        platform_type: ['dex'],
        offset: ['-1'],
        limit: ['0'],
      }),
    ).toEqual([
      'limit must not be less than 1',
      'offset must not be less than 0',
      'platform_type must be one of the following values: exchange, wallet, protocol',
      'platform must not be longer than 256 characters',
      'asset must not be empty',
      'sort must be one of the following values: apy_desc, apy_asc, tvl_desc, updated_desc, apy_mean_30d_desc, apy_change_7d_desc, apy_stddev_30d_asc',
      'min_apy must be a decimal number such as 4.75',
    ]);
  });
});

describe('APY figures (CONTRACT §13): the figure sorts and filters, include', () => {
  const FIGURE_SORTS = ['apy_mean_30d_desc', 'apy_change_7d_desc', 'apy_stddev_30d_asc'];

  it.each(['earn', 'borrow'] as const)('%s takes the figure sorts, the two filters and include=apy_stats', (family) => {
    for (const sort of FIGURE_SORTS)
      expect(parseQuery(OFFER_LIST_QUERY[family](), { sort: [sort] })).toMatchObject({ sort });
    expect(
      parseQuery(OFFER_LIST_QUERY[family](), {
        min_apy_mean_30d: ['4'],
        max_apy_stddev_30d: ['2.5E-1'],
        include: ['apy_stats'],
        min_apy: ['1e-7'],
      }),
    ).toMatchObject({ min_apy_mean_30d: '4', max_apy_stddev_30d: '2.5E-1', include: ['apy_stats'], min_apy: '1e-7' });
    // A borrow mean can be below zero (CONTRACT §13): a negative threshold is a bound, not an error.
    for (const bound of ['-1', '-0.25', '-2.5E-1', '-0', '-1e-7'])
      expect(parseQuery(OFFER_LIST_QUERY[family](), { min_apy_mean_30d: [bound] })).toMatchObject({
        min_apy_mean_30d: bound,
      });
    expect(parseQuery(OFFER_DETAIL_QUERY[family](), { include: ['apy_stats'] })).toEqual({ include: ['apy_stats'] });
    expect(parseQuery(CHANGES_QUERY[family](), { since: ['v1'], include: ['apy_stats'] })).toMatchObject({
      include: ['apy_stats'],
    });
    expect(parseQuery(OFFER_DETAIL_QUERY[family](), {})).toEqual({});
  });

  it.each([
    ['min_apy_mean_30d', '--1', 'min_apy_mean_30d must be a decimal number such as -0.5'],
    ['min_apy_mean_30d', '+1', 'min_apy_mean_30d must be a decimal number such as -0.5'],
    ['min_apy_mean_30d', '-.5', 'min_apy_mean_30d must be a decimal number such as -0.5'],
    ['min_apy_mean_30d', '.5', 'min_apy_mean_30d must be a decimal number such as -0.5'],
    ['min_apy_mean_30d', '', 'min_apy_mean_30d must not be empty'],
    ['min_apy_mean_30d', '1'.repeat(33), 'min_apy_mean_30d must not be longer than 32 characters'],
    ['max_apy_stddev_30d', '-0.5', 'max_apy_stddev_30d must not be less than 0'],
    ['max_apy_stddev_30d', '5.', 'max_apy_stddev_30d must be a decimal number such as 4.75'],
    ['max_apy_stddev_30d', 'NaN', 'max_apy_stddev_30d must be a decimal number such as 4.75'],
    ['include', 'apy', 'include must be one of the following values: apy_stats'],
    ['include', '', 'include must not be empty'],
    ['include', 'apy_stats,', 'include must not have more than 1 values'],
    [
      'sort',
      'apy_mean_30d',
      `sort must be one of the following values: apy_desc, apy_asc, tvl_desc, updated_desc, ${FIGURE_SORTS.join(', ')}`,
    ],
  ])('refuses %s=%j naming it, on earn and borrow', (name, value, message) => {
    for (const family of ['earn', 'borrow'] as const)
      expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY[family](), { [name]: [value] }))).toEqual([message]);
  });

  it('refuses a repeated figure parameter, naming it', () => {
    expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.earn(), { min_apy_mean_30d: ['1', '2'] }))).toEqual([
      'min_apy_mean_30d must not be repeated',
    ]);
    expect(messagesOf(() => parseQuery(OFFER_DETAIL_QUERY.borrow(), { include: ['apy_stats', 'apy_stats'] }))).toEqual([
      'include must not be repeated',
    ]);
  });

  it('refuses the figure sorts, the filters and include on collateral, naming each', () => {
    for (const sort of FIGURE_SORTS)
      expect(messagesOf(() => parseQuery(OFFER_LIST_QUERY.collateral(), { sort: [sort] }))).toEqual([
        'sort must be one of the following values: apy_desc, apy_asc, tvl_desc, updated_desc',
      ]);
    expect(
      messagesOf(() =>
        parseQuery(OFFER_LIST_QUERY.collateral(), {
          min_apy_mean_30d: ['1'],
          max_apy_stddev_30d: ['1'],
          include: ['apy_stats'],
        }),
      ),
    ).toEqual([
      'property min_apy_mean_30d should not exist',
      'property max_apy_stddev_30d should not exist',
      'property include should not exist',
    ]);
    expect(messagesOf(() => parseQuery(OFFER_DETAIL_QUERY.collateral(), { include: ['apy_stats'] }))).toEqual([
      'property include should not exist',
    ]);
    expect(messagesOf(() => parseQuery(CHANGES_QUERY.collateral(), { since: ['v'], include: ['apy_stats'] }))).toEqual([
      'property include should not exist',
    ]);
  });

  it('refuses include on platform and currency lists; takes it on the currency detail only', () => {
    expect(messagesOf(() => parseQuery(LIST_QUERY(), { include: ['apy_stats'] }))).toEqual([
      'property include should not exist',
    ]);
    expect(parseQuery(CURRENCY_DETAIL_QUERY(), { include: ['apy_stats'] })).toEqual({ include: ['apy_stats'] });
    expect(messagesOf(() => parseQuery(CURRENCY_DETAIL_QUERY(), { include: ['stats'] }))).toEqual([
      'include must be one of the following values: apy_stats',
    ]);
    expect(messagesOf(() => parseQuery(CURRENCY_DETAIL_QUERY(), { limit: ['1'] }))).toEqual([
      'property limit should not exist',
    ]);
  });
});

describe('from and to', () => {
  const refusal = (value: string) => messagesOf(() => parseQuery(HISTORY_QUERY(), { from: [value] }));

  it.each([
    ['a word', 'yesterday'],
    ['5,000 characters', `2026-01-31T12:00:00Z${'0'.repeat(4_980)}`],
    ['a day that does not exist', '2026-02-30T12:00:00Z'],
    ['a date without a time', '2026-01-31'],
  ])('refuses %s with one message naming the parameter', (_case, value) => {
    expect(refusal(value)).toEqual(['from must be an ISO 8601 UTC timestamp such as 2026-01-31T12:00:00Z']);
  });

  it('takes the longest form the pattern allows, which is the maxLength the description states', () => {
    const longest = '2026-01-31T12:00:00.123456789+00:00';

    expect(longest).toHaveLength(TIMESTAMP_MAX_LENGTH);
    expect(TIMESTAMP_PATTERN.test(longest)).toBe(true);
    expect(parseQuery(HISTORY_QUERY(), { from: [longest] })).toEqual({ from: longest });
    expect(refusal(`${longest}0`)).toEqual(['from must be an ISO 8601 UTC timestamp such as 2026-01-31T12:00:00Z']);
  });
});
