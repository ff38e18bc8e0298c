/**
 * Search (docs/api.md, "Search"; CONTRACT §15): currencies and platforms whose slug, symbol or name
 * matches a text, case-insensitively. Ranks: an exact slug or symbol (a former slug counts as a
 * slug), then a prefix of a slug, symbol or name, then a name containing the text; within a rank
 * currencies before exchanges, wallets and protocols, each in its own list order. Only the exposed
 * records of the served versions are searched (the import writes no other), a former slug answers
 * the current one.
 *
 * Each version's records are matched through a lookup built once per version and instance: exact
 * terms in a map, every term sorted (a prefix is a run of them, found by binary search), and the
 * names joined in one text in list order, which the engine's substring search walks until it has the
 * matches it answers; nothing is read or built per request.
 */

import { type CatalogFamily, PLATFORM_FAMILIES } from '../data/keys';
import type { SearchRecords } from '../data/search-index';
import type { Stores } from '../data/stores';
import { logger } from '../platform/logger';

/** What a search answers for each record. */
export interface SearchHit {
  type: 'currency' | 'exchange' | 'wallet' | 'protocol';
  slug: string;
  name: string;
  symbol: string | null;
}

export interface SearchRequest {
  /** The text, trimmed. */
  q: string;
  limit: number;
}

/** Currencies first, then the platform families in their declared order. */
const SEARCH_ORDER = ['currencies', ...PLATFORM_FAMILIES] as const satisfies readonly CatalogFamily[];
const TYPE: Record<CatalogFamily, SearchHit['type']> = {
  currencies: 'currency',
  exchanges: 'exchange',
  wallets: 'wallet',
  protocols: 'protocol',
};

const lower = (text: string) => text.toLowerCase();

/** Between the terms of a column: a term that holds it is still matched right (every match is checked against its term). */
const SEPARATOR = '\u0000';

/**
 * Every record's name, lowercased, in list order, joined in one text: the engine's substring search
 * finds the names containing a text in list order, and a search stops at the matches it needs.
 */
class Column {
  private readonly text: string;
  /** Each term's start in `text`, its length, and the position (in list order) of its record. */
  private readonly starts: Int32Array;
  private readonly lengths: Int32Array;
  private readonly owners: Int32Array;

  constructor(terms: readonly { position: number; term: string }[]) {
    // Each name is one term: `owners` maps a term to its record.
    this.starts = new Int32Array(terms.length);
    this.lengths = new Int32Array(terms.length);
    this.owners = new Int32Array(terms.length);
    let at = 1;
    terms.forEach(({ position, term }, k) => {
      this.starts[k] = at;
      this.lengths[k] = term.length;
      this.owners[k] = position;
      at += term.length + 1;
    });
    this.text = `${SEPARATOR}${terms.map((t) => t.term).join(SEPARATOR)}${SEPARATOR}`;
  }

  /** The term holding offset `at` of the text. */
  private termAt(at: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (this.starts[middle] <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The positions, ascending and at most `max`, of the records whose term contains `text`. */
  find(text: string, max: number): number[] {
    const positions: number[] = [];
    if (this.starts.length === 0) return positions;
    let from = 0;
    while (positions.length < max) {
      const at = this.text.indexOf(text, from);
      if (at < 0) break;
      const k = this.termAt(at);
      const end = this.starts[k] + this.lengths[k];
      if (at < this.starts[k]) {
        // In the separator before the first name: the next match may be anywhere after it.
        from = at + 1;
        continue;
      }
      if (at + text.length <= end) positions.push(this.owners[k]);
      // A later match in this name would cross its end too, or count it twice: go on from the next name.
      from = end + 1;
    }
    return positions;
  }
}

/** A version's lookup: the positions (in list order) of the records each rank holds for a text. */
class SearchLookup {
  /** Lowercased slug, symbol or former slug → the positions that have it, ascending. */
  private readonly exact = new Map<string, number[]>();
  /** Every lowercased slug, symbol, name and former slug with its position, sorted by term then position. */
  private readonly terms: { term: string; position: number }[] = [];
  private readonly names: Column;

  constructor(records: SearchRecords) {
    records.forEach((record, position) => {
      const keys = new Set(
        [record.slug, ...(record.symbol === null ? [] : [record.symbol]), ...record.former].map(lower),
      );
      for (const key of keys) {
        const list = this.exact.get(key);
        if (list) list.push(position);
        else this.exact.set(key, [position]);
      }
      for (const term of new Set([...keys, lower(record.name)])) this.terms.push({ term, position });
    });
    this.terms.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : a.position - b.position));
    this.names = new Column(records.map((record, position) => ({ position, term: lower(record.name) })));
  }

