import {
  decodeKeyItem,
  decodeKeyRefItem,
  decodeQuotaCounter,
  decodeQuotaCounterWire,
  decodeUserItem,
  decodeWrittenQuotaCounter,
  encodeKeyItem,
  encodeKeyRefItem,
  encodeUserItem,
  type KeyItem,
  type UserItem,
} from '../../../shared/accounts/account-items';
import { hashKey } from '../../../shared/accounts/key-store';
import { apiKeyKey, QUOTA_ATTRIBUTES, userKey, userKeyRefKey } from '../../../shared/data/keys';
import { KEY_LIMIT_MAX, keyIdForHash } from '../../../shared/platform/account-rules';
import { CorruptDataError } from '../../../shared/platform/errors';

const SECRET = 'test_0123456789abcdefghijklmnopqrstuvwxyzABCD';
const HASH = hashKey(SECRET, 'pepper');
const KEY_ID = keyIdForHash(HASH);
const CREATED = '2026-06-15T12:00:00.000Z';

const key: KeyItem = { keyId: KEY_ID, userId: 'u1', revoked: false, createdAt: CREATED, perMinute: 5, perMonth: 1000 };
const user: UserItem = { userId: 'u1', premium: true, premiumUntil: '2027-01-31T00:00:00.000Z' };
const ref = { keyId: KEY_ID, hash: HASH, createdAt: CREATED };

/** The error a decode throws; it fails the test when there is none. */
function refusal(decode: () => unknown): CorruptDataError {
  try {
    decode();
  } catch (error) {
    expect(error).toBeInstanceOf(CorruptDataError);
    return error as CorruptDataError;
  }
  throw new Error('decoded');
}

