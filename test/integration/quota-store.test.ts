/**
 * The counter item of a key and month on the embedded DynamoDB (shared/accounts/quota-store.ts):
 * one write per charge when the guess of the minute is right, the item's state deciding when it is
 * not, refusals that take nothing (minute) or only the minute's unit (month), and the items it meets
 * that it did not write (a clock behind, an item from before the minute moved onto it, a corrupt one).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type ChargeWindows, QuotaStore } from '../../shared/accounts/quota-store';
import { QUOTA_ATTRIBUTES, quotaKey } from '../../shared/data/keys';
import { CorruptDataError } from '../../shared/platform/errors';
import { startTestTable, type TestTable } from '../helpers/embedded';
import { injectFaults } from '../helpers/faults';

let table: TestTable;
let store: QuotaStore;
let calls: string[];
let probe: { remove: () => void };

beforeAll(async () => {
  table = await startTestTable();
  store = new QuotaStore(table.client, table.tableName);
});
afterAll(() => table.close());
beforeEach(() => {
  calls = [];
  probe = injectFaults([table.client], (call) => void calls.push(call.command.replace(/Command$/, '')));
});
afterEach(() => probe.remove());

const MONTH_RESET = Date.parse('2026-12-01T00:00:00.000Z') / 1000;
const at = (minute: number): ChargeWindows => ({ minute, month: '202611', monthResetAt: MONTH_RESET });
const LIMITS = { perMinute: 3, perMonth: 100 };

async function stored(keyId: string): Promise<Record<string, unknown> | undefined> {
  return (await table.client.send(new GetCommand({ TableName: table.tableName, Key: quotaKey(keyId, '202611') }))).Item;
}

it('takes both units in one write when the guess is right, and starts a minute over in the next', async () => {
  expect(await store.charge('k-right', at(202611201000), LIMITS, false)).toEqual({
    admitted: true,
    minute: 202611201000,
    minuteCount: 1,
    monthCount: 1,
  });
  expect(await store.charge('k-right', at(202611201000), LIMITS, true)).toEqual({
    admitted: true,
    minute: 202611201000,
    minuteCount: 2,
    monthCount: 2,
  });
  expect(await store.charge('k-right', at(202611201001), LIMITS, false)).toEqual({
    admitted: true,
    minute: 202611201001,
    minuteCount: 1,
    monthCount: 3,
  });
  expect(calls).toEqual(['UpdateItem', 'UpdateItem', 'UpdateItem']);
  expect(await stored('k-right')).toMatchObject({
    [QUOTA_ATTRIBUTES.monthCount]: 3,
    [QUOTA_ATTRIBUTES.minute]: 202611201001,
    [QUOTA_ATTRIBUTES.minuteCount]: 1,
    expiresAt: MONTH_RESET + 7 * 86_400,
  });
});

it('recovers from a wrong guess either way: the item decides the second write', async () => {
  // "Same minute" on a key never charged: the condition fails, the item is read, a new minute is written.
  expect(await store.charge('k-wrong', at(202611201000), LIMITS, true)).toEqual({
    admitted: true,
    minute: 202611201000,
    minuteCount: 1,
    monthCount: 1,
  });
  // "New minute" on a minute already charged (by another instance): added to it, not reset.
  expect(await store.charge('k-wrong', at(202611201000), LIMITS, false)).toEqual({
    admitted: true,
    minute: 202611201000,
    minuteCount: 2,
    monthCount: 2,
  });
  expect(calls).toEqual(['UpdateItem', 'GetItem', 'UpdateItem', 'UpdateItem', 'GetItem', 'UpdateItem']);
});

it('refuses per minute without taking anything', async () => {
  for (let i = 0; i < 3; i++) await store.charge('k-minute', at(202611201000), LIMITS, i > 0);
  expect(await store.charge('k-minute', at(202611201000), LIMITS, true)).toEqual({
    admitted: false,
    refusedBy: 'minute',
    minute: 202611201000,
    monthCount: 3,
  });
  expect(await stored('k-minute')).toMatchObject({
    [QUOTA_ATTRIBUTES.monthCount]: 3,
    [QUOTA_ATTRIBUTES.minuteCount]: 3,
  });
});

it('refuses per month, keeping the minute unit, in the same minute and in a new one', async () => {
  const limits = { perMinute: 10, perMonth: 2 };
  await store.charge('k-month', at(202611301158), limits, false);
  await store.charge('k-month', at(202611301158), limits, true);
  expect(await store.charge('k-month', at(202611301158), limits, true)).toEqual({
    admitted: false,
    refusedBy: 'month',
    minute: 202611301158,
    minuteCount: 3,
  });
  expect(await store.charge('k-month', at(202611301159), limits, false)).toEqual({
    admitted: false,
    refusedBy: 'month',
    minute: 202611301159,
    minuteCount: 1,
  });
  expect(await stored('k-month')).toMatchObject({
    [QUOTA_ATTRIBUTES.monthCount]: 2,
    [QUOTA_ATTRIBUTES.minute]: 202611301159,
    [QUOTA_ATTRIBUTES.minuteCount]: 1,
  });
});

it('counts a request whose clock is behind in the later minute another instance stored, and says so', async () => {
  await store.charge('k-skew', at(202611201001), LIMITS, false);
  expect(await store.charge('k-skew', at(202611201000), LIMITS, false)).toEqual({
    admitted: true,
    minute: 202611201001,
    minuteCount: 2,
    monthCount: 2,
  });
  expect(await stored('k-skew')).toMatchObject({ [QUOTA_ATTRIBUTES.minute]: 202611201001 });
});

it('refuses a request whose clock is behind by the later minute it would have been counted in', async () => {
  for (let i = 0; i < 3; i++) await store.charge('k-skew-spent', at(202611201001), LIMITS, i > 0);
  expect(await store.charge('k-skew-spent', at(202611201000), LIMITS, true)).toEqual({
    admitted: false,
    refusedBy: 'minute',
    minute: 202611201001,
    monthCount: 3,
  });
});

it('continues the month of an item written before the minute moved onto it', async () => {
  await table.client.send(
    new PutCommand({
      TableName: table.tableName,
      Item: { ...quotaKey('k-old', '202611'), [QUOTA_ATTRIBUTES.monthCount]: 41 },
    }),
  );
  expect(await store.charge('k-old', at(202611201000), LIMITS, true)).toEqual({
    admitted: true,
    minute: 202611201000,
    minuteCount: 1,
    monthCount: 42,
  });
});

it('refuses a corrupt item as corrupt data', async () => {
  await table.client.send(
    new PutCommand({
      TableName: table.tableName,
      Item: { ...quotaKey('k-corrupt', '202611'), [QUOTA_ATTRIBUTES.monthCount]: 'many' },
    }),
  );
  await expect(store.charge('k-corrupt', at(202611201000), LIMITS, false)).rejects.toBeInstanceOf(CorruptDataError);
});

it('gives up, failing the charge, on a counter whose condition keeps failing', async () => {
  const always = injectFaults([table.client], (call) =>
    call.command === 'UpdateItemCommand'
      ? new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} })
      : undefined,
  );
  try {
    await expect(store.charge('k-busy', at(202611201000), LIMITS, false)).rejects.toThrow(
      /kept changing over 8 attempts/,
    );
  } finally {
    always.remove();
  }
  expect(calls.filter((c) => c === 'UpdateItem')).toHaveLength(8);
});
