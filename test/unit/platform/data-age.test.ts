/**
 * The data age of each family (shared/platform/data-age.ts) from the pointer's publication
 * times, and the EMF lines the freshness function writes from it, through its factory with the
 * pointer read on a mocked DynamoDB.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { freshnessHandler } from '../../../functions/freshness/freshness-handler';
import { pointerKey } from '../../../shared/data/keys';
import { PointerStore } from '../../../shared/data/pointer-store';
import { dataAgeDocuments, dataAgeSeconds } from '../../../shared/platform/data-age';
import { setLogSink } from '../../../shared/platform/logger';
import { DATA_AGE_METRIC, FAMILY_DIMENSION, METRICS_NAMESPACE } from '../../../shared/platform/metric-names';

const NOW = new Date('2026-11-20T10:00:00.000Z');

describe('dataAgeSeconds', () => {
  it('is now minus each family’s publication, in whole seconds', () => {
    const ages = dataAgeSeconds(
      {
        families: {
          exchanges: { publishedAt: '2026-11-20T09:00:00.000Z' },
          earn_offers: { publishedAt: '2026-11-20T09:59:59.400Z' },
          earn_history: { publishedAt: '2026-11-18T10:00:00Z' },
        },
      },
      NOW,
    );

    expect(ages).toEqual({ exchanges: 3600, earn_offers: 0, earn_history: 172_800 });
  });

  it('is 0, never negative, for a publication ahead of the clock', () => {
    expect(dataAgeSeconds({ families: { wallets: { publishedAt: '2026-11-20T10:05:00.000Z' } } }, NOW)).toEqual({
      wallets: 0,
    });
  });

  it('leaves out a family whose publication time is not a time, so its alarm sees no data', () => {
    const pointer = {
      families: {
        wallets: { publishedAt: 'yesterday' },
        currencies: {} as { publishedAt: string },
        protocols: { publishedAt: '2026-11-20T09:59:00Z' },
      },
    };

    expect(dataAgeSeconds(pointer, NOW)).toEqual({ protocols: 60 });
  });

  it('has no age before anything is published', () => {
    expect(dataAgeSeconds({ families: {} }, NOW)).toEqual({});
  });
});

describe('dataAgeDocuments', () => {
  it('writes one EMF document per family, DataAgeSeconds in seconds under the Family dimension', () => {
    const [doc] = dataAgeDocuments({ exchanges: 3600 }, NOW.getTime());

    expect(doc).toEqual({
      _aws: {
        Timestamp: NOW.getTime(),
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [[FAMILY_DIMENSION]],
            Metrics: [{ Name: DATA_AGE_METRIC, Unit: 'Seconds' }],
          },
        ],
      },
      [FAMILY_DIMENSION]: 'exchanges',
      [DATA_AGE_METRIC]: 3600,
    });
  });
});

describe('the freshness function', () => {
  const ddb = mockClient(DynamoDBDocumentClient);
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));
  const report = freshnessHandler({ pointers: new PointerStore(client, 'unit-table'), clock: () => NOW });
  let lines: Record<string, unknown>[];

  beforeEach(() => {
    ddb.reset();
    lines = [];
    setLogSink((line) => lines.push(JSON.parse(line)));
  });

  afterAll(() => setLogSink(() => undefined));

  it('reads only the pointer’s families and writes the age of each', async () => {
    ddb.on(GetCommand).resolves({
      Item: {
        families: {
          exchanges: { publishedAt: '2026-11-20T09:50:00.000Z', count: 7 },
          borrow_offers: { publishedAt: '2026-11-19T10:00:00.000Z', count: 3 },
        },
      },
    });

    const result = await report();

    expect(result.ages).toEqual({ exchanges: 600, borrow_offers: 86_400 });
    const [get] = ddb.commandCalls(GetCommand);
    expect(get.args[0].input).toMatchObject({ TableName: 'unit-table', Key: pointerKey() });
    // The projection names `families` and nothing else.
    const names = Object.values(get.args[0].input.ExpressionAttributeNames ?? {});
    expect(names).toEqual(['families']);
    const metrics = lines
      .filter((line) => '_aws' in line)
      .map((line) => [line[FAMILY_DIMENSION], line[DATA_AGE_METRIC]]);
    expect(metrics).toEqual([
      ['exchanges', 600],
      ['borrow_offers', 86_400],
    ]);
  });

  it('writes no metric before the first import (the alarms treat missing data as breaching)', async () => {
    ddb.on(GetCommand).resolves({});

    expect(await report()).toEqual({ ages: {} });
    expect(lines.filter((line) => '_aws' in line)).toEqual([]);
  });

  it('fails when the pointer cannot be read, writing no metric', async () => {
    ddb.on(GetCommand).rejects(new Error('ProvisionedThroughputExceededException'));

    await expect(report()).rejects.toThrow('ProvisionedThroughputExceededException');
    expect(lines.filter((line) => '_aws' in line)).toEqual([]);
  });
});
