/**
 * The single table, built from shared/data/table.ts (the same definition the local stack creates in
 * dynalite), with a least-privilege way to bind it to a function: serving functions read only the
 * served partitions (shared/data/keys.ts SERVED_PREFIXES) and write only quota counters; the usage
 * function touches only quota counters; the authorizer
 * reads only keys and users; the ingest function imports (never keys, users or counters); the
 * freshness function and the data status (the docs function) read the snapshot pointer.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  KEY_PREFIX,
  pointerKey,
  QUOTA_PREFIX,
  SERVED_PREFIXES,
  UNSERVED_PATTERNS,
  USER_PREFIX,
  WEBHOOK_DELIVERY_PREFIX,
  WEBHOOK_PREFIX,
  WEBHOOK_REFERENCE_PREFIX,
  WEBHOOK_SECRET_PREFIX,
} from '../../shared/data/keys';
import { type KeyType, TABLE_PARTITION_KEY, TABLE_SORT_KEY, TTL_ATTRIBUTE } from '../../shared/data/table';

export interface DataTableProps {
  removalPolicy: RemovalPolicy;
  deletionProtection: boolean;
  /** On-demand throughput ceiling of the table and of each index (request units per second). */
  maxReadRequestUnits: number;
  maxWriteRequestUnits: number;
}

const attributeType = (type: KeyType): dynamodb.AttributeType =>
  type === 'N' ? dynamodb.AttributeType.NUMBER : dynamodb.AttributeType.STRING;

/** The actions a serving function reads with: the pointer and index segments by key, a page's document blocks in batches, history by Query. */
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];

/**
 * What an import does on the table (shared/import/importer.ts): reads the pointer, source records
 * and manifests, batch-reads the history items it may change, writes in batches, deletes retired
 * versions, takes its lease and publishes with conditional writes. No index and no Scan: an import
 * reads neither.
 */
const IMPORT_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
];

/** Partitions an import never touches: keys, users and quota counters (IAM StringLike patterns). */
const NOT_IMPORTED_PATTERNS = [KEY_PREFIX, USER_PREFIX, QUOTA_PREFIX].map((prefix) => `${prefix}*`);

