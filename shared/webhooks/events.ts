/**
 * Which events one subscription is sent for one publish (CONTRACT §14 "When"): pure, from what the
 * subscription's filter says of each offer in the version replaced and the new one, the offers' APY
 * and runtime flag in both, and the reference APYs stored for `apy_change`. Every comparison is an
 * exact decimal one (shared/platform/decimal.ts).
 *
 * References are kept sparse (docs/adr/0028-webhook-delivery.md): a stored reference is written only
 * when an offer's APY moves without an event; with none stored, the reference is the offer's APY in
 * the version replaced, which is the APY of the last event sent for it or the one it had when the
 * subscription first saw it matching (nothing moved it since without a reference being stored).
 */
import { compareDecimal, differsByAtLeast } from '../platform/decimal';
import type { Condition, Conditions, WebhookEvent } from './subscription';

/** An offer in one version: its APY (null where the family has none) and its runtime flag. */
export interface OfferState {
  apy: string | null;
  flag: boolean;
}

/** One offer a publish may concern: whether it matched the filter before and now, and its states. */
export interface Candidate {
  id: number;
  /** Matched the filter in the version replaced (it was served there and the filter kept it). */
  was: boolean;
  /** Matches it in the new version. */
  is: boolean;
  before?: OfferState;
  after?: OfferState;
}

export interface MatchedEvent {
  type: WebhookEvent;
  offerId: number;
  reasons: Condition[];
  apy: { from: string | null; to: string | null };
  flag: { from: boolean | null; to: boolean | null };
}

export interface SubscriptionEvents {
  events: MatchedEvent[];
  /** Reference APYs to store (a decimal) or drop (null), by offer id. */
  references: Map<number, string | null>;
}

/**
 * Exact decimal comparisons, remembered: a publish compares the same APYs with the same thresholds
 * for many subscriptions, and parsing a decimal costs more than looking the answer up.
 */
export class DecimalComparisons {
  private readonly compared = new Map<string, number>();
  private readonly differing = new Map<string, boolean>();

  compare(a: string, b: string): number {
    const key = `${a} ${b}`;
    let found = this.compared.get(key);
    if (found === undefined) {
      found = compareDecimal(a, b);
      this.compared.set(key, found);
    }
    return found;
  }

  /** |a − b| ≥ bound. */
  differs(a: string, b: string, bound: string): boolean {
    const key = `${a} ${b} ${bound}`;
    let found = this.differing.get(key);
    if (found === undefined) {
      found = differsByAtLeast(a, b, bound);
      this.differing.set(key, found);
    }
    return found;
  }
}

/**
 * The conditions that hold for an offer that matches before and after (in the order of CONDITIONS).
 * @internal (exported for its tests)
 */
export function reasonsOf(
  conditions: Conditions,
  before: OfferState,
  after: OfferState,
  reference: string | undefined,
  decimals = new DecimalComparisons(),
): Condition[] {
  const reasons: Condition[] = [];
  if (before.apy !== null && after.apy !== null) {
    const { apy_change: change, apy_above: above, apy_below: below } = conditions;
    if (change !== undefined && decimals.differs(after.apy, reference ?? before.apy, change))
      reasons.push('apy_change');
    if (above !== undefined && decimals.compare(before.apy, above) <= 0 && decimals.compare(after.apy, above) > 0)
      reasons.push('apy_above');
    if (below !== undefined && decimals.compare(before.apy, below) >= 0 && decimals.compare(after.apy, below) < 0)
      reasons.push('apy_below');
  }
  if (conditions.availability === true && before.flag !== after.flag) reasons.push('availability');
  return reasons;
}

/**
 * The events of one subscription, in offer-id order, and the references to store or drop.
 * `stored(id)` is the reference stored for an offer, if any.
 */
export function subscriptionEvents(
  subscription: { events: readonly WebhookEvent[]; conditions: Conditions },
  candidates: readonly Candidate[],
  stored: (offerId: number) => string | undefined,
  decimals = new DecimalComparisons(),
): SubscriptionEvents {
  const events: MatchedEvent[] = [];
  const references = new Map<number, string | null>();
  const tracksReferences = subscription.conditions.apy_change !== undefined;
  const wants = (type: WebhookEvent) => subscription.events.includes(type);
  const sorted = [...candidates].sort((a, b) => a.id - b.id);
  for (const c of sorted) {
    const apy = { from: c.before?.apy ?? null, to: c.after?.apy ?? null };
    const flag = { from: c.before?.flag ?? null, to: c.after?.flag ?? null };
    if (!c.was && c.is) {
      if (wants('offer.added')) events.push({ type: 'offer.added', offerId: c.id, reasons: [], apy, flag });
      continue;
    }
    if (c.was && !c.is) {
      if (wants('offer.removed')) events.push({ type: 'offer.removed', offerId: c.id, reasons: [], apy, flag });
      // Out of the filter: when it comes back, its reference is the APY it has then.
      if (tracksReferences && stored(c.id) !== undefined) references.set(c.id, null);
      continue;
    }
    if (!c.was || !c.before || !c.after) continue;
    const reference = stored(c.id);
    const reasons = wants('offer.changed')
      ? reasonsOf(subscription.conditions, c.before, c.after, reference, decimals)
      : [];
    if (reasons.length > 0) {
      events.push({ type: 'offer.changed', offerId: c.id, reasons, apy, flag });
      // The event's APY is the reference now: the APY of this version, which the next publish replaces.
      if (reference !== undefined) references.set(c.id, null);
    } else if (
      tracksReferences &&
      reference === undefined &&
      c.before.apy !== null &&
      c.after.apy !== null &&
      decimals.compare(c.before.apy, c.after.apy) !== 0
    ) {
      // The APY moved without an event: its reference is the APY before, stored so that drifts add up.
      references.set(c.id, c.before.apy);
    }
  }
  return { events, references };
}
