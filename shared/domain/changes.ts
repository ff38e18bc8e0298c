/**
 * Changes between two versions of an offer family (docs/api.md, "Changes"): every offer whose
 * served representation differs, by ascending id. Both indexes hold their offers by ascending id
 * with a hash of each document, so the difference is one merge of the two, kept per pair of
 * versions (both immutable); a page reads only the newer documents it shows.
 */

import type { OfferIndex } from '../data/family-index';
import type { OfferFamily } from '../data/keys';
import type { Stores } from '../data/stores';
import { ValidationError } from '../platform/errors';
import { type Includes, withIncludes } from './offers';
import { type PageRequest, type Pagination, pagination } from './page';
import { servedOffers } from './served';

type Change = 'added' | 'changed' | 'removed';

/** A page of the changes since version `since` (docs/api.md, "Changes since a version"). */
export interface ChangesRequest extends PageRequest, Includes {
  readonly since: string;
}

export interface ChangesPage {
  since: string;
  snapshot: string;
  /** The JSON array of `{ id, change, offer }`. */
  data: string;
  page: Pagination & { snapshot: string };
  lastModified: string;
}

/** One difference: the offer's id, what happened, and its entry in the newer index (none when removed). */
export interface Difference {
  id: number;
  change: Change;
  entry: number | undefined;
}

const EMPTY: Difference[] = [];

/** The differences between two indexes, by ascending id (also what a publish's webhooks compare, shared/webhooks). */
export function differences(older: OfferIndex | undefined, newer: OfferIndex | undefined): Difference[] {
  if (older === newer) return EMPTY;
  const a = older?.data.ids ?? [];
  const b = newer?.data.ids ?? [];
  const out: Difference[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push({ id: a[i++], change: 'removed', entry: undefined });
    else if (i >= a.length || b[j] < a[i]) out.push({ id: b[j], change: 'added', entry: j++ });
    else {
      if (older!.hash(i) !== newer!.hash(j)) out.push({ id: b[j], change: 'changed', entry: j });
      i++;
      j++;
    }
  }
  return out;
}

/** Differences kept per pair of versions: a client pages through them. */
const KEPT = 8;
const kept = new Map<string, Difference[]>();

function differencesOf(
  since: string,
  snapshot: string,
  older: OfferIndex | undefined,
  newer: OfferIndex | undefined,
): Difference[] {
  const key = `${since}\u0000${snapshot}`;
  let found = kept.get(key);
  if (!found) {
    found = differences(older, newer);
    kept.set(key, found);
    if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  }
  return found;
}

export async function offerChanges(stores: Stores, family: OfferFamily, query: ChangesRequest): Promise<ChangesPage> {
  const [older, newer] = await Promise.all([
    servedOffers(stores, family, query.since, 'since'),
    servedOffers(stores, family, query.snapshot),
  ]);
  // Newer means published later (the pointer's publish order), never the difference reversed.
  if (older.rank > newer.rank)
    throw new ValidationError([
      `since must not name a version newer than ${query.snapshot === undefined ? 'the served one' : 'snapshot'}`,
    ]);
  const all = differencesOf(older.snapshot, newer.snapshot, older.index, newer.index);
  const shown = all.slice(query.offset, query.offset + query.limit);
  // The offers it shows are the newer version's, with what the request includes.
  const entries = shown.flatMap((d) => (d.entry === undefined ? [] : [d.entry]));
  const read = await stores.documents.docs(entries.map((e) => newer.index!.ref(e)));
  const docs = newer.index ? withIncludes(query, newer.index, entries, read, newer.publishedAt) : read;
  let next = 0;
  const rows = shown.map(
    (d) => `{"id":${d.id},"change":"${d.change}","offer":${d.entry === undefined ? 'null' : docs[next++]}}`,
  );
  return {
    since: older.snapshot,
    snapshot: newer.snapshot,
    data: `[${rows.join(',')}]`,
    page: { ...pagination(all.length, query.offset, query.limit, shown.length), snapshot: newer.snapshot },
    lastModified: newer.publishedAt,
  };
}
