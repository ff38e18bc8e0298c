/**
 * The bench's counting client (tools/bench/write-units.ts) on the embedded DynamoDB: it charges
 * each write by the items really stored before and after it (a deletion by the item deleted, with
 * its index entries), and counts what reads return, not its own look-ups.
 */
import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type EmbeddedDynamo, ensureTable, startEmbeddedDynamo } from '../../local/embedded-dynamodb';
import { countingClient, type IndexShape, itemSize, type WriteCounts } from '../../tools/bench/write-units';

/** The five GSIs of the positioned layout (before ADR 0009), whose entries the baseline charged. */
const POSITIONED: IndexShape[] = ['GSI1', 'GSI2', 'GSI3', 'GSI4', 'GSI5'].map((name) => ({
  name,
  keys: ['GSIPK', `${name}SK`],
}));

const TABLE = 'bench-counting';
let dynamo: EmbeddedDynamo;
let client: DynamoDBDocumentClient;
let counts: WriteCounts;
let reset: () => void;

/** An item of `bytes` bytes, in all five indexes if `indexed`. */
function itemOf(sk: string, bytes: number, indexed: boolean): Record<string, unknown> {
  const keys = {
    PK: 'p',
    SK: sk,
    ...(indexed ? { GSIPK: 'g', GSI1SK: 1, GSI2SK: 2, GSI3SK: 3, GSI4SK: 4, GSI5SK: 'x' } : {}),
  };
  return { ...keys, pad: 'x'.repeat(bytes - itemSize(keys) - 3) };
}

beforeAll(async () => {
  dynamo = await startEmbeddedDynamo();
  await ensureTable(dynamo.endpoint, TABLE);
  ({ client, counts, reset } = countingClient(dynamo.endpoint, POSITIONED));
});

afterAll(async () => {
  client.destroy();
  await dynamo.close();
});

beforeEach(() => reset());

it('charges a deletion by the size of the item deleted and its index entries, and 1 for a key with no item', async () => {
  await client.send(new PutCommand({ TableName: TABLE, Item: itemOf('big', 2500, true) }));
  await client.send(new PutCommand({ TableName: TABLE, Item: itemOf('small', 300, false) }));
  expect(counts).toMatchObject({ itemsWritten: 2, writeUnits: 3 + 5 * 3 + 1, deleteUnits: 0 });

  reset();
  const keys = ['big', 'small', 'absent'].map((SK) => ({ DeleteRequest: { Key: { PK: 'p', SK } } }));
  await client.send(new BatchWriteCommand({ RequestItems: { [TABLE]: keys } }));
  expect(counts).toMatchObject({ itemsDeleted: 3, deleteUnits: 3 + 5 * 3 + 1 + 1, writeUnits: 0, itemsRead: 0 });
});

it('charges an update by the larger of the item before and after, read back from the table', async () => {
  await client.send(new PutCommand({ TableName: TABLE, Item: itemOf('pointer', 500, false) }));
  reset();
  await client.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: { PK: 'p', SK: 'pointer' },
      UpdateExpression: 'SET more = :more',
      ExpressionAttributeValues: { ':more': 'y'.repeat(2000) },
    }),
  );
  expect(counts).toMatchObject({ itemsWritten: 1, writeUnits: 3, itemsRead: 0 });
});

it('charges a write refused by its condition for the item it found, and lets the error through', async () => {
  await client.send(new PutCommand({ TableName: TABLE, Item: itemOf('held', 1500, false) }));
  reset();
  const refused = client.send(
    new PutCommand({
      TableName: TABLE,
      Item: itemOf('held', 100, false),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  await expect(refused).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
  expect(counts).toMatchObject({ itemsWritten: 0, writeUnits: 2 });
});

it('counts the items reads return and their read units, not its own look-ups', async () => {
  await client.send(new PutCommand({ TableName: TABLE, Item: itemOf('r1', 5000, false) }));
  await client.send(new PutCommand({ TableName: TABLE, Item: itemOf('r2', 100, false) }));
  reset();
  await client.send(new GetCommand({ TableName: TABLE, Key: { PK: 'p', SK: 'r1' }, ConsistentRead: true }));
  await client.send(
    new QueryCommand({
      TableName: TABLE,
      KeyConditionExpression: 'PK = :p AND begins_with(SK, :r)',
      ExpressionAttributeValues: { ':p': 'p', ':r': 'r' },
    }),
  );
  // GetItem of 5,000 bytes, consistent: 2 units; a Query of 5,100 bytes, eventually consistent: 1.
  expect(counts).toMatchObject({ itemsRead: 3, readUnits: 3 });
});
