/**
 * Per-key usage counters: one item per key and calendar month (UTC) holds the month's count and
 * the count of the key's latest minute, so one request is one conditional UpdateItem that takes
 * both units at once, or neither (docs/adr/0008-one-counter-item-per-key-and-month.md). The
 * conditions refuse to go past either limit, so no concurrency can push a key over its budget.
 * Items expire through TTL a week after their month.
 *
 * The write that takes a unit differs between the first request of a minute (it resets the
 * minute's count) and the others (they add to it); an update expression cannot choose, so the
 * caller says which is likely (`sameMinute`). A wrong guess, a refusal or a concurrent writer
 * fails the write's condition; the store then looks at the item (returned with the failure by
 * DynamoDB, read strongly consistent where it is not) and writes what that state calls for.
 * The stored minute only moves forward: a request whose clock is behind it is counted in it, and
 * the outcome names the minute counted, which its answer's headers then name (CONTRACT §6).
 */

import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { QUOTA_ATTRIBUTES, quotaKey } from '../data/keys';
import { TTL_ATTRIBUTE } from '../data/table';
import { isConditionFailure } from '../platform/dynamodb';
import {
  decodeQuotaCounter,
  decodeQuotaCounterWire,
  decodeWrittenQuotaCounter,
  type KeyLimits,
  type QuotaCounter,
} from './account-items';

/** The windows of one charge, as the domain defines them (shared/domain/quota.ts). */
export interface ChargeWindows {
  /** The UTC minute, `yyyymmddhhmm` as a number (`202611221043`). */
  minute: number;
  /** The calendar month, `202611`. */
  month: string;
  /** Unix second at which the next month starts. */
  monthResetAt: number;
}

/**
 * What one charge did: both units taken, or refused by a budget (a monthly refusal keeps its minute
 * unit). `minute` is the window the request was counted in, or refused by: the request's own, or a
 * later one that another instance, its clock ahead, had already started (the usage headers name it).
 */
export type ChargeOutcome =
  | { admitted: true; minute: number; minuteCount: number; monthCount: number }
  | { admitted: false; refusedBy: 'minute'; minute: number; monthCount: number }
  | { admitted: false; refusedBy: 'month'; minute: number; minuteCount: number };

/** How long a counter item outlives its month before TTL removes it. */
const GRACE_SECONDS = 7 * 86_400;

/** Attempts before a charge gives up on a counter that other writers keep changing (fails closed). */
const MAX_ATTEMPTS = 8;

/** Errors DynamoDB returns before applying a write: retrying them cannot charge twice. */
const NOT_APPLIED = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);
const RETRIES = [20, 60];

async function retryNotApplied<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= RETRIES.length || !NOT_APPLIED.has((error as Error).name)) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRIES[attempt]));
    }
  }
}

/**
 * One write: take both units (`both`) or the minute's alone (`minute`, the month being spent), in
 * the stored minute (`same`) or starting `minute` (`new`, which must be later than the stored one).
 */
interface Write {
  take: 'both' | 'minute';
  minuteIs: 'same' | 'new';
  minute: number;
}

/** What the stored state calls for, or the refusal it already is. */
function nextWrite(state: QuotaCounter, minute: number, limits: KeyLimits): Write | ChargeOutcome {
  // A stored minute later than ours (another instance's clock is ahead) is the current minute.
  const current = Math.max(minute, state.minute ?? 0);
  const minuteIs = state.minute === current ? 'same' : 'new';
  const minuteCount = minuteIs === 'same' ? state.minuteCount : 0;
  if (minuteCount >= limits.perMinute)
    return { admitted: false, refusedBy: 'minute', minute: current, monthCount: state.monthCount };
  return { take: state.monthCount >= limits.perMonth ? 'minute' : 'both', minuteIs, minute: current };
}

const NAMES = {
  '#month': QUOTA_ATTRIBUTES.monthCount,
  '#minute': QUOTA_ATTRIBUTES.minute,
  '#minuteCount': QUOTA_ATTRIBUTES.minuteCount,
  '#ttl': TTL_ATTRIBUTE,
};

