/**
 * The DynamoDB accounting: round-trip depth on synthetic call lists, and a real document client
 * against the embedded DynamoDB (aws-sdk-client-mock replaces `send`, so it never runs the
 * middleware stack): inside a scope every call asks for and reports its consumed capacity,
 * concurrent scopes stay apart, nested scopes report to their parent, outside a scope nothing
 * changes.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { type EmbeddedDynamo, ensureTable, startEmbeddedDynamo } from '../../local/embedded-dynamodb';
import {
  callDepths,
  currentAccounting,
  type DynamoCall,
  enterRequestAccounting,
  roundTrips,
  summarize,
  withRequestAccounting,
} from '../../shared/platform/dynamo-accounting';
import { createDocumentClient } from '../../shared/platform/dynamodb';

const call = (start: number, end: number): Pick<DynamoCall, 'start' | 'end'> => ({ start, end });

describe('roundTrips', () => {
  it('counts calls that overlap in time as one round trip', () => {
    expect(roundTrips([call(0, 10), call(0, 12), call(1, 9), call(2, 11)])).toBe(1);
  });

  it('counts n calls each started after the previous one ended as n round trips', () => {
    expect(roundTrips([call(0, 5), call(6, 10), call(11, 15), call(16, 20)])).toBe(4);
  });

  it('takes the longest chain when parallel and sequential calls mix', () => {
    // a ∥ b; then c ∥ d, both after a and b; then e, after d but while c is still running.
    const calls = [call(0, 10), call(0, 10), call(11, 20), call(11, 15), call(16, 25)];
    expect(roundTrips(calls)).toBe(3);
    expect(callDepths(calls)).toEqual([1, 1, 2, 2, 3]);
  });

  it('does not chain a call that started before another one ended', () => {
    expect(roundTrips([call(0, 10), call(9, 20)])).toBe(1);
  });

  it('is 0 without calls and order-independent', () => {
    expect(roundTrips([])).toBe(0);
    expect(roundTrips([call(11, 15), call(0, 10), call(16, 18)])).toBe(3);
  });
});

it('sums capacity and counts calls', () => {
  const calls: DynamoCall[] = [
    { command: 'Query', start: 0, end: 5, readCapacity: 1.5, writeCapacity: 0 },
    { command: 'UpdateItem', start: 0, end: 5, readCapacity: 0, writeCapacity: 1 },
    { command: 'GetItem', start: 6, end: 8, readCapacity: 0.5, writeCapacity: 0 },
  ];
  expect(summarize(calls)).toEqual({
    calls: 3,
    roundTrips: 2,
    readCapacity: 2,
    writeCapacity: 1,
    cacheHits: 0,
    cacheMisses: 0,
    cacheBytes: 0,
    indexLoads: 0,
    indexDeltas: 0,
  });
});

describe('on the embedded DynamoDB', () => {
  const TableName = 'accounting-test';
  let dynamo: EmbeddedDynamo;
  let client: DynamoDBDocumentClient;
  /** What the client actually sent, after every initialize middleware. */
  let sent: Record<string, unknown>[] = [];

  beforeAll(async () => {
    dynamo = await startEmbeddedDynamo();
    await ensureTable(dynamo.endpoint, TableName);
    client = createDocumentClient({ endpoint: dynamo.endpoint, requestTimeoutMs: 20_000 });
    client.middlewareStack.add(
      (next) => async (args) => {
        sent.push(args.input as Record<string, unknown>);
        return next(args);
      },
      { step: 'serialize', name: 'captureSentInput', priority: 'high' },
    );
    await client.send(new PutCommand({ TableName, Item: { PK: 'A', SK: 'ITEM', doc: 'x'.repeat(5_000) } }));
    await client.send(new PutCommand({ TableName, Item: { PK: 'A', SK: 'ITEM2', doc: 'y' } }));
  });
  beforeEach(() => {
    sent = [];
  });
  afterAll(async () => {
    client.destroy();
    await dynamo.close();
  });

  it('asks for ReturnConsumedCapacity TOTAL and records command, time and capacity of each call', async () => {
    const { result, accounting } = await withRequestAccounting(async () => {
      const get = await client.send(new GetCommand({ TableName, Key: { PK: 'A', SK: 'ITEM' } }));
      const query = await client.send(
        new QueryCommand({ TableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'A' } }),
      );
      const update = await client.send(
        new UpdateCommand({
          TableName,
          Key: { PK: 'Q', SK: 'COUNT' },
          UpdateExpression: 'ADD #c :one',
          ExpressionAttributeNames: { '#c': 'count' },
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
      return { get, query, update };
    });

    expect(sent.map((input) => input.ReturnConsumedCapacity)).toEqual(['TOTAL', 'TOTAL', 'TOTAL']);
    expect(result.get.ConsumedCapacity).toBeDefined();
    expect(accounting.calls.map((c) => c.command)).toEqual(['GetItem', 'Query', 'UpdateItem']);
    const [get, query, update] = accounting.calls;
    // Eventually consistent reads: half a unit per started 4 KB (the item is ~5 KB: 2 × 0.5).
    expect(get.readCapacity).toBe(1);
    expect(query.readCapacity).toBe(1);
    expect(update).toMatchObject({ readCapacity: 0, writeCapacity: 1 });
    for (const c of accounting.calls) expect(c.end).toBeGreaterThanOrEqual(c.start);
    expect(accounting.summary()).toEqual({
      calls: 3,
      roundTrips: 3,
      readCapacity: 2,
      writeCapacity: 1,
      cacheHits: 0,
      cacheMisses: 0,
      cacheBytes: 0,
      indexLoads: 0,
      indexDeltas: 0,
    });
  });

  it('counts batch reads and writes, whose capacity comes back per table', async () => {
    const { accounting } = await withRequestAccounting(async () => {
      await client.send(
        new BatchWriteCommand({
          RequestItems: {
            [TableName]: [
              { PutRequest: { Item: { PK: 'B', SK: '1' } } },
              { PutRequest: { Item: { PK: 'B', SK: '2' } } },
            ],
          },
        }),
      );
      await client.send(
        new BatchGetCommand({
          RequestItems: {
            [TableName]: {
              Keys: [
                { PK: 'B', SK: '1' },
                { PK: 'B', SK: '2' },
              ],
            },
          },
        }),
      );
    });
    expect(accounting.calls.map((c) => [c.command, c.readCapacity, c.writeCapacity])).toEqual([
      ['BatchWriteItem', 0, 2],
      ['BatchGetItem', 1, 0],
    ]);
  });

  it('counts parallel calls as one round trip', async () => {
    const { accounting } = await withRequestAccounting(() =>
      Promise.all([1, 2, 3].map(() => client.send(new GetCommand({ TableName, Key: { PK: 'A', SK: 'ITEM2' } })))),
    );
    expect(accounting.summary()).toMatchObject({ calls: 3, roundTrips: 1, readCapacity: 1.5 });
  });

  it('records a refused conditional write as a call with its error', async () => {
    const { accounting } = await withRequestAccounting(() =>
      client
        .send(
          new PutCommand({
            TableName,
            Item: { PK: 'A', SK: 'ITEM2' },
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        )
        .catch((e: Error) => e.name),
    );
    expect(accounting.calls).toEqual([
      expect.objectContaining({ command: 'PutItem', error: 'ConditionalCheckFailedException', writeCapacity: 0 }),
    ]);
  });

  it('keeps concurrent scopes apart', async () => {
    const read = (sk: string, times: number) =>
      withRequestAccounting(async () => {
        for (let i = 0; i < times; i++) await client.send(new GetCommand({ TableName, Key: { PK: 'A', SK: sk } }));
      });
    const [one, two] = await Promise.all([read('ITEM', 1), read('ITEM2', 3)]);
    expect(one.accounting.calls).toHaveLength(1);
    expect(two.accounting.calls).toHaveLength(3);
  });

  it('reports the calls of a nested scope to its parent too', async () => {
    const outer = await withRequestAccounting(async () => {
      await client.send(new GetCommand({ TableName, Key: { PK: 'A', SK: 'ITEM2' } }));
      const inner = await withRequestAccounting(() =>
        client.send(new GetCommand({ TableName, Key: { PK: 'A', SK: 'ITEM' } })),
      );
      return inner.accounting.calls.length;
    });
    expect(outer.result).toBe(1);
    expect(outer.accounting.calls).toHaveLength(2);
  });

  it('changes nothing and records nothing outside a scope', async () => {
    const out = await client.send(new GetCommand({ TableName, Key: { PK: 'A', SK: 'ITEM2' } }));
    expect(sent[0].ReturnConsumedCapacity).toBeUndefined();
    expect(out.ConsumedCapacity).toBeUndefined();
    expect(currentAccounting()).toBeUndefined();
  });

  it('skips a scope entered with enterWith once it is closed', async () => {
    const { accounting: outer } = await withRequestAccounting(async () => {
      const entered = await (async () => {
        const scope = enterRequestAccounting();
        await client.send(new GetCommand({ TableName, Key: { PK: 'A', SK: 'ITEM2' } }));
        scope.close();
        return scope;
      })();
      // The closed scope may still be the store here; calls now go to the open parent only.
      await client.send(new GetCommand({ TableName, Key: { PK: 'A', SK: 'ITEM2' } }));
      expect(entered.calls).toHaveLength(1);
    });
    expect(outer.calls).toHaveLength(2);
  });
});
