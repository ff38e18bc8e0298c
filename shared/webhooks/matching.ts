/**
 * Matching at publish (CONTRACT §14 "When", docs/adr/0028-webhook-delivery.md): for one family
 * version published, the offers that differ from the version it replaced (the comparison of the
 * changes feed, shared/domain/changes.ts) against every active subscription of the family, each
 * through its filter's list predicate; the events become deliveries, queued with their bodies and
 * logged (their state, for the owner's view). It runs beside the import, never in it: a publish is
 * never slowed or undone by it.
 */
import type { OfferIndex } from '../data/family-index';
import type { OfferFamily } from '../data/keys';
import type { Stores } from '../data/stores';
import type { DeliveryItem, MatchedSubscription, ReferenceSets, WebhookStore } from '../data/webhook-store';
import { differences } from '../domain/changes';
import { type OfferFilters, type OfferMatcher, offerMatcher } from '../domain/offer-facts';
import { servedOffers } from '../domain/served';
import { OFFER_FAMILY } from '../model/offer-families';
import { DAY_MS } from '../platform/timestamps';
import { ChangeIndex, factsMoved } from './candidates';
import {
  type Candidate,
  DecimalComparisons,
  type MatchedEvent,
  type OfferState,
  type SubscriptionEvents,
  subscriptionEvents,
} from './events';
import { bodyOf, type EventText, eventJson, type PayloadHead, partsOf, sized } from './payload';
import { type DeliveryMessage, type DeliveryQueue, deliveryIdOf } from './queue';
import { CONDITIONS, parseFilter, readsFigures, WEBHOOK_EVENTS } from './subscription';

/** A family version published: the one it replaced (`none` when the family had none) and the new one. */
export interface FamilyPublished {
  family: OfferFamily;
  previous: string;
  snapshot: string;
  /** When it was published (the import's refresh time). */
  publishedAt: string;
}

export interface MatchDeps {
  stores: Stores;
  webhooks: WebhookStore;
  queue: DeliveryQueue;
  clock: () => Date;
}

export interface MatchResult {
  subscriptions: number;
  events: number;
  deliveries: number;
  /** Subscriptions whose reference APYs changed (written with their buckets, docs/adr/0028-webhook-delivery.md). */
  referencesWritten: number;
}

/** How long the owner's view shows a delivery; the item lives a day longer (the table's TTL). */
export const DELIVERY_LOG_MS = 7 * DAY_MS;

const NONE = 'none';
/** Bodies are handed to the queue once they reach this many characters (then dropped): a publish's memory stays bounded. */
const QUEUE_CHUNK_CHARS = 2 ** 20;

async function indexOf(stores: Stores, family: OfferFamily, snapshot: string): Promise<OfferIndex | undefined> {
  return snapshot === NONE ? undefined : (await servedOffers(stores, family, snapshot)).index;
}

/** The offer's APY and flag in a served document. */
function stateOf(family: OfferFamily, doc: string): OfferState {
  const fields = OFFER_FAMILY[family].fields as { apy?: string; flag: string };
  const parsed = JSON.parse(doc) as Record<string, unknown>;
  return {
    apy: fields.apy === undefined ? null : ((parsed[fields.apy] as string | null) ?? null),
    flag: parsed[fields.flag] === true,
  };
}

/** The documents of some offers in one version, read once and kept for every subscription. */
class VersionDocs {
  private readonly docs = new Map<number, string>();
  private readonly states = new Map<number, OfferState>();
  constructor(
    private readonly stores: Stores,
    private readonly family: OfferFamily,
    readonly index: OfferIndex | undefined,
  ) {}

  async load(ids: Iterable<number>): Promise<void> {
    const index = this.index;
    if (!index) return;
    const wanted = [...new Set(ids)].filter((id) => !this.docs.has(id) && index.entry(id) !== undefined);
    const read = await this.stores.documents.docs(wanted.map((id) => index.ref(index.entry(id)!)));
    wanted.forEach((id, i) => this.docs.set(id, read[i]));
  }

  doc(id: number): string | undefined {
    return this.docs.get(id);
  }

  /** The offer's APY and flag, parsed once for every subscription. */
  state(id: number): OfferState | undefined {
    let state = this.states.get(id);
    if (state === undefined) {
      const doc = this.docs.get(id);
      if (doc === undefined) return undefined;
      state = stateOf(this.family, doc);
      this.states.set(id, state);
    }
    return state;
  }
}

