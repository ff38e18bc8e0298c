/**
 * The window of a history request (CONTRACT §12): default intervals, exclusivity, the 5,000-bucket
 * bound, and no bound on how far back a window reaches, against the contract's own table (test/helpers/history-oracle.ts).
 */
import { historyWindow, type WindowRequest } from '../../../shared/domain/history';
import { ValidationError } from '../../../shared/platform/errors';
import { DAY, defaultIntervalOf, HOUR } from '../../helpers/history-oracle';

const NOW = Date.parse('2026-11-20T10:30:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

function messagesOf(request: WindowRequest): string[] {
  try {
    historyWindow(request, NOW);
  } catch (error) {
    if (error instanceof ValidationError) return error.messages;
    throw error;
  }
  throw new Error('expected a validation error');
}

describe('historyWindow', () => {
  it.each([DAY, DAY + 1, 7 * DAY, 7 * DAY + 1, 30 * DAY, 30 * DAY + 1, 365 * DAY, 365 * DAY + 1, 3 * 365 * DAY])(
    'gives a custom window of %i ms the interval of the shortest period at least as long',
    (length) => {
      const window = historyWindow({ from: iso(NOW - length) }, NOW);
      expect(window).toEqual({ period: 'custom', interval: defaultIntervalOf(length), from: NOW - length, to: NOW });
    },
  );

  it('takes the period, its window and its interval, or the one given with it', () => {
    expect(historyWindow({}, NOW)).toEqual({ period: '1m', interval: '4h', from: NOW - 30 * DAY, to: NOW });
    expect(historyWindow({ period: '1w', interval: '1d' }, NOW)).toEqual({
      period: '1w',
      interval: '1d',
      from: NOW - 7 * DAY,
      to: NOW,
    });
    expect(historyWindow({ period: 'all', interval: '1w' }, NOW)).toMatchObject({ from: undefined, to: NOW });
  });

  it.each([
    [{ period: '1w', from: iso(NOW - DAY) }, /^period and from /],
    [{ period: '1w', to: iso(NOW - DAY) }, /^period and to /],
    [{ to: iso(NOW - DAY) }, /^to must come with from/],
    [{ from: iso(NOW), to: iso(NOW) }, /^from must be earlier than to/],
    [{ from: iso(NOW), to: iso(NOW - 1) }, /^from must be earlier than to/],
  ] as [WindowRequest, RegExp][])('refuses %j naming its parameters', (request, message) => {
    const messages = messagesOf(request);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(message);
  });

  it('allows 5,000 buckets and refuses 5,001, naming interval and the count', () => {
    // Buckets touched: the one of `from` to the one of `to`, both included.
    const from = NOW - HOUR; // 09:30, in the 09:00 bucket
    const atLimit = Date.parse('2026-11-20T09:00:00.000Z') + 4_999 * HOUR; // the 5,000th bucket's start
    expect(historyWindow({ from: iso(from), to: iso(atLimit), interval: '1h' }, NOW).interval).toBe('1h');
    expect(messagesOf({ from: iso(from), to: iso(atLimit + HOUR), interval: '1h' })).toEqual([
      'interval 1h gives 5001 buckets in this window: at most 5000 (choose a longer interval or a shorter window)',
    ]);
    // A far future `to` with the default interval (1w) passes the bound too.
    expect(messagesOf({ from: iso(NOW), to: '9999-12-31T00:00:00Z' })[0]).toMatch(/^interval 1w gives \d+ buckets/);
  });

  it('takes a window that reaches further back than its interval is kept, and a `to` of any age (docs/api.md, "Retention")', () => {
    expect(historyWindow({ from: iso(NOW - 7 * DAY - 1), interval: '1h' }, NOW)).toEqual({
      period: 'custom',
      interval: '1h',
      from: NOW - 7 * DAY - 1,
      to: NOW,
    });
    expect(historyWindow({ period: '3m', interval: '1h' }, NOW)).toEqual({
      period: '3m',
      interval: '1h',
      from: NOW - 90 * DAY,
      to: NOW,
    });
    expect(historyWindow({ period: 'all', interval: '1d' }, NOW)).toEqual({
      period: 'all',
      interval: '1d',
      from: undefined,
      to: NOW,
    });
    expect(historyWindow({ from: iso(NOW - 30 * DAY), to: iso(NOW - 7 * DAY - 1) }, NOW)).toEqual({
      period: 'custom',
      interval: '4h',
      from: NOW - 30 * DAY,
      to: NOW - 7 * DAY - 1,
    });
    // The bucket bound still holds: a year of hours is 8,761 buckets.
    expect(messagesOf({ period: '1y', interval: '1h' })[0]).toMatch(/^interval 1h gives 8761 buckets/);
  });
});
