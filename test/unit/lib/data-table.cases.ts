import { Match } from 'aws-cdk-lib/assertions';
import { TABLE_PARTITION_KEY, TABLE_SORT_KEY, TTL_ATTRIBUTE } from '../../../shared/data/table';
import { type Fixture, synth, TEST_ALARM_TOPIC } from './app-fixture';

describe('DataTable', () => {
  let dev: Fixture;
  let prod: Fixture;

  beforeAll(() => {
    dev = synth('dev');
    prod = synth('prod');
  });

  it('has the keys of shared/data/table.ts and no secondary index (docs/adr/0009-one-index-per-family-version.md)', () => {
    dev.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: TABLE_PARTITION_KEY.name, KeyType: 'HASH' },
        { AttributeName: TABLE_SORT_KEY.name, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Match.absent(),
      AttributeDefinitions: [
        { AttributeName: 'PK', AttributeType: 'S' },
        { AttributeName: 'SK', AttributeType: 'S' },
      ],
    });
  });

  it('is on-demand, AWS-managed-key encrypted, with TTL and point-in-time recovery', () => {
    dev.template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    dev.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      Replicas: [Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
    });
  });

  it('is destroyed with a dev stack and has no deletion protection there', () => {
    dev.template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    dev.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });

  it('is retained and deletion-protected in prod', () => {
    prod.template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    prod.template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })],
    });
  });

  it('caps on-demand throughput of the table and of every index, as configured', () => {
    const ceilings = (fixture: Fixture) => {
      const [table] = Object.values(fixture.template.findResources('AWS::DynamoDB::GlobalTable'));
      const {
        WriteOnDemandThroughputSettings: write,
        GlobalSecondaryIndexes: indexes,
        Replicas: replicas,
      } = table.Properties;
      return [
        { write: write.MaxWriteRequestUnits, read: replicas[0].ReadOnDemandThroughputSettings.MaxReadRequestUnits },
        ...(indexes ?? []).map((index: any) => ({
          write: index.WriteOnDemandThroughputSettings.MaxWriteRequestUnits,
          read: replicas[0].GlobalSecondaryIndexes.find((r: any) => r.IndexName === index.IndexName)
            .ReadOnDemandThroughputSettings.MaxReadRequestUnits,
        })),
      ];
    };

    expect(ceilings(dev)).toEqual(Array(1).fill({ read: 20_000, write: 10_000 }));
    expect(ceilings(synth('dev', { onDemandCeiling: { maxReadRequestUnits: 300, maxWriteRequestUnits: 40 } }))).toEqual(
      Array(1).fill({ read: 300, write: 40 }),
    );
  });

  it('follows an explicit removal policy and deletion protection over the stage default', () => {
    const { template } = synth('prod', {
      alarmTopicArn: TEST_ALARM_TOPIC,
      removalPolicy: 'destroy',
      deletionProtection: false,
    });

    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })],
    });
  });
});
