/**
 * A subscription is checked where it is written (CONTRACT §14): its filter by its family's list
 * validation, its conditions as exact decimals, its URL by the stage's target rule; every problem
 * names its field. Bodies are cut in parts of at most 100 events.
 */

import { OFFER_FAMILIES } from '../../../shared/model/offer-families';
import { ValidationError } from '../../../shared/platform/errors';
import {
  bodyOf,
  EVENTS_PER_PART,
  eventJson,
  PART_EVENTS_MAX_BYTES,
  partsOf,
  sized,
} from '../../../shared/webhooks/payload';
import { encodeDeliveryMessage, MESSAGE_MAX_BYTES } from '../../../shared/webhooks/queue';
import {
  generateWebhookSecret,
  isWebhookSecret,
  parseFilter,
  readsFigures,
  validateSubscription,
} from '../../../shared/webhooks/subscription';

const messages = (run: () => unknown): string[] => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.details?.message as string[];
    throw error;
  }
  throw new Error('no ValidationError');
};

describe('validateSubscription', () => {
  it('takes a valid subscription with defaults: every event, an empty filter', () => {
    const spec = validateSubscription(
      { url: 'https://hooks.example.com/yield', family: 'earn', conditions: { apy_change: '0.5' } },
      'public',
    );
    expect(spec).toEqual({
      url: 'https://hooks.example.com/yield',
      family: 'earn',
      filter: '',
      events: ['offer.added', 'offer.removed', 'offer.changed'],
      conditions: { apy_change: '0.5' },
    });
  });

  it('validates the filter as the list does, naming filter and the parameter', () => {
    expect(messages(() => parseFilter('earn', 'min_apy=abc'))).toEqual([
      'filter: min_apy must be a decimal number such as 4.75',
    ]);
    expect(messages(() => parseFilter('collateral', 'min_apy=1'))).toEqual([
      'filter: property min_apy should not exist',
    ]);
    expect(messages(() => parseFilter('earn', 'sort=apy_desc&limit=5'))).toEqual([
      'filter: sort is not a filter',
      'filter: limit is not a filter',
    ]);
    expect(parseFilter('earn', 'asset=usd-coin,tether&available=true')).toMatchObject({
      asset: ['usd-coin', 'tether'],
      available: true,
    });
    expect(readsFigures(parseFilter('earn', 'min_apy_mean_30d=2'))).toBe(true);
    expect(readsFigures(parseFilter('earn', 'min_apy=2'))).toBe(false);
  });

  it('refuses every bad field at once, each named', () => {
    const problems = messages(() =>
      validateSubscription(
        {
          url: 'http://hooks.example.com',
          family: 'collateral',
          events: ['offer.changed', 'offer.exploded'],
          conditions: { apy_above: '8', colour: 'red' },
        },
        'public',
      ),
    );
    expect(problems).toEqual([
      'url must be an https URL',
      'events must be a non-empty list of distinct values of: offer.added, offer.removed, offer.changed',
      'conditions.colour is not a condition',
      'conditions.apy_above is refused on collateral: it has no APY',
    ]);
    expect(
      messages(() => validateSubscription({ url: 'https://a.example', family: 'earn', conditions: {} }, 'public')),
    ).toEqual(['conditions must hold at least one condition when events has offer.changed']);
    expect(
      messages(() =>
        validateSubscription({ url: 'https://a.example', family: 'earn', conditions: { apy_change: '-1' } }, 'public'),
      ),
    ).toEqual(['conditions.apy_change must not be less than 0']);
    expect(
      messages(() =>
        validateSubscription({ url: 'https://a.example', family: 'earn', conditions: { apy_above: '1e3' } }, 'public'),
      ),
    ).toEqual(['conditions.apy_above must be a decimal string such as "8.5"']);
    expect(messages(() => validateSubscription({ family: 'loans' }, 'public'))).toEqual([
      'url is required',
      `family must be one of the following values: ${OFFER_FAMILIES.join(', ')}`,
      'conditions must hold at least one condition when events has offer.changed',
    ]);
  });

  it.each([
    ['http://127.0.0.1:8080/hook', true],
    ['http://localhost:9000', true],
    ['http://localhost', false],
    ['https://127.0.0.1:8080/', false],
    ['http://10.0.0.1:8080/', false],
    ['http://user:pw@127.0.0.1:8080/', false],
  ])('the local stage takes %s: %s', (url, ok) => {
    const run = () => validateSubscription({ url, family: 'earn', events: ['offer.added'] }, 'local');
    if (ok) expect(run().url).toBe(url);
    else expect(messages(run)[0]).toMatch(/^url /);
  });

  it('generates Standard Webhooks secrets and recognizes only their form', () => {
    const secret = generateWebhookSecret();
    expect(isWebhookSecret(secret)).toBe(true);
    expect(secret).not.toBe(generateWebhookSecret());
    expect(isWebhookSecret(`whsec_${Buffer.alloc(16).toString('base64')}`)).toBe(false);
    expect(isWebhookSecret('whsec_***')).toBe(false);
    expect(isWebhookSecret(42)).toBe(false);
  });
});

