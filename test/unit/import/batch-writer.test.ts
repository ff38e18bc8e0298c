import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { putItems } from '../../../shared/repositories/batch-writer';

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
