/** One page of a list: its pre-rendered documents, the pagination block of the answer, the version it was read from. */
export interface Pagination {
  total: number;
  offset: number;
  limit: number;
  has_more: boolean;
}

/**
 * Which page of which version a list asks for: the parsed `offset`, `limit` and `snapshot` (the
 * query schemas of shared/http/query.ts produce it; the domain names only what it reads).
 */
export interface PageRequest {
  readonly offset: number;
  readonly limit: number;
  /** The version to read (docs/api.md, "Paging one version"); the served one when absent. */
  readonly snapshot?: string;
}

export interface Page {
  docs: string[];
  /** `snapshot` names the version the page was read from (docs/api.md, "Paging one version"). */
  page: Pagination & { snapshot: string };
  /** When that version was published (`Last-Modified`). */
  lastModified: string;
}

/** A detail: its document and when the newest version it depends on was published. */
export interface Detail {
  doc: string;
  lastModified: string;
}

export function pagination(total: number, offset: number, limit: number, returned: number): Pagination {
  return { total, offset, limit, has_more: offset + returned < total };
}

/**
 * The entries of `order` that `match` keeps (all without one), counted, and those at [offset,
 * offset + limit) of them: one pass over the index, nothing allocated per entry.
 */
export function pageOf(
  order: readonly number[] | Int32Array,
  match: ((entry: number) => boolean) | undefined,
  offset: number,
  limit: number,
): { total: number; entries: number[] } {
  if (!match) return { total: order.length, entries: Array.from(order.slice(offset, offset + limit)) };
  const entries: number[] = [];
  const end = offset + limit;
  let total = 0;
  for (const entry of order) {
    if (!match(entry)) continue;
    if (total >= offset && total < end) entries.push(entry);
    total++;
  }
  return { total, entries };
}

/** The later of two instants (ISO 8601, UTC, same precision: text order is time order). */
export const later = (a: string, b: string) => (a > b ? a : b);