export async function matchPublished(deps: MatchDeps, published: FamilyPublished): Promise<MatchResult> {
  const { family } = published;
  const result: MatchResult = { subscriptions: 0, events: 0, deliveries: 0, referencesWritten: 0 };
  // A subscription starts from the version served when it was created: a publish before it is not its.
  const subscriptions = (await deps.webhooks.ofFamily(family)).filter(
    (s) => s.status === 'active' && s.createdAt <= published.publishedAt,
  );
  result.subscriptions = subscriptions.length;
  if (subscriptions.length === 0) return result;

  const [older, newer] = await Promise.all([
    indexOf(deps.stores, family, published.previous),
    indexOf(deps.stores, family, published.snapshot),
  ]);
  const changed = differences(older, newer);
  const changedIds = new Set(changed.map((d) => d.id));

  // Each distinct filter parsed, and its predicate built over both versions, once.
  const byFilter = new Map<string, FilterSides>();
  const filterOf = (text: string): FilterSides => {
    let sides = byFilter.get(text);
    if (!sides) {
      const filters = parseFilter(family, text);
      sides = {
        filters,
        figures: readsFigures(filters),
        before: older && offerMatcher(family, filters, older.facts()),
        after: newer && offerMatcher(family, filters, newer.facts()),
      };
      byFilter.set(text, sides);
    }
    return sides;
  };
  const filters = subscriptions.map((s) => filterOf(s.filter));
  // A figure moves without its offer's document changing: a filter on one may change its mind about any offer.
  const moved = filters.some((f) => f.figures) ? factsMoved(older, newer, changedIds) : [];
  const index = new ChangeIndex(
    family,
    moved.length === 0 ? [...changedIds] : [...changedIds, ...moved].sort((a, b) => a - b),
    older,
    newer,
  );

  // Each offer the index holds: changed or not, its entry in both versions, and its candidates (an
  // offer, whether a filter kept it before and now, its states): at most three, one object for every
  // subscription that has it (a publish has millions of (subscription, offer) pairs).
  const offers = new Map(
    index.ids.map((id) => [
      id,
      {
        changed: changedIds.has(id),
        oldEntry: older?.entry(id),
        newEntry: newer?.entry(id),
        variants: [] as (Candidate | undefined)[],
      },
    ]),
  );
  // The offers some subscription has, in the order first met (their documents are read).
  const shared: number[] = [];

  // What each subscription's filter says of the offers it may concern (its candidates in the index).
  // Subscriptions of one filter text have the same candidates: found once for all of them.
  const candidatesOf = (filter: FilterSides): Candidate[] => {
    if (filter.candidates) return filter.candidates;
    const { filters: query, figures, before, after } = filter;
    const sides: Candidate[] = [];
    for (const id of index.candidates(query)) {
      const offer = offers.get(id)!;
      if (!figures && !offer.changed) continue;
      const { oldEntry, newEntry, variants } = offer;
      const was = oldEntry !== undefined && (before?.(oldEntry) ?? true);
      const is = newEntry !== undefined && (after?.(newEntry) ?? true);
      if (!(was || is) || (was === is && !offer.changed)) continue;
      if (variants.length === 0) shared.push(id);
      const variant = (was ? 2 : 0) + (is ? 1 : 0);
      sides.push((variants[variant] ??= { id, was, is }));
    }
    filter.candidates = sides;
    return sides;
  };
  const perSubscription = subscriptions.map((subscription, k) => ({ subscription, sides: candidatesOf(filters[k]) }));

  // The family's references (one Query of their partition), when an `apy_change` subscription has
  // an offer to compare with one, read while the documents are: neither needs the other.
  const tracking = perSubscription.some(
    ({ subscription, sides }) => subscription.conditions.apy_change !== undefined && sides.some((s) => s.was),
  );
  // The documents they need, each version's in one read, and each candidate's states from them.
  const olderDocs = new VersionDocs(deps.stores, family, older);
  const newerDocs = new VersionDocs(deps.stores, family, newer);
  const [book] = await Promise.all([
    tracking ? deps.webhooks.references(family) : undefined,
    olderDocs.load(shared),
    newerDocs.load(shared),
  ]);
  for (const id of shared) {
    const { variants } = offers.get(id)!;
    const before = olderDocs.state(id);
    const after = newerDocs.state(id);
    for (const candidate of variants) {
      if (candidate === undefined) continue;
      candidate.before = before;
      candidate.after = after;
    }
  }

  // What the book holds of subscriptions no longer active (removed, disabled) is dropped with the next write.
  const active = new Set(subscriptions.map((s) => s.id));
  const next: ReferenceSets = new Map([...(book?.sets ?? [])].filter(([id]) => active.has(id)));

  const now = deps.clock();
  const texts = new EventTexts(family, olderDocs, newerDocs);
  const decimals = new DecimalComparisons();
  // First every delivery's events and log item (its events are texts shared by every subscription
  // sent them), then the log written, then the bodies built as the queue takes them, a chunk at a
  // time, each dropped once sent: a publish's bodies (180 MB at BENCH) are never all in memory.
  // The references last: a publish matched again after a failure (a stream record retried) finds
  // the references it started from and sends the same deliveries, under the same ids (queue.ts),
  // which a receiver can drop.
  const planned: { subscription: MatchedSubscription; ids: string[]; parts: string[][] }[] = [];
  const items: DeliveryItem[] = [];
  // Without stored references, a subscription's events follow from its filter, events and conditions
  // alone: found once for every subscription alike (with their parts).
  const alike = new Map<string, SubscriptionEvents & { parts: string[][] }>();
  for (const { subscription, sides } of perSubscription) {
    const own = book?.sets.get(subscription.id);
    const { apy_change, apy_above, apy_below, availability } = subscription.conditions;
    const key =
      own === undefined
        ? `${subscription.filter}\n${subscription.events.join()}\n${apy_change} ${apy_above} ${apy_below} ${availability}`
        : undefined;
    let found = key === undefined ? undefined : alike.get(key);
    if (found === undefined) {
      const matched = subscriptionEvents(subscription, sides, (offerId) => own?.get(offerId), decimals);
      found = { ...matched, parts: matched.events.length === 0 ? [] : texts.parts(matched.events) };
      if (key !== undefined) alike.set(key, found);
    }
    const { events, references: changes, parts } = found;
    if (changes.size > 0) {
      const refs = new Map(own);
      for (const [offerId, apy] of changes) apy === null ? refs.delete(offerId) : refs.set(offerId, apy);
      next.set(subscription.id, refs);
      result.referencesWritten++;
    }
    if (events.length === 0) continue;
    result.events += events.length;
    const logged = logItemsOf(subscription, published, parts, now);
    items.push(...logged);
    planned.push({ subscription, ids: logged.map((item) => item.id), parts });
  }
  await deps.webhooks.putDeliveries(items);
  let chunk: DeliveryMessage[] = [];
  let chunkBytes = 0;
  const send = async () => {
    if (chunk.length === 0) return;
    await deps.queue.send(chunk, 0);
    result.deliveries += chunk.length;
    chunk = [];
    chunkBytes = 0;
  };
  for (const { subscription, ids, parts } of planned) {
    const head = headOf(subscription, published);
    for (let i = 0; i < parts.length; i++) {
      const body = bodyOf(head, parts[i], i + 1, parts.length);
      chunk.push({ subscriptionId: subscription.id, family, deliveryId: ids[i], body });
      chunkBytes += body.length;
      if (chunkBytes >= QUEUE_CHUNK_CHARS) await send();
    }
  }
  await send();
  if (book) await deps.webhooks.writeReferences(book, next);
  return result;
}