/** The update, condition, names and values of a write: each names exactly what its expressions use. */
function expressionOf(write: Write, limits: KeyLimits, ttl: number) {
  const minuteUpdate =
    write.minuteIs === 'same' ? 'ADD #minuteCount :one' : 'SET #minute = :minute, #minuteCount = :one';
  const minuteCondition =
    write.minuteIs === 'same'
      ? '#minute = :minute AND #minuteCount < :perMinute'
      : '(attribute_not_exists(#minute) OR #minute < :minute)';
  const minuteValues: Record<string, number> = {
    ':one': 1,
    ':minute': write.minute,
    ...(write.minuteIs === 'same' ? { ':perMinute': limits.perMinute } : {}),
  };
  if (write.take === 'minute') {
    const names = { '#minute': NAMES['#minute'], '#minuteCount': NAMES['#minuteCount'] };
    return { update: minuteUpdate, condition: minuteCondition, names, values: minuteValues };
  }
  // One SET and one ADD clause each: DynamoDB allows every clause keyword once.
  const update =
    write.minuteIs === 'same'
      ? 'ADD #minuteCount :one, #month :one SET #ttl = if_not_exists(#ttl, :ttl)'
      : 'SET #minute = :minute, #minuteCount = :one, #ttl = if_not_exists(#ttl, :ttl) ADD #month :one';
  return {
    update,
    condition: `${minuteCondition} AND (attribute_not_exists(#month) OR #month < :perMonth)`,
    names: NAMES,
    values: { ...minuteValues, ':perMonth': limits.perMonth, ':ttl': ttl },
  };
}

export class QuotaStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Charge one request: both units, or a refusal. `sameMinute`: the key was charged earlier in
   * this minute, as far as the caller knows (a wrong guess costs one more write, never a wrong
   * count). Other failures throw.
   */
  async charge(keyId: string, windows: ChargeWindows, limits: KeyLimits, sameMinute: boolean): Promise<ChargeOutcome> {
    const key = quotaKey(keyId, windows.month);
    let write: Write = { take: 'both', minuteIs: sameMinute ? 'same' : 'new', minute: windows.minute };
    for (let attempt = 1; ; attempt++) {
      try {
        // What the write returns holds all three counts, or the counter is corrupt (CorruptDataError).
        const state = decodeWrittenQuotaCounter(await this.write(key, write, windows, limits));
        // The condition held, so the stored minute is the one this write named.
        if (write.take === 'minute')
          return { admitted: false, refusedBy: 'month', minute: write.minute, minuteCount: state.minuteCount };
        return { admitted: true, minute: write.minute, minuteCount: state.minuteCount, monthCount: state.monthCount };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        if (attempt >= MAX_ATTEMPTS)
          throw new Error(`quota: the counter of ${keyId} kept changing over ${MAX_ATTEMPTS} attempts`);
        // DynamoDB returns the item that failed the condition; without it (an absent item, or an
        // implementation that does not return it), read it. Either may be absent or hold only the
        // month's count; a malformed one throws (CorruptDataError).
        const state = error.Item ? decodeQuotaCounterWire(error.Item) : decodeQuotaCounter(await this.read(key));
        const next = nextWrite(state, windows.minute, limits);
        if (!('take' in next)) return next;
        write = next;
      }
    }
  }

  private async write(key: ReturnType<typeof quotaKey>, write: Write, windows: ChargeWindows, limits: KeyLimits) {
    const expression = expressionOf(write, limits, windows.monthResetAt + GRACE_SECONDS);
    const out = await retryNotApplied(() =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: expression.update,
          ConditionExpression: expression.condition,
          ExpressionAttributeNames: expression.names,
          ExpressionAttributeValues: expression.values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    return out.Attributes;
  }

  private async read(key: ReturnType<typeof quotaKey>): Promise<Record<string, unknown> | undefined> {
    const out = await retryNotApplied(() =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true })),
    );
    return out.Item;
  }
}
