/**
 * The offer families' declaration (shared/model/offer-families.ts) against what is derived from it
 * and what is written about it: the stored index layout follows the declared columns, the
 * docs' tables of filters and sort modes (docs/api.md) say what the declaration holds, and the
 * tests' oracles cover every filter and sort mode it declares.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INDEX_LAYOUT, indexLayout } from '../../../shared/data/items/index-segment';
import {
  distinctSortModes,
  filtersOf,
  isFigureSort,
  OFFER_COLUMNS,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  OFFER_FILTERS,
  SORT_MODES,
} from '../../../shared/model/offer-families';
import { FILTER_RULES } from '../../helpers/offer-facts';
import { ORACLE_SORTS } from '../../helpers/offer-oracle';

const apiDoc = readFileSync(join(__dirname, '../../../docs/api.md'), 'utf8');

/** The rows of the table under a `## title` of docs/api.md, as cells. */
function tableRows(title: string): string[][] {
  const section = apiDoc.split(`\n## ${title}\n`)[1].split('\n## ')[0];
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('|---'))
    .slice(1)
    .map((line) =>
      line
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

describe('the index layout', () => {
  it('is derived from the declared columns: another encoding, or another column, is another layout', () => {
    expect(indexLayout(OFFER_COLUMNS)).toBe(INDEX_LAYOUT);
    expect(indexLayout({ ...OFFER_COLUMNS, apyKey: { encoding: 'text' } })).not.toBe(INDEX_LAYOUT);
    expect(indexLayout({ ...OFFER_COLUMNS, supplyApyKey: { encoding: 'decimalKey' } })).not.toBe(INDEX_LAYOUT);
    const { chain: _, ...withoutChain } = OFFER_COLUMNS;
    expect(indexLayout(withoutChain)).not.toBe(INDEX_LAYOUT);
  });
});

describe('docs/api.md', () => {
  it('the Filters table names every declared filter with the families that accept it', () => {
    const documented = new Map<string, string[]>();
    for (const [parameters] of tableRows('Filters')) {
      // `min_apy` (earn, borrow); `available` (earn), `is_active` (borrow, collateral); `asset` (every family).
      for (const [, name, families] of parameters.matchAll(/`([a-z0-9_]+)`(?: \(([a-z, ]+)\))?/g))
        documented.set(name, families ? families.split(', ') : [...OFFER_FAMILIES]);
    }
    const declared = new Map(
      Object.keys(OFFER_FILTERS).map((name) => [
        name,
        OFFER_FAMILIES.filter((family) => (filtersOf(family) as string[]).includes(name)),
      ]),
    );
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(declared));
  });

  it('the Orderings table names every sort mode, and the defaults are those declared', () => {
    const offers = tableRows('Orderings').find(([list]) => list.includes('`/earn`'));
    expect(offers?.[1]).toBe(
      `\`sort\`: ${SORT_MODES.map((m) => `\`${m}\``)
        .join(', ')
        .replace(/, ([^,]+)$/, ' or $1')}`,
    );
    for (const family of OFFER_FAMILIES) {
      const { defaultSort } = OFFER_FAMILY[family];
      expect(apiDoc).toContain(`${family} \`${defaultSort}\``);
      expect(distinctSortModes(family)).toContain(defaultSort);
    }
  });
});

describe('the test oracles', () => {
  it('have a rule for every declared filter (test/helpers/offer-facts.ts), and nothing else', () => {
    expect(Object.keys(FILTER_RULES).sort()).toEqual(Object.keys(OFFER_FILTERS).sort());
  });

  it("order by every declared sort mode: a role's in the list oracle, a figure's in the figure sorts' oracle", () => {
    const uncovered = SORT_MODES.filter((mode) => !isFigureSort(mode) && !(mode in ORACLE_SORTS));
    expect(uncovered).toEqual([]);
    expect(Object.keys(ORACLE_SORTS).filter((mode) => !(SORT_MODES as string[]).includes(mode))).toEqual([]);
  });
});