/**
 * Events' JSON texts (an event's text depends on its kind, offer and reasons alone: the APYs and
 * flags are the offer's), built once for every subscription sent them, with their sizes.
 */
class EventTexts {
  private readonly byOffer = new Map<number, (EventText | undefined)[]>();
  constructor(
    private readonly family: OfferFamily,
    private readonly older: VersionDocs,
    private readonly newer: VersionDocs,
  ) {}

  private of(event: MatchedEvent): EventText {
    let code = WEBHOOK_EVENTS.indexOf(event.type) << CONDITIONS.length;
    for (const reason of event.reasons) code |= 1 << CONDITIONS.indexOf(reason);
    let texts = this.byOffer.get(event.offerId);
    if (texts === undefined) this.byOffer.set(event.offerId, (texts = []));
    let found = texts[code];
    if (found === undefined) {
      const doc = (event.type === 'offer.removed' ? this.older : this.newer).doc(event.offerId)!;
      found = texts[code] = sized(eventJson(this.family, event, doc));
    }
    return found;
  }

  /** A subscription's events cut into parts (payload.ts `partsOf`, each text's size measured once). */
  parts(events: readonly MatchedEvent[]): string[][] {
    return partsOf(events.map((event) => this.of(event)));
  }
}

/** A filter parsed and its predicate over each version (undefined: it keeps every offer of that version). */
interface FilterSides {
  filters: OfferFilters;
  figures: boolean;
  before: OfferMatcher | undefined;
  after: OfferMatcher | undefined;
  /** What it says of the offers it may concern, in index order (found once per publish). */
  candidates?: Candidate[];
}

const headOf = (subscription: MatchedSubscription, published: FamilyPublished): PayloadHead => ({
  subscription: subscription.id,
  family: published.family,
  snapshot: published.snapshot,
  previousSnapshot: published.previous,
  refreshedAt: published.publishedAt,
});

/** The log items of one subscription's deliveries for a publish, pending. */
function logItemsOf(
  subscription: MatchedSubscription,
  published: FamilyPublished,
  parts: readonly string[][],
  now: Date,
): DeliveryItem[] {
  // Due from the publish (never later than now): matched again, a delivery not yet attempted is logged the same.
  const due = Math.min(Date.parse(published.publishedAt), now.getTime());
  const nextAttemptAt = new Date(due).toISOString();
  const expiresAt = Math.floor((due + DELIVERY_LOG_MS + DAY_MS) / 1000);
  return parts.map((events, i) => ({
    id: deliveryIdOf({
      subscriptionId: subscription.id,
      previous: published.previous,
      snapshot: published.snapshot,
      publishedAt: published.publishedAt,
      part: i + 1,
    }),
    subscriptionId: subscription.id,
    snapshot: published.snapshot,
    previousSnapshot: published.previous,
    part: i + 1,
    parts: parts.length,
    events: events.length,
    status: 'pending',
    attempts: 0,
    firstAttemptAt: null,
    lastAttemptAt: null,
    lastStatus: null,
    lastError: null,
    nextAttemptAt,
    deliveredAt: null,
    expiresAt,
  }));
}
