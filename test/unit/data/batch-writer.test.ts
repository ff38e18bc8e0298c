import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { putItems } from '../../../shared/data/batch-writer';

const ddb = mockClient(DynamoDBDocumentClient);
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const items = Array.from({ length: 60 }, (_, i) => ({ PK: `P${i}`, SK: 'S' }));

beforeEach(() => ddb.reset());

it('writes in batches of 25 and retries unprocessed items with backoff', async () => {
  let first = true;
  ddb.on(BatchWriteCommand).callsFake((input) => {
    const requests = input.RequestItems.t;
    if (first) {
      first = false;
      return { UnprocessedItems: { t: requests.slice(0, 3) } };
    }
    return { UnprocessedItems: {} };
  });
  const sleeps: number[] = [];
  const progress: number[] = [];

  await putItems(items, {
    client,
    tableName: 't',
    concurrency: 1,
    sleep: async (ms) => void sleeps.push(ms),
    onProgress: (done) => progress.push(done),
  });

  const sizes = ddb.commandCalls(BatchWriteCommand).map((c) => c.args[0].input.RequestItems!.t.length);
  expect(sizes).toEqual([25, 3, 25, 10]);
  expect(sleeps).toHaveLength(1);
  expect(progress).toEqual([25, 50, 60]);
});

it('gives up after its attempts with a clear error', async () => {
  ddb.on(BatchWriteCommand).callsFake((input) => ({ UnprocessedItems: { t: input.RequestItems.t } }));
  await expect(
    putItems(items.slice(0, 2), { client, tableName: 't', maxAttempts: 3, sleep: async () => undefined }),
  ).rejects.toThrow(/2 item\(s\) still unprocessed after 3 attempts/);
  expect(ddb.commandCalls(BatchWriteCommand)).toHaveLength(3);
});

it('after a batch fails, starts no other batch and rejects only once every batch in flight has settled', async () => {
  // 8 batches of 25, 2 in flight: batch 2 fails while batch 1 is still being written.
  const many = Array.from({ length: 200 }, (_, i) => ({ PK: `P${i}`, SK: 'S' }));
  const events: string[] = [];
  let release: () => void = () => undefined;
  const slow = new Promise<void>((resolve) => {
    release = resolve;
  });
  let call = 0;
  ddb.on(BatchWriteCommand).callsFake(async () => {
    const n = ++call;
    events.push(`start ${n}`);
    if (n === 1) {
      await slow;
      events.push('end 1');
      return { UnprocessedItems: {} };
    }
    events.push(`fail ${n}`);
    setTimeout(release, 10);
    throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
  });
  const fenced: number[] = [];
  await expect(
    putItems(many, {
      client,
      tableName: 't',
      concurrency: 2,
      maxAttempts: 1,
      beforeBatch: async () => void fenced.push(call),
    }),
  ).rejects.toThrow(/ECONNRESET/);
  events.push('rejected');
  expect(events).toEqual(['start 1', 'start 2', 'fail 2', 'end 1', 'rejected']);
  expect(call).toBe(2);
  expect(fenced).toHaveLength(2); // the fence before each batch started, and only those
});
