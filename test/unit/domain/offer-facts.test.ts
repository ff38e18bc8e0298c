/**
 * The offer filter predicate and the candidates of a list (shared/domain/offer-facts.ts), by hand:
 * OR within a list parameter, AND across parameters, `null` never matching, bounds compared as
 * exact decimals, the flag of each family. offer-facts.heavy.test.ts checks both against a
 * brute-force oracle on generated offers and queries.
 */
import { candidates, offerMatcher } from '../../../shared/domain/offer-facts';
import { OFFER_LIST_QUERY, type OfferQuery, parseQuery } from '../../../shared/http/query';
import type { OfferFacts } from '../../../shared/model/offer-families';
import { columnsOf, factsOf, indexOver, type Offer } from '../../helpers/offer-facts';

describe.each(['earn', 'borrow', 'collateral'] as const)('offerMatcher on %s', (family) => {
  it('is undefined when the query filters nothing (sort, paging and snapshot are not filters)', () => {
    const q = parseQuery(OFFER_LIST_QUERY[family](), {
      sort: ['tvl_desc'],
      limit: ['10'],
      offset: ['20'],
      snapshot: ['v1'],
    });
    expect(offerMatcher(family, q, columnsOf([]))).toBeUndefined();
  });
});

describe('offerMatcher, cases by hand', () => {
  const base: Offer = {
    id: 5,
    platformType: 'protocol',
    platform: 'aave-v3',
    asset: 'tether',
    chain: 'arbitrum',
    apy: '5.5',
    tvl: '1000000',
    flag: true,
  };
  const earn = (values: Record<string, string>) => (facts: OfferFacts) =>
    offerMatcher(
      'earn',
      parseQuery(OFFER_LIST_QUERY.earn(), Object.fromEntries(Object.entries(values).map(([k, v]) => [k, [v]]))),
      columnsOf([facts]),
    )!(0);

  it.each([
    [{ min_apy: '5.5' }, true],
    [{ min_apy: '5.50000000000000000000000001' }, false],
    [{ min_apy: '55e-1' }, true],
    [{ min_apy: '0.551E1' }, false],
    [{ min_tvl: '1e6' }, true],
    [{ min_tvl: '1000000.000001' }, false],
    [{ min_tvl: '1e-400000' }, true],
    [{ min_apy: '1e400000' }, false],
    [{ chain: 'arbitrum,base' }, true],
    [{ chain: 'base' }, false],
    [{ asset: 'tether,usd-coin', platform: 'aave-v3', platform_type: 'protocol' }, true],
    [{ asset: 'tether', platform: 'binance' }, false],
    [{ ids: '4,5' }, true],
    [{ ids: '4,6' }, false],
    [{ available: 'true' }, true],
    [{ available: 'false' }, false],
  ])('%j matches: %s', (values, expected) => {
    expect(earn(values)(factsOf(base))).toBe(expected);
  });

  /** The base offer with a mean and a deviation: 4.5 % ± 0.245764 (micro-units), or past 10^15 micro-units (keys). */
  const figured = (mean_30d: string | null, stddev_30d: string | null) =>
    factsOf({
      ...base,
      figures: {
        as_of: '2026-11-20T10:00:00.000Z',
        change_1d: null,
        change_7d: null,
        change_30d: null,
        mean_7d: null,
        mean_30d,
        stddev_30d,
        points_30d: 30,
      },
    });

  it.each([
    ['4.500000', '0.245764', { min_apy_mean_30d: '4.5' }, true],
    ['4.500000', '0.245764', { min_apy_mean_30d: '45e-1' }, true],
    ['4.500000', '0.245764', { min_apy_mean_30d: '4.5000001' }, false],
    ['4.500000', '0.245764', { min_apy_mean_30d: '4.500001' }, false],
    ['4.500000', '0.245764', { min_apy_mean_30d: '1e400000' }, false],
    ['-4.500000', '0.245764', { min_apy_mean_30d: '0' }, false],
    ['0.000000', '0.245764', { min_apy_mean_30d: '1e-400000' }, false],
    ['0.000001', '0.245764', { min_apy_mean_30d: '1e-400000' }, true],
    // Negative bounds (CONTRACT §13: borrow means can be below zero), exact at the sixth decimal.
    ['-4.500000', '0.245764', { min_apy_mean_30d: '-4.5' }, true],
    ['-4.500000', '0.245764', { min_apy_mean_30d: '-45e-1' }, true],
    ['-4.500000', '0.245764', { min_apy_mean_30d: '-4.4999999' }, false],
    ['-4.500000', '0.245764', { min_apy_mean_30d: '-4.5000001' }, true],
    ['-4.500001', '0.245764', { min_apy_mean_30d: '-4.5000001' }, false],
    ['-4.500000', '0.245764', { min_apy_mean_30d: '-1e400000' }, true],
    ['-0.000001', '0.245764', { min_apy_mean_30d: '-1e-400000' }, false],
    ['0.000000', '0.245764', { min_apy_mean_30d: '-1e-400000' }, true],
    ['-123456789012345678901.000001', '0.245764', { min_apy_mean_30d: '-123456789012345678901.000001' }, true],
    ['-123456789012345678901.000002', '0.245764', { min_apy_mean_30d: '-123456789012345678901.000001' }, false],
    ['-123456789012345678901.000001', '0.245764', { min_apy_mean_30d: '-1e400000' }, true],
    ['4.500000', '0.245764', { max_apy_stddev_30d: '0.245764' }, true],
    ['4.500000', '0.245764', { max_apy_stddev_30d: '245764E-6' }, true],
    ['4.500000', '0.245764', { max_apy_stddev_30d: '0.2457639999' }, false],
    ['4.500000', '0.245764', { max_apy_stddev_30d: '0.24576400001' }, true],
    ['4.500000', '0.000000', { max_apy_stddev_30d: '0' }, true],
    ['4.500000', '0.245764', { max_apy_stddev_30d: '1e400000' }, true],
    // Past 10^15 micro-units: compared by keys, exact to the last digit.
    ['123456789012345678901.000001', '999999999.999999', { min_apy_mean_30d: '123456789012345678901.000001' }, true],
    ['123456789012345678901.000001', '999999999.999999', { min_apy_mean_30d: '123456789012345678901.0000011' }, false],
    ['4.500000', '9999999999.999999', { max_apy_stddev_30d: '9999999999.999999' }, true],
    ['4.500000', '9999999999.999999', { max_apy_stddev_30d: '9999999999.9999989' }, false],
    ['4.500000', '9007199254.740993', { max_apy_stddev_30d: '9007199254.740992' }, false],
    ['4.500000', '9007199254.740992', { max_apy_stddev_30d: '9007199254.740992' }, true],
    [null, null, { min_apy_mean_30d: '0' }, false],
    [null, null, { max_apy_stddev_30d: '1e9' }, false],
  ])('mean %s, deviation %s, %j matches: %s', (mean, stddev, values, expected) => {
    expect(earn(values as Record<string, string>)(figured(mean, stddev))).toBe(expected);
  });

  it('never matches a null fact: no chain, no platform, no TVL', () => {
    const bare = factsOf({ ...base, chain: null, platform: null, platformType: null, tvl: null });
    expect(earn({ chain: 'arbitrum' })(bare)).toBe(false);
    expect(earn({ platform: 'aave-v3' })(bare)).toBe(false);
    expect(earn({ platform_type: 'protocol' })(bare)).toBe(false);
    expect(earn({ min_tvl: '0' })(bare)).toBe(false);
  });

  it('takes is_active as the flag of borrow and collateral', () => {
    const inactive = columnsOf([factsOf({ ...base, flag: false })]);
    expect(offerMatcher('borrow', parseQuery(OFFER_LIST_QUERY.borrow(), { is_active: ['false'] }), inactive)!(0)).toBe(
      true,
    );
    expect(
      offerMatcher('collateral', parseQuery(OFFER_LIST_QUERY.collateral(), { is_active: ['true'] }), inactive)!(0),
    ).toBe(false);
  });
});

describe.each(['earn', 'borrow', 'collateral'] as const)('candidates on %s', (family) => {
  it('are the offers of the ids (known ones only, once each), or of the assets, in the order', () => {
    const all: Offer[] = ['a', 'b', 'a', null, 'c', 'b'].map((asset, i) => ({
      id: i * 10,
      platformType: 'exchange',
      platform: 'p',
      asset,
      chain: null,
      apy: null,
      tvl: null,
      flag: true,
    }));
    const index = indexOver(family, all, [5, 3, 1, 4, 0, 2]);
    const ids = parseQuery(OFFER_LIST_QUERY[family](), { ids: ['20,0,50,999'], asset: ['a'] }) as OfferQuery;
    expect(candidates(index, 'drawn', ids)).toEqual([5, 0, 2]);
    const assets = parseQuery(OFFER_LIST_QUERY[family](), { asset: ['a,b'] }) as OfferQuery;
    expect(candidates(index, 'drawn', assets)).toEqual([5, 1, 0, 2]);
    const none = parseQuery(OFFER_LIST_QUERY[family](), { chain: ['x'] }) as OfferQuery;
    expect(candidates(index, 'drawn', none)).toEqual([5, 3, 1, 4, 0, 2]);
  });
});
