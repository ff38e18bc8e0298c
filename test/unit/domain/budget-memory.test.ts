/** The charge order one function instance chooses per key from what it has seen (shared/domain/budget-memory.ts). */
import { BudgetMemory } from '../../../shared/domain/budget-memory';
import type { Usage } from '../../../shared/domain/quota';

const NOW = new Date('2026-11-20T10:00:30.000Z');
const MINUTE_RESET = Date.parse('2026-11-20T10:01:00.000Z') / 1000;
const MONTH_RESET = Date.parse('2026-12-01T00:00:00.000Z') / 1000;
const LIMITS = { perMinute: 3, perMonth: 100 };

const usage = (minuteRemaining: number, monthRemaining = 50, limits = LIMITS): Usage => ({
  limits,
  minute: { used: limits.perMinute - minuteRemaining, remaining: minuteRemaining, resetAt: MINUTE_RESET },
  month: { used: limits.perMonth - monthRemaining, remaining: monthRemaining, resetAt: MONTH_RESET },
  now: NOW,
});

it('charges a key never seen in parallel with its read', () => {
  expect(new BudgetMemory().plan('k', LIMITS, NOW).order).toBe('parallel');
});

it('charges first the requests that arrive while the first one of an unknown key is in flight', () => {
  const memory = new BudgetMemory();
  expect(memory.plan('k', LIMITS, NOW).order).toBe('parallel');
  expect(memory.plan('k', LIMITS, NOW).order).toBe('charge-first');
  expect(memory.plan('other', LIMITS, NOW).order).toBe('parallel');
});

it('charges first a key seen refused, until its window resets', () => {
  const memory = new BudgetMemory();
  memory.plan('k', LIMITS, NOW);
  memory.settle('k', usage(0));
  expect(memory.plan('k', LIMITS, NOW).order).toBe('charge-first');
  memory.settle('k', usage(0));
  expect(memory.plan('k', LIMITS, new Date(MINUTE_RESET * 1000)).order).toBe('parallel');
});

it('charges first a key whose monthly budget is spent, until the next month', () => {
  const memory = new BudgetMemory();
  memory.plan('k', LIMITS, NOW);
  memory.settle('k', usage(2, 0));
  expect(memory.plan('k', LIMITS, new Date(MINUTE_RESET * 1000 + 5_000)).order).toBe('charge-first');
  memory.settle('k', usage(2, 0));
  expect(memory.plan('k', LIMITS, new Date(MONTH_RESET * 1000)).order).toBe('parallel');
});

it('counts the requests in flight against the budget left', () => {
  const memory = new BudgetMemory();
  memory.plan('k', LIMITS, NOW);
  memory.settle('k', usage(2));
  expect(memory.plan('k', LIMITS, NOW).order).toBe('parallel');
  expect(memory.plan('k', LIMITS, NOW).order).toBe('parallel');
  expect(memory.plan('k', LIMITS, NOW).order).toBe('charge-first');
});

it('keeps the lowest remaining budget of a window when answers settle out of order', () => {
  const memory = new BudgetMemory();
  memory.plan('k', LIMITS, NOW);
  memory.plan('k', LIMITS, NOW);
  memory.settle('k', usage(0));
  memory.settle('k', usage(1));
  expect(memory.plan('k', LIMITS, NOW).order).toBe('charge-first');
});

it('forgets what it saw when the key comes with other limits', () => {
  const memory = new BudgetMemory();
  memory.plan('k', LIMITS, NOW);
  memory.settle('k', usage(0));
  // The budget of the new limits is unknown here: the counters decide, in parallel with the read.
  expect(memory.plan('k', { perMinute: 10, perMonth: 100 }, NOW).order).toBe('parallel');
});

it('forgets the least recently charged key beyond its size', () => {
  const memory = new BudgetMemory(2);
  memory.plan('a', LIMITS, NOW);
  memory.settle('a', usage(0));
  memory.plan('b', LIMITS, NOW);
  memory.plan('c', LIMITS, NOW);
  expect(memory.plan('a', LIMITS, NOW).order).toBe('parallel');
});

it('says the key was charged earlier in this minute only while that minute lasts', () => {
  const memory = new BudgetMemory();
  expect(memory.plan('k', LIMITS, NOW).sameMinute).toBe(false);
  memory.settle('k', usage(2));
  expect(memory.plan('k', LIMITS, NOW).sameMinute).toBe(true);
  memory.settle('k', usage(1));
  expect(memory.plan('k', LIMITS, new Date(MINUTE_RESET * 1000 - 1)).sameMinute).toBe(true);
  expect(memory.plan('k', LIMITS, new Date(MINUTE_RESET * 1000)).sameMinute).toBe(false);
  // A clock behind the minute it saw: not this minute either.
  expect(memory.plan('k', LIMITS, new Date((MINUTE_RESET - 60) * 1000 - 1)).sameMinute).toBe(false);
});