  /** At most `max` positions of each rank for a lowercased text: exact, prefix, contained in the name. */
  ranks(text: string, max: number): [readonly number[], readonly number[], readonly number[]] {
    return [(this.exact.get(text) ?? []).slice(0, max), this.prefixed(text, max), this.names.find(text, max)];
  }

  /** The terms starting with `text` are a run of the sorted terms: its first by binary search. */
  private prefixed(text: string, max: number): number[] {
    let low = 0;
    let high = this.terms.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.terms[middle].term < text) low = middle + 1;
      else high = middle;
    }
    const positions = new Set<number>();
    for (let i = low; i < this.terms.length && this.terms[i].term.startsWith(text); i++)
      positions.add(this.terms[i].position);
    return [...positions].sort((a, b) => a - b).slice(0, max);
  }
}

const LOOKUPS = new WeakMap<SearchRecords, SearchLookup>();

function lookupOf(records: SearchRecords): SearchLookup {
  let lookup = LOOKUPS.get(records);
  if (!lookup) {
    lookup = new SearchLookup(records);
    LOOKUPS.set(records, lookup);
  }
  return lookup;
}

/**
 * Have the pointer read ahead (ADR 0019) build each new version's lookup with its records, so that
 * the first search after a publish reads and builds nothing.
 */
export function lookupsAhead(stores: Stores): void {
  stores.search.deriveAhead(lookupOf);
}

/** The served versions' records of each family, in SEARCH_ORDER (none for a family never imported). */
async function servedRecords(stores: Stores): Promise<(SearchRecords | undefined)[]> {
  const { served } = await stores.snapshot.versions();
  return Promise.all(
    SEARCH_ORDER.map(async (family) => {
      const version = served[family]?.version;
      if (version === undefined) return undefined;
      const records = await stores.search.records(version, family);
      if (records === undefined) logger.warn('a served version has no search records', { family, version });
      return records;
    }),
  );
}

/**
 * The best `limit` matches of `q` (trimmed), in rank order.
 * @internal (the pure part of searchCatalog, exported for its tests)
 */
export function rankedHits(families: readonly (SearchRecords | undefined)[], q: string, limit: number): SearchHit[] {
  const text = lower(q);
  // Each rank gives at most `limit` records besides those a better rank took (at most `limit`).
  const ranked = families.map((records) =>
    records === undefined ? undefined : lookupOf(records).ranks(text, 2 * limit),
  );
  const hits: SearchHit[] = [];
  const taken = families.map(() => new Set<number>());
  for (let rank = 0; rank < 3; rank++) {
    for (const [f, ranks] of ranked.entries()) {
      if (ranks === undefined) continue;
      for (const position of ranks[rank]) {
        if (hits.length === limit) return hits;
        if (taken[f].has(position)) continue;
        taken[f].add(position);
        const record = families[f]![position];
        hits.push({ type: TYPE[SEARCH_ORDER[f]], slug: record.slug, name: record.name, symbol: record.symbol });
      }
    }
  }
  return hits;
}

export async function searchCatalog(stores: Stores, request: SearchRequest): Promise<SearchHit[]> {
  return rankedHits(await servedRecords(stores), request.q, request.limit);
}
