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
  reasons: readonly Condition[];
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
  /** By the second operand (a threshold or a reference: few), then the first; no key is built per comparison. */
  private readonly compared = new Map<string, Map<string, number>>();
  private readonly differing = new Map<string, Map<string, Map<string, boolean>>>();

  compare(a: string, b: string): number {
    let byA = this.compared.get(b);
    if (byA === undefined) this.compared.set(b, (byA = new Map()));
    let found = byA.get(a);
    if (found === undefined) {
      found = compareDecimal(a, b);
      byA.set(a, found);
    }
    return found;
  }

  /** |a − b| ≥ bound. */
  differs(a: string, b: string, bound: string): boolean {
    let byB = this.differing.get(bound);
    if (byB === undefined) this.differing.set(bound, (byB = new Map()));
    let byA = byB.get(b);
    if (byA === undefined) byB.set(b, (byA = new Map()));
    let found = byA.get(a);
    if (found === undefined) {
      found = differsByAtLeast(a, b, bound);
      byA.set(a, found);
    }
    return found;
  }
}

/** No condition holds (shared: most pairs compared have none). */
const NO_REASONS: readonly Condition[] = Object.freeze([]);

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
): readonly Condition[] {
  let reasons: Condition[] | undefined;
  if (before.apy !== null && after.apy !== null) {
    const { apy_change: change, apy_above: above, apy_below: below } = conditions;
    if (change !== undefined && decimals.differs(after.apy, reference ?? before.apy, change))
      (reasons ??= []).push('apy_change');
    if (above !== undefined && decimals.compare(before.apy, above) <= 0 && decimals.compare(after.apy, above) > 0)
      (reasons ??= []).push('apy_above');
    if (below !== undefined && decimals.compare(before.apy, below) >= 0 && decimals.compare(after.apy, below) < 0)
      (reasons ??= []).push('apy_below');
  }
  if (conditions.availability === true && before.flag !== after.flag) (reasons ??= []).push('availability');
  return reasons ?? NO_REASONS;
}

const inIdOrder = (candidates: readonly Candidate[]): boolean => {
  for (let i = 1; i < candidates.length; i++) if (candidates[i - 1].id > candidates[i].id) return false;
  return true;
};

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
  const sorted = inIdOrder(candidates) ? candidates : [...candidates].sort((a, b) => a.id - b.id);
  const apy = (c: Candidate) => ({ from: c.before?.apy ?? null, to: c.after?.apy ?? null });
  const flag = (c: Candidate) => ({ from: c.before?.flag ?? null, to: c.after?.flag ?? null });
  for (const c of sorted) {
    if (!c.was && c.is) {
      if (wants('offer.added'))
        events.push({ type: 'offer.added', offerId: c.id, reasons: [], apy: apy(c), flag: flag(c) });
      continue;
    }
    if (c.was && !c.is) {
      if (wants('offer.removed'))
        events.push({ type: 'offer.removed', offerId: c.id, reasons: [], apy: apy(c), flag: flag(c) });
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
      events.push({ type: 'offer.changed', offerId: c.id, reasons, apy: apy(c), flag: flag(c) });
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