describe('bodies', () => {
  const head = {
    subscription: 'wh_0',
    family: 'earn' as const,
    snapshot: 'b',
    previousSnapshot: 'a',
    refreshedAt: 'T',
  };

  it('cuts a part before 100 events when they would not fit one queue message, in order', () => {
    // 16 KiB events (an offer record's bound): 15 fit a message, not 16.
    const events = Array.from({ length: 40 }, (_, i) => `{"offer_id":${i},"pad":"${'x'.repeat(16_384)}"}`);
    const parts = partsOf(events.map(sized));
    expect(parts.map((p) => p.length)).toEqual([15, 15, 10]);
    expect(parts.flat()).toEqual(events);
    for (const part of parts) {
      const message = encodeDeliveryMessage({
        subscriptionId: 'wh_0123456789abcdef0123',
        family: 'collateral',
        deliveryId: 'msg_17951688000001a2b3c4d5e6f',
        body: bodyOf({ ...head, snapshot: 'v'.repeat(64), previousSnapshot: 'v'.repeat(64) }, part, 1, parts.length),
      });
      expect(Buffer.byteLength(message)).toBeLessThanOrEqual(MESSAGE_MAX_BYTES);
      expect(part.reduce((n, e) => n + e.length + 1, 0)).toBeLessThanOrEqual(PART_EVENTS_MAX_BYTES);
    }
  });

  it('cuts events into parts of at most 100, in order', () => {
    const events = Array.from({ length: 2 * EVENTS_PER_PART + 1 }, (_, i) => `{"offer_id":${i}}`);
    const parts = partsOf(events.map(sized));
    expect(parts.map((p) => p.length)).toEqual([100, 100, 1]);
    const body = JSON.parse(bodyOf(head, parts[2], 3, parts.length));
    expect(body).toEqual({
      type: 'offers.events',
      subscription: 'wh_0',
      family: 'earn',
      snapshot: 'b',
      previous_snapshot: 'a',
      refreshed_at: 'T',
      part: 3,
      parts: 3,
      events: [{ offer_id: 200 }],
    });
  });

  it('writes an event with the family names: apy where it has one, its flag by name', () => {
    const event = {
      type: 'offer.changed' as const,
      offerId: 12,
      reasons: ['availability' as const],
      apy: { from: null, to: null },
      flag: { from: true, to: false },
    };
    expect(JSON.parse(eventJson('collateral', event, '{"id":12}'))).toEqual({
      type: 'offer.changed',
      offer_id: 12,
      reasons: ['availability'],
      is_active: { from: true, to: false },
      offer: { id: 12 },
    });
    expect(JSON.parse(eventJson('earn', event, '{"id":12}'))).toHaveProperty('available', { from: true, to: false });
    expect(JSON.parse(eventJson('earn', event, '{"id":12}'))).toHaveProperty('apy', { from: null, to: null });
  });
});
