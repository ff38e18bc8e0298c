/**
 * Which events a subscription is sent (CONTRACT §14 "When"): added, removed, and changed by each
 * condition with exact decimal comparisons; the reference APY of `apy_change` across publishes, so
 * that slow drifts add up.
 */
import { type Candidate, reasonsOf, subscriptionEvents } from '../../../shared/webhooks/events';
import type { Conditions, WebhookEvent } from '../../../shared/webhooks/subscription';

const ALL: WebhookEvent[] = ['offer.added', 'offer.removed', 'offer.changed'];
const state = (apy: string | null, flag = true) => ({ apy, flag });
const both = (id: number, from: string, to: string, flags: [boolean, boolean] = [true, true]): Candidate => ({
  id,
  was: true,
  is: true,
  before: state(from, flags[0]),
  after: state(to, flags[1]),
});

describe('reasonsOf', () => {
  it.each([
    [{ apy_above: '8' }, '8', '8.0001', ['apy_above']],
    [{ apy_above: '8' }, '8.1', '9', []],
    [{ apy_above: '8' }, '7', '8.000', []],
    [{ apy_below: '3' }, '3.00', '2.99', ['apy_below']],
    [{ apy_below: '3' }, '2.9', '1', []],
    [{ apy_below: '-1' }, '0', '-1.5', ['apy_below']],
    [{ apy_change: '0.5' }, '4.1', '4.6', ['apy_change']],
    [{ apy_change: '0.5' }, '4.1', '4.59999', []],
    [{ apy_change: '0.5' }, '4.6', '4.1', ['apy_change']],
    [{ apy_change: '0.5', apy_above: '4.5' }, '4.1', '4.6', ['apy_change', 'apy_above']],
  ] as [Conditions, string, string, string[]][])('%j: %s → %s gives %j', (conditions, from, to, reasons) => {
    expect(reasonsOf(conditions, state(from), state(to), undefined)).toEqual(reasons);
  });

  it('compares apy_change with the stored reference when there is one', () => {
    expect(reasonsOf({ apy_change: '0.5' }, state('4.4'), state('4.5'), '4.0')).toEqual(['apy_change']);
    expect(reasonsOf({ apy_change: '0.5' }, state('4.0'), state('4.9'), '4.5')).toEqual([]);
  });

  it('sees availability when the flag differs, and orders reasons as the contract lists them', () => {
    const all: Conditions = { apy_change: '0.1', apy_above: '5', apy_below: '10', availability: true };
    expect(reasonsOf(all, state('4', true), state('6', false), undefined)).toEqual([
      'apy_change',
      'apy_above',
      'availability',
    ]);
    expect(reasonsOf({ availability: true }, state('4', true), state('4', true), undefined)).toEqual([]);
  });

  it('never compares a missing APY (collateral)', () => {
    expect(reasonsOf({ apy_change: '0', apy_above: '0', apy_below: '0' }, state(null), state(null), undefined)).toEqual(
      [],
    );
  });
});

describe('subscriptionEvents', () => {
  it('sends added, removed and changed in offer-id order, each only when asked', () => {
    const candidates: Candidate[] = [
      both(9, '1', '9'),
      { id: 3, was: false, is: true, after: state('2') },
      { id: 5, was: true, is: false, before: state('2') },
    ];
    const all = subscriptionEvents({ events: ALL, conditions: { apy_above: '8' } }, candidates, () => undefined);
    expect(all.events.map((e) => [e.type, e.offerId, e.reasons])).toEqual([
      ['offer.added', 3, []],
      ['offer.removed', 5, []],
      ['offer.changed', 9, ['apy_above']],
    ]);
    expect(all.events[0].apy).toEqual({ from: null, to: '2' });
    expect(all.events[1].flag).toEqual({ from: true, to: null });
    const some = subscriptionEvents(
      { events: ['offer.removed'], conditions: { apy_above: '8' } },
      candidates,
      () => undefined,
    );
    expect(some.events.map((e) => e.offerId)).toEqual([5]);
  });

  it('adds slow drifts up across publishes through the stored reference', () => {
    const subscription = { events: ALL, conditions: { apy_change: '0.5' } };
    const stored = new Map<number, string>();
    const publish = (from: string, to: string) => {
      const out = subscriptionEvents(subscription, [both(1, from, to)], (id) => stored.get(id));
      for (const [id, apy] of out.references) apy === null ? stored.delete(id) : stored.set(id, apy);
      return out.events.length;
    };
    // 0.2 a publish: nothing until the sum reaches 0.5, then the event's APY is the new reference.
    expect([publish('4.0', '4.2'), publish('4.2', '4.4'), publish('4.4', '4.6')]).toEqual([0, 0, 1]);
    expect(stored.has(1)).toBe(false);
    expect([publish('4.6', '4.8'), publish('4.8', '5.0'), publish('5.0', '5.1')]).toEqual([0, 0, 1]);
  });

  it('drops a reference when its offer leaves the filter, and keeps none for subscriptions without apy_change', () => {
    const removed = subscriptionEvents(
      { events: ALL, conditions: { apy_change: '1' } },
      [{ id: 4, was: true, is: false, before: state('3') }],
      () => '2',
    );
    expect(removed.references).toEqual(new Map([[4, null]]));
    const without = subscriptionEvents(
      { events: ALL, conditions: { apy_above: '10' } },
      [both(4, '1', '2')],
      () => undefined,
    );
    expect(without.references.size).toBe(0);
  });
});
