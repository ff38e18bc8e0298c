/**
 * The reference APYs of a family, packed (shared/data/webhook-store.ts, docs/adr/0028-webhook-delivery.md):
 * read back as written, only the buckets that changed rewritten, a bucket past an item's size cut into
 * parts and its unneeded parts deleted, a subscription's references dropped when it is removed or
 * enabled again.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type ReferenceSets, referenceBucketOf, WebhookStore } from '../../shared/data/webhook-store';
import { subscriptionItem } from '../../shared/webhooks/manage';
import { validateSubscription } from '../../shared/webhooks/subscription';
import { startTestTable, type TestTable } from '../helpers/embedded';

const CREATED = '2026-11-20T10:00:00.000Z';

let table: TestTable;
let webhooks: WebhookStore;
beforeEach(async () => {
  table = await startTestTable();
  webhooks = new WebhookStore(table.client, table.tableName);
});
afterEach(() => table.close());

const idOf = (n: number) => `wh_${n.toString(16).padStart(20, '0')}`;
/** `count` subscription ids whose references share one bucket. */
function sameBucket(count: number): string[] {
  const bucket = referenceBucketOf(idOf(0));
  const ids: string[] = [];
  for (let n = 0; ids.length < count; n++) if (referenceBucketOf(idOf(n)) === bucket) ids.push(idOf(n));
  return ids;
}
const refsOf = (count: number, apy: string) => new Map(Array.from({ length: count }, (_, i) => [i + 1, apy]));

async function referenceItems(): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await table.client.send(
    new ScanCommand({
      TableName: table.tableName,
      FilterExpression: 'begins_with(PK, :p)',
      ExpressionAttributeValues: { ':p': 'WHREF#' },
    }),
  );
  return Items;
}

describe('packed reference APYs', () => {
  it('reads back what it wrote, cuts a large bucket into parts and deletes the parts it no longer needs', async () => {
    const [a, b] = sameBucket(2);
    const other = idOf(1);
    const empty = await webhooks.references('earn');
    expect(empty.sets.size).toBe(0);
    // Two subscriptions of 15,000 references each (about 180,000 characters each): more than one item holds.
    const big: ReferenceSets = new Map([
      [a, refsOf(15_000, '4.123456')],
      [b, refsOf(15_000, '-0.5')],
      [other, new Map([[7, '3']])],
    ]);
    expect(await webhooks.writeReferences(empty, big)).toBe(referenceBucketOf(other) === referenceBucketOf(a) ? 1 : 2);
    const read = await webhooks.references('earn');
    expect(read.sets).toEqual(big);
    expect(read.parts.get(referenceBucketOf(a))).toBe(2);
    expect(await webhooks.references('borrow')).toEqual({
      family: 'borrow',
      sets: new Map(),
      packed: new Map(),
      parts: new Map(),
    });

    // Unchanged (equal sets, or the book's own as read): nothing written. Shrunk: one part, the other deleted.
    expect(await webhooks.writeReferences(read, new Map(big))).toBe(0);
    expect(await webhooks.writeReferences(read, new Map(read.sets))).toBe(0);
    const small: ReferenceSets = new Map([...big, [a, new Map([[1, '5']])], [b, new Map()]]);
    await webhooks.writeReferences(read, small);
    const after = await webhooks.references('earn');
    expect(after.sets).toEqual(new Map([...small].filter(([, refs]) => refs.size > 0)));
    expect(after.parts.get(referenceBucketOf(a))).toBe(1);
    expect((await referenceItems()).length).toBe(referenceBucketOf(other) === referenceBucketOf(a) ? 1 : 2);
  });

  it("drops a subscription's references when it is removed or enabled again, and no other's", async () => {
    const spec = validateSubscription(
      { url: 'https://hooks.example.com/h', family: 'earn', conditions: { apy_change: '0.5' } },
      'public',
    );
    const [a, b, c, d] = sameBucket(4);
    for (const id of [a, b, c, d])
      await webhooks.create(subscriptionItem(id, 'u1', spec, CREATED), 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', 25);
    const sets: ReferenceSets = new Map([
      [a, new Map([[1, '4']])],
      [b, new Map([[2, '5']])],
      [c, new Map([[3, '6']])],
    ]);
    await webhooks.writeReferences(await webhooks.references('earn'), sets);
    expect(await webhooks.remove('u1', a)).toBe(true);
    expect(await webhooks.enable('u1', b)).toBeDefined();
    // One without references: its bucket's items hold none of it, nothing to drop.
    expect(await webhooks.remove('u1', d)).toBe(true);
    expect((await webhooks.references('earn')).sets).toEqual(new Map([[c, new Map([[3, '6']])]]));
  });
});
