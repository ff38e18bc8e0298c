/**
 * The ranking of a search (shared/domain/search.ts) against an oracle that reads CONTRACT §15 as
 * written, one record at a time: the lookup built per version must answer what a scan of every
 * record would.
 */
import type { SearchRecord, SearchRecords } from '../../../shared/data/search-index';
import { rankedHits, type SearchHit } from '../../../shared/domain/search';
import { fc, runs } from '../../helpers/property';

const TYPES = ['currency', 'exchange', 'wallet', 'protocol'] as const;

/** §15 read literally: each record's best rank, or none; then rank, family, list position. */
function oracle(families: readonly (SearchRecords | undefined)[], q: string, limit: number): SearchHit[] {
  const text = q.toLowerCase();
  const rankOf = (r: SearchRecord): number | undefined => {
    const slugs = [r.slug, ...r.former].map((s) => s.toLowerCase());
    const symbol = r.symbol?.toLowerCase();
    const name = r.name.toLowerCase();
    if (slugs.includes(text) || symbol === text) return 0;
    if ([...slugs, symbol ?? '', name].some((term) => term !== '' && term.startsWith(text))) return 1;
    if (name.includes(text)) return 2;
    return undefined;
  };
  const matches = families.flatMap((records, f) =>
    (records ?? []).flatMap((record, position) => {
      const rank = rankOf(record);
      return rank === undefined ? [] : [{ rank, f, position, record }];
    }),
  );
  matches.sort((a, b) => a.rank - b.rank || a.f - b.f || a.position - b.position);
  return matches
    .slice(0, limit)
    .map(({ f, record }) => ({ type: TYPES[f], slug: record.slug, name: record.name, symbol: record.symbol }));
}

const record = (slug: string, name: string, symbol: string | null = null, former: string[] = []): SearchRecord => ({
  slug,
  name,
  symbol,
  former,
});

describe('rankedHits', () => {
  const currencies = [
    record('bitcoin', 'Bitcoin', 'BTC'),
    record('tether', 'Tether', 'USDT', ['tether-usd']),
    record('staked-aave', 'Staked Aave', 'STKAAVE'),
    record('aave-token', 'Aave Token', 'AAVE'),
  ];
  const exchanges = [record('aavex', 'AaveX'), record('coinbase', 'Coinbase')];
  const protocols = [record('aave', 'Aave', null, ['aave-v2'])];
  const families = [currencies, exchanges, undefined, protocols];

  it('ranks exact slugs and symbols, then prefixes, then names containing the text', () => {
    expect(rankedHits(families, 'AAVE', 10).map((h) => `${h.type}:${h.slug}`)).toEqual([
      'currency:aave-token',
      'protocol:aave',
      'exchange:aavex',
      'currency:staked-aave',
    ]);
  });

  it('finds a former slug exactly and by prefix, answering the current slug', () => {
    expect(rankedHits(families, 'aave-v2', 10)).toEqual([
      { type: 'protocol', slug: 'aave', name: 'Aave', symbol: null },
    ]);
    expect(rankedHits(families, 'tether-u', 10).map((h) => h.slug)).toEqual(['tether']);
  });

  it('finds names containing a text of several characters, and no match across two names', () => {
    expect(rankedHits(families, 'ked aa', 10).map((h) => h.slug)).toEqual(['staked-aave']);
    expect(rankedHits(families, 'inbas', 10).map((h) => h.slug)).toEqual(['coinbase']);
    expect(rankedHits(families, 'aave tokenx', 10)).toEqual([]);
    // `tether` ends one slug, `staked` starts the next: no record has `therstaked`.
    expect(rankedHits(families, 'therstaked', 10)).toEqual([]);
  });

  it('stops at the limit', () => {
    expect(rankedHits(families, 'a', 2)).toEqual(oracle(families, 'a', 2));
    expect(rankedHits(families, 'a', 2)).toHaveLength(2);
    expect(rankedHits([[], [], [], []], '\u0000', 5)).toEqual([]);
  });

  it('answers what a scan of every record answers, for any records and text', () => {
    // Few letters, so that texts match often, at every rank and across families.
    const word = fc.string({
      unit: fc.constantFrom('a', 'b', 'A', '-', ' ', 'é', '\u0000'),
      minLength: 1,
      maxLength: 5,
    });
    const records = fc.array(
      fc.record({
        slug: word,
        name: word,
        symbol: fc.option(word, { nil: null }),
        former: fc.array(word, { maxLength: 2 }),
      }),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(
        fc.tuple(records, records, fc.option(records, { nil: undefined }), records),
        word,
        fc.integer({ min: 1, max: 20 }),
        (fams, q, limit) => {
          expect(rankedHits(fams, q, limit)).toEqual(oracle(fams, q, limit));
        },
      ),
      { numRuns: runs(100) },
    );
  });
});