export class DataTable extends Construct {
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: DataTableProps) {
    super(scope, id);
    const ceiling = {
      maxReadRequestUnits: props.maxReadRequestUnits,
      maxWriteRequestUnits: props.maxWriteRequestUnits,
    };
    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: { name: TABLE_PARTITION_KEY.name, type: attributeType(TABLE_PARTITION_KEY.type) },
      sortKey: { name: TABLE_SORT_KEY.name, type: attributeType(TABLE_SORT_KEY.type) },
      // A ceiling on what a flood or a runaway import can spend; beyond it requests are throttled.
      billing: dynamodb.Billing.onDemand(ceiling),
      encryption: dynamodb.TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // Webhook matching reads the snapshot pointer's writes, both images (docs/adr/0028-webhook-delivery.md).
      dynamoStream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });
  }

  get tableName(): string {
    return this.table.tableName;
  }

  /**
   * What a family function needs: reads of the served partitions of the table (it has no index),
   * never the source records, keys or users; and UpdateItem only on quota counters. No Put, Delete
   * or batch.
   */
  grantServe(grantee: iam.IGrantable): void {
    const tableAndIndexes = [this.table.tableArn];
    this.grantStatement(
      grantee,
      READ_ACTIONS,
      tableAndIndexes,
      SERVED_PREFIXES.map((prefix) => `${prefix}*`),
    );
    // An explicit Deny wins over the Allow above, whatever prefix is added to it later.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        actions: READ_ACTIONS,
        resources: tableAndIndexes,
        conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [...UNSERVED_PATTERNS] } },
      }),
    );
    this.grantStatement(grantee, ['dynamodb:UpdateItem'], [this.table.tableArn], [`${QUOTA_PREFIX}*`]);
  }

  /**
   * What the usage function needs: the quota counters only. UpdateItem takes a unit; GetItem reads
   * a count (a key expected to be refused, shared/domain/quota.ts). Nothing of the served data.
   */
  grantCount(grantee: iam.IGrantable): void {
    this.grantStatement(
      grantee,
      ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      [this.table.tableArn],
      [`${QUOTA_PREFIX}*`],
    );
  }

  /**
   * What the owner's view of webhooks needs: reads of a user's references, the subscriptions and
   * their deliveries; never a secret (`WHSECRET#`), a body or a reference APY.
   */
  grantWebhookView(grantee: iam.IGrantable): void {
    this.grantStatement(
      grantee,
      ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem'],
      [this.table.tableArn],
      [`${USER_PREFIX}*`, `${WEBHOOK_PREFIX}*`, `${WEBHOOK_DELIVERY_PREFIX}wh_*`],
    );
  }

  /**
   * What webhook matching needs: the served data's reads (the two versions it compares), the
   * subscriptions of a family, and writes of reference APYs, deliveries and their bodies. Never a
   * secret, a key or a user.
   */
  grantWebhookMatch(grantee: iam.IGrantable): void {
    this.grantStatement(
      grantee,
      ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'],
      [this.table.tableArn],
      [...SERVED_PREFIXES.filter((p) => p !== QUOTA_PREFIX), `${WEBHOOK_PREFIX}*`, `${WEBHOOK_REFERENCE_PREFIX}*`],
    );
    this.grantStatement(
      grantee,
      ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
      [this.table.tableArn],
      [`${WEBHOOK_REFERENCE_PREFIX}*`, `${WEBHOOK_DELIVERY_PREFIX}*`],
    );
  }

  /**
   * What sending needs: a delivery, its body and its subscription's secret read; the delivery
   * written and the subscription's state updated. Nothing of the served data, keys or users.
   */
  grantWebhookSend(grantee: iam.IGrantable): void {
    this.grantStatement(
      grantee,
      ['dynamodb:GetItem'],
      [this.table.tableArn],
      [`${WEBHOOK_DELIVERY_PREFIX}*`, `${WEBHOOK_SECRET_PREFIX}*`, `${WEBHOOK_PREFIX}*`],
    );
    this.grantStatement(grantee, ['dynamodb:PutItem'], [this.table.tableArn], [`${WEBHOOK_DELIVERY_PREFIX}*`]);
    this.grantStatement(grantee, ['dynamodb:UpdateItem'], [this.table.tableArn], [`${WEBHOOK_PREFIX}*`]);
  }

  /** What the authorizer needs: GetItem on key and user items, nothing else. */
  grantAuthorize(grantee: iam.IGrantable): void {
    this.grantStatement(grantee, ['dynamodb:GetItem'], [this.table.tableArn], [`${KEY_PREFIX}*`, `${USER_PREFIX}*`]);
  }

  /**
   * What the ingest function needs: the import's reads and writes on the table, with an explicit
   * Deny on the partitions of keys, users and quota counters, whatever else the import comes to write.
   */
  grantImport(grantee: iam.IGrantable): void {
    this.grantStatement(grantee, IMPORT_ACTIONS, [this.table.tableArn]);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        actions: IMPORT_ACTIONS,
        resources: [this.table.tableArn],
        conditions: { 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': NOT_IMPORTED_PATTERNS } },
      }),
    );
  }

  /** What the freshness function and the data status need: GetItem on the snapshot pointer's partition, nothing else. */
  grantReadPointer(grantee: iam.IGrantable): void {
    this.grantStatement(grantee, ['dynamodb:GetItem'], [this.table.tableArn], [pointerKey().PK]);
  }

  private grantStatement(
    grantee: iam.IGrantable,
    actions: string[],
    resourceArns: string[],
    leadingKeys?: string[],
  ): void {
    iam.Grant.addToPrincipal({
      grantee,
      actions,
      resourceArns,
      conditions: leadingKeys && { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeys } },
    });
  }
}
