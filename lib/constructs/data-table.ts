/**
 * The single table, built from shared/table.ts (the same definition the local stack creates in
 * dynalite), with a least-privilege way to bind it to a function: serving functions read anything
 * and write only quota counters; the usage function touches only quota counters; the authorizer
 * reads only keys and users.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { KEY_PREFIX, QUOTA_PREFIX, USER_PREFIX } from '../../shared/keys';
import { INDEXES, TABLE_PARTITION_KEY, TABLE_SORT_KEY, TTL_ATTRIBUTE, type KeyType } from '../../shared/table';

export interface DataTableProps {
  removalPolicy: RemovalPolicy;
  deletionProtection: boolean;
}

const attributeType = (type: KeyType): dynamodb.AttributeType =>
  type === 'N' ? dynamodb.AttributeType.NUMBER : dynamodb.AttributeType.STRING;

/** The actions a serving function reads with; never a write. */
export const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'];

export class DataTable extends Construct {
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: DataTableProps) {
    super(scope, id);
    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: { name: TABLE_PARTITION_KEY.name, type: attributeType(TABLE_PARTITION_KEY.type) },
      sortKey: { name: TABLE_SORT_KEY.name, type: attributeType(TABLE_SORT_KEY.type) },
      billing: dynamodb.Billing.onDemand(),
      encryption: dynamodb.TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
      globalSecondaryIndexes: INDEXES.map((index) => ({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey.name, type: attributeType(index.partitionKey.type) },
        sortKey: { name: index.sortKey.name, type: attributeType(index.sortKey.type) },
        projectionType: dynamodb.ProjectionType.ALL,
      })),
    });
  }

  get tableName(): string {
    return this.table.tableName;
  }

  /**
   * What a family function needs: reads on the table and its indexes, and UpdateItem only on
   * quota counters (partition keys starting with QUOTA#). No Put, Delete or batch write.
   */
  grantServe(grantee: iam.IGrantable): void {
    this.grantStatement(grantee, READ_ACTIONS, [this.table.tableArn, `${this.table.tableArn}/index/*`]);
    this.grantStatement(grantee, ['dynamodb:UpdateItem'], [this.table.tableArn], [`${QUOTA_PREFIX}*`]);
  }

  /**
   * What the usage function needs: the quota counters only. UpdateItem takes a unit; GetItem reads
   * a count (a key expected to be refused, shared/domain/quota.ts). Nothing of the served data.
   */
  grantCount(grantee: iam.IGrantable): void {
    this.grantStatement(grantee, ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [this.table.tableArn], [`${QUOTA_PREFIX}*`]);
  }

  /** What the authorizer needs: GetItem on key and user items, nothing else. */
  grantAuthorize(grantee: iam.IGrantable): void {
    this.grantStatement(grantee, ['dynamodb:GetItem'], [this.table.tableArn], [`${KEY_PREFIX}*`, `${USER_PREFIX}*`]);
  }

  private grantStatement(grantee: iam.IGrantable, actions: string[], resourceArns: string[], leadingKeys?: string[]): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions,
      resourceArns,
      conditions: leadingKeys && { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeys } },
    });
  }
}