describe('the API key item', () => {
  it('round-trips: encoded under the hash of its secret, decoded without its table key', () => {
    const item = encodeKeyItem(HASH, key);

    expect(item).toEqual({ ...apiKeyKey(HASH), ...key });
    expect(decodeKeyItem(item)).toEqual(key);
  });

  it('writes no absent attribute (no limits, no revokedAt)', () => {
    const bare: KeyItem = { keyId: KEY_ID, userId: 'u1', revoked: true, createdAt: CREATED, perMinute: undefined };

    expect(Object.keys(encodeKeyItem(HASH, bare)).sort()).toEqual([
      'PK',
      'SK',
      'createdAt',
      'keyId',
      'revoked',
      'userId',
    ]);
  });

  it('reads a revoked key with the time it was revoked', () => {
    expect(decodeKeyItem({ ...encodeKeyItem(HASH, key), revoked: true, revokedAt: CREATED })).toEqual({
      ...key,
      revoked: true,
      revokedAt: CREATED,
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['`revoked` the string "false"', { revoked: 'false' }, 'revoked'],
    ['`revoked` the number 0', { revoked: 0 }, 'revoked'],
    ['`revoked` missing', { revoked: undefined }, 'revoked'],
    ['no owner', { userId: undefined }, 'userId'],
    ['an empty key id', { keyId: '' }, 'keyId'],
    ['a key id that is not a string', { keyId: 7 }, 'keyId'],
    ['no createdAt', { createdAt: undefined }, 'createdAt'],
    ['`perMinute` a string', { perMinute: '5' }, 'perMinute'],
    ['`perMinute` zero', { perMinute: 0 }, 'perMinute'],
    ['`perMonth` negative', { perMonth: -1 }, 'perMonth'],
    ['`perMonth` a fraction', { perMonth: 1.5 }, 'perMonth'],
    ['`perMonth` beyond the safe integers', { perMonth: 2 ** 53 }, 'perMonth'],
    ['`perMonth` of 16 digits (RateLimit values hold 15)', { perMonth: KEY_LIMIT_MAX + 1 }, 'perMonth'],
    ['`revokedAt` a number', { revokedAt: 1 }, 'revokedAt'],
    // Read as strictly as written (shared/platform/account-rules.ts): what no writer writes fails closed.
    ['a key id of 5 KB', { keyId: `k_${'0'.repeat(5000)}` }, 'keyId'],
    ['a key id with CR/LF', { keyId: `${KEY_ID}\r\nX-Injected: 1` }, 'keyId'],
    ['a key id not of the derived form', { keyId: 'key-1' }, 'keyId'],
    ['an owner id with a line break', { userId: 'u1\n' }, 'userId'],
    ['an owner id of 129 characters', { userId: 'u'.repeat(129) }, 'userId'],
    ['`createdAt` not a timestamp', { createdAt: 'yesterday' }, 'createdAt'],
    ['`revokedAt` not a timestamp', { revokedAt: '9999' }, 'revokedAt'],
  ])('refuses an item with %s, naming the attribute and never the hash', (_case, change, attribute) => {
    const error = refusal(() => decodeKeyItem({ ...encodeKeyItem(HASH, key), ...change }));

    // Named by its key id where it has one (public: an operator finds the item), else by its kind.
    expect(error.message).toMatch(
      !('keyId' in change) ? `the API key item of ${KEY_ID} is malformed` : /an API key item is malformed/,
    );
    expect(error.message).toContain(attribute);
    expect(error.message).not.toContain(HASH);
    expect(error.message).not.toContain(SECRET);
  });

  it('refuses to encode what it could not decode (a limit that is not a positive integer)', () => {
    expect(() => encodeKeyItem(HASH, { ...key, perMinute: 0 })).toThrow(RangeError);
    expect(() => encodeKeyItem(HASH, { ...key, perMinute: 0 })).toThrow(/perMinute/);
  });
});

describe('the user item', () => {
  it('round-trips under its user key', () => {
    const item = encodeUserItem(user);

    expect(item).toEqual({ ...userKey('u1'), ...user });
    expect(decodeUserItem(item)).toEqual(user);
  });

  it("reads every premiumUntil a writer writes: the CLI (toISOString) and an accounts file (the files' timestamp rule)", () => {
    for (const premiumUntil of [
      '2027-01-31T00:00:00.000Z',
      '2027-01-31T00:00:00Z',
      '9999-12-31T23:59:59.999999999+00:00',
    ]) {
      expect(decodeUserItem(encodeUserItem({ ...user, premiumUntil })).premiumUntil).toBe(premiumUntil);
    }
  });

  it('keeps a subscription without end as null, and reads one stored without premiumUntil as null', () => {
    const open = { ...user, premiumUntil: null };

    expect(decodeUserItem(encodeUserItem(open))).toEqual(open);
    expect(decodeUserItem({ ...userKey('u1'), userId: 'u1', premium: false })).toEqual({
      userId: 'u1',
      premium: false,
      premiumUntil: null,
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['`premium` the string "true"', { premium: 'true' }, 'premium'],
    ['`premium` missing', { premium: undefined }, 'premium'],
    ['`premiumUntil` not a date', { premiumUntil: 'soon' }, 'premiumUntil'],
    ['`premiumUntil` a number', { premiumUntil: 1 }, 'premiumUntil'],
    ['no userId', { userId: undefined }, 'userId'],
    // Date.parse reads these; no writer writes them (the files' timestamp rule).
    ['`premiumUntil` "9999"', { premiumUntil: '9999' }, 'premiumUntil'],
    ['`premiumUntil` a day that does not exist', { premiumUntil: '2027-02-30T00:00:00.000Z' }, 'premiumUntil'],
    ['`premiumUntil` with an offset other than UTC', { premiumUntil: '2027-01-31T00:00:00+02:00' }, 'premiumUntil'],
    ['a userId with CR/LF', { userId: 'u1\r\n' }, 'userId'],
  ])('refuses an item with %s', (_case, change, attribute) => {
    const error = refusal(() => decodeUserItem({ ...encodeUserItem(user), ...change }));

    expect(error.message).toMatch(/a user item is malformed/);
    expect(error.message).toContain(attribute);
  });
});

describe("a user's key reference", () => {
  it('round-trips under the user, keyed by the key id', () => {
    const item = encodeKeyRefItem('u1', ref);

    expect(item).toEqual({ ...userKeyRefKey('u1', KEY_ID), ...ref });
    expect(decodeKeyRefItem(item)).toEqual(ref);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['no hash', { hash: undefined }, 'hash'],
    ['a hash that is not 64 hex digits', { hash: `${HASH.slice(1)}X` }, 'hash'],
    ['no key id', { keyId: undefined }, 'keyId'],
    ['createdAt a number', { createdAt: 1 }, 'createdAt'],
    ['a key id with a line break', { keyId: `${KEY_ID}\n` }, 'keyId'],
    ['createdAt not a timestamp', { createdAt: '2026' }, 'createdAt'],
  ])('refuses one with %s, without the hash in the message', (_case, change, attribute) => {
    const error = refusal(() => decodeKeyRefItem({ ...encodeKeyRefItem('u1', ref), ...change }));

    // Named by its key id where it has one (the CLI prints it: an operator finds the item).
    expect(error.message).toMatch(
      !('keyId' in change)
        ? `the user's reference of key ${KEY_ID} is malformed`
        : /a user's key reference is malformed/,
    );
    expect(error.message).toContain(attribute);
    expect(error.message).not.toContain(HASH);
    expect(error.message).not.toContain(HASH.slice(1));
  });
});

describe('the quota counter', () => {
  const { monthCount: MONTH, minute: MINUTE, minuteCount: MINUTE_COUNT } = QUOTA_ATTRIBUTES;
  const full = { [MONTH]: 42, [MINUTE]: 202611201000, [MINUTE_COUNT]: 3, expiresAt: 1 };

  describe('as a successful write returns it', () => {
    it('holds all three counts', () => {
      expect(decodeWrittenQuotaCounter(full)).toEqual({ monthCount: 42, minute: 202611201000, minuteCount: 3 });
    });

    it.each<[string, Record<string, unknown> | undefined]>([
      ['no item', undefined],
      ['no attributes', {}],
      ['only the month count', { [MONTH]: 42 }],
      ['a minute without its count', { [MONTH]: 42, [MINUTE]: 202611201000 }],
      ['a count that is a string', { ...full, [MONTH]: '42' }],
      ['a negative count', { ...full, [MINUTE_COUNT]: -1 }],
    ])('refuses %s', (_case, item) => {
      expect(refusal(() => decodeWrittenQuotaCounter(item)).message).toMatch(/a quota counter is malformed/);
    });
  });

  describe('as a read after a failed condition finds it', () => {
    it('is empty when absent (the first charge of the month)', () => {
      expect(decodeQuotaCounter(undefined)).toEqual({ monthCount: 0, minuteCount: 0 });
    });

    it('may hold only the month count (an item written before the minute moved onto it)', () => {
      expect(decodeQuotaCounter({ [MONTH]: 41 })).toEqual({ monthCount: 41, minuteCount: 0 });
    });

    it('reads all three counts', () => {
      expect(decodeQuotaCounter(full)).toEqual({ monthCount: 42, minute: 202611201000, minuteCount: 3 });
    });

    it.each<[string, Record<string, unknown>]>([
      ['a month count that is a string', { [MONTH]: 'many' }],
      ['a minute without its count', { [MONTH]: 1, [MINUTE]: 202611201000 }],
      ['a minute count that is a fraction', { ...full, [MINUTE_COUNT]: 0.5 }],
    ])('refuses %s', (_case, item) => {
      expect(refusal(() => decodeQuotaCounter(item)).message).toMatch(/a quota counter is malformed/);
    });
  });

  describe('in the wire form of a failed write', () => {
    it('reads the numbers DynamoDB returns as text', () => {
      expect(
        decodeQuotaCounterWire({ [MONTH]: { N: '42' }, [MINUTE]: { N: '202611201000' }, [MINUTE_COUNT]: { N: '3' } }),
      ).toEqual({ monthCount: 42, minute: 202611201000, minuteCount: 3 });
      expect(decodeQuotaCounterWire({ [MONTH]: { N: '7' } })).toEqual({ monthCount: 7, minuteCount: 0 });
    });

    it('refuses a count stored as a string rather than reading it as absent (a month count of 0)', () => {
      expect(refusal(() => decodeQuotaCounterWire({ [MONTH]: { S: 'many' } })).message).toMatch(/count/);
    });
  });
});
