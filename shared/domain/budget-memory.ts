/**
 * What one function instance has seen of each key's budgets, to choose how the next request is
 * charged (docs/api.md "Quotas", docs/performance.md "Refused requests"). A key that this instance
 * saw refused, or whose last known budget is spent by the requests it has in flight, is charged
 * before its data read, which runs only if the charge allowed it: a key that keeps calling after
 * its refusal costs no data read. Every other request is charged in parallel with its read.
 *
 * It also tells the charge whether the key was already charged in this minute, which chooses the
 * counter write that is likely to succeed at once (shared/accounts/quota-store.ts).
 *
 * These are only guesses: the counters stay the authority on every request, so a wrong guess
 * (another instance spent the budget, a window reset) costs latency, a read or a write, never a
 * wrong answer.
 */
import type { KeyLimits } from '../accounts/key-store';
import type { Usage } from './quota';

/** `parallel`: the charge beside the data read; `charge-first`: the read only once the charge allowed it. */
export type ChargeOrder = 'parallel' | 'charge-first';

/** How the next request of a key is charged. */
export interface ChargePlan {
  order: ChargeOrder;
  /** The key was charged earlier in the current minute, as far as this instance knows. */
  sameMinute: boolean;
}

interface Seen {
  limits: KeyLimits;
  minuteReset: number;
  minuteRemaining: number;
  monthReset: number;
  monthRemaining: number;
}

interface KeyState {
  inFlight: number;
  seen?: Seen;
}

/** Keys remembered per instance; the least recently charged are forgotten first. */
const BUDGET_MEMORY_KEYS = 10_000;

export class BudgetMemory {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly maxKeys = BUDGET_MEMORY_KEYS) {}

  /** How to charge the next request of `keyId`; the request counts as in flight until `settle`. */
  plan(keyId: string, limits: KeyLimits, now: Date): ChargePlan {
    const state = this.keys.get(keyId) ?? { inFlight: 0 };
    this.touch(keyId, state);
    const nowSeconds = now.getTime() / 1000;
    const order = this.orderOf(state, limits, nowSeconds);
    state.inFlight += 1;
    // The last answer seen was of this minute: its window resets within the next 60 seconds.
    const sameMinute =
      state.seen !== undefined && nowSeconds < state.seen.minuteReset && nowSeconds >= state.seen.minuteReset - 60;
    return { order, sameMinute };
  }

  /** The charge of a planned request has settled: `usage` when the counters answered. */
  settle(keyId: string, usage: Usage | undefined): void {
    const state = this.keys.get(keyId);
    if (!state) return;
    state.inFlight = Math.max(0, state.inFlight - 1);
    if (!usage) return;
    const { seen } = state;
    const same = seen !== undefined && sameLimits(seen.limits, usage.limits);
    // Within a window a key's remaining budget only goes down: keep the lowest answer seen.
    const lowest = (prevReset: number | undefined, prev: number | undefined, reset: number, remaining: number) =>
      same && prevReset === reset && prev !== undefined ? Math.min(prev, remaining) : remaining;
    state.seen = {
      limits: usage.limits,
      minuteReset: usage.minute.resetAt,
      minuteRemaining: lowest(seen?.minuteReset, seen?.minuteRemaining, usage.minute.resetAt, usage.minute.remaining),
      monthReset: usage.month.resetAt,
      monthRemaining: lowest(seen?.monthReset, seen?.monthRemaining, usage.month.resetAt, usage.month.remaining),
    };
  }

  private orderOf(state: KeyState, limits: KeyLimits, nowSeconds: number): ChargeOrder {
    const { seen } = state;
    // Never seen here: parallel, unless a request of this key is already in flight (a burst),
    // whose outcome is not known yet.
    if (!seen || !sameLimits(seen.limits, limits)) return state.inFlight > 0 ? 'charge-first' : 'parallel';
    const minuteLeft = nowSeconds < seen.minuteReset ? seen.minuteRemaining : limits.perMinute;
    const monthLeft = nowSeconds < seen.monthReset ? seen.monthRemaining : limits.perMonth;
    return Math.min(minuteLeft, monthLeft) - state.inFlight <= 0 ? 'charge-first' : 'parallel';
  }

  private touch(keyId: string, state: KeyState): void {
    this.keys.delete(keyId);
    this.keys.set(keyId, state);
    if (this.keys.size > this.maxKeys) {
      const oldest = this.keys.keys().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
  }
}

const sameLimits = (a: KeyLimits, b: KeyLimits) => a.perMinute === b.perMinute && a.perMonth === b.perMonth;
