/**
 * Search (docs/api.md, "Search"; CONTRACT §15): currencies and platforms whose slug, symbol or name
 * matches a text, case-insensitively. Ranks: an exact slug or symbol (a former slug counts as a
 * slug), then a prefix of a slug, symbol or name, then a name containing the text; within a rank
 * currencies before exchanges, wallets and protocols, each in its own list order. Only the exposed
 * records of the served versions are searched (the import writes no other), a former slug answers
 * the current one.
 *
 * Each version's records are matched through a lookup built once per version and instance (exact
 * terms, the sorted terms for prefixes, the 1- to 3-character pieces of the names for the rest),
 * so a request reads the entries that match, not every record.
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

/** The longest piece of a name the lookup keeps: a text of at most this many characters is one piece. */
const PIECE = 3;

const lower = (text: string) => text.toLowerCase();

/** Positions in ascending order, without repeats. */
const ascendingUnique = (positions: Iterable<number>): Int32Array => Int32Array.from(new Set(positions)).sort();

/** A version's lookup: the positions (in list order) of the records each rank holds for a text. */
class SearchLookup {
  /** Lowercased slug, symbol or former slug → the positions that have it. */
  private readonly exact = new Map<string, number[]>();
  /** Every lowercased slug, symbol, name and former slug, sorted, with its position. */
  private readonly terms: { term: string; position: number }[] = [];
  /** Each piece of 1 to PIECE characters of the lowercased names → the positions whose name has it, ascending. */
  private readonly pieces = new Map<string, number[]>();
  private readonly names: string[];

  constructor(records: SearchRecords) {
    this.names = records.map((r) => lower(r.name));
    records.forEach((record, position) => {
      const keys = [record.slug, ...(record.symbol === null ? [] : [record.symbol]), ...record.former].map(lower);
      for (const key of new Set(keys)) {
        const list = this.exact.get(key);
        if (list) list.push(position);
        else this.exact.set(key, [position]);
      }
      for (const term of new Set([...keys, this.names[position]])) this.terms.push({ term, position });
      const name = this.names[position];
      const seen = new Set<string>();
      for (let length = 1; length <= PIECE; length++)
        for (let at = 0; at + length <= name.length; at++) seen.add(name.slice(at, at + length));
      for (const piece of seen) {
        const list = this.pieces.get(piece);
        if (list) list.push(position);
        else this.pieces.set(piece, [position]);
      }
    });
    this.terms.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : a.position - b.position));
  }

  /** The positions of each rank for a lowercased text: exact, prefix, contained in the name. */
  ranks(text: string): [Int32Array, Int32Array, Int32Array] {
    return [ascendingUnique(this.exact.get(text) ?? []), this.prefixed(text), this.containing(text)];
  }

  private prefixed(text: string): Int32Array {
    let low = 0;
    let high = this.terms.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.terms[middle].term < text) low = middle + 1;
      else high = middle;
    }
    const positions: number[] = [];
    for (let i = low; i < this.terms.length && this.terms[i].term.startsWith(text); i++)
      positions.push(this.terms[i].position);
    return ascendingUnique(positions);
  }

  private containing(text: string): Int32Array {
    if (text.length <= PIECE) return Int32Array.from(this.pieces.get(text) ?? []);
    // The rarest piece of the text: every name that contains the text has it.
    let rarest: number[] | undefined;
    for (let at = 0; at + PIECE <= text.length; at++) {
      const list = this.pieces.get(text.slice(at, at + PIECE)) ?? [];
      if (rarest === undefined || list.length < rarest.length) rarest = list;
    }
    return Int32Array.from((rarest ?? []).filter((position) => this.names[position].includes(text)));
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

/** The served versions' records of each family, in SEARCH_ORDER (none for a family never imported). */
async function servedRecords(stores: Stores): Promise<(SearchRecords | undefined)[]> {
  const { served } = await stores.snapshot.versions();
  return Promise.all(
    SEARCH_ORDER.map(async (family) => {
      const version = served[family]?.version;
      if (version === undefined) return undefined;
      const records = await stores.search.records(version);
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
  const ranked = families.map((records) => (records === undefined ? undefined : lookupOf(records).ranks(text)));
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
