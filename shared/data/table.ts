/**
 * The single table's physical definition, read by the CDK stack and by the local stack (which
 * creates the same table in dynalite), so the two can never disagree. What lives in it and why is
 * in docs/data-model.md; the values of the keys come from shared/data/keys.ts.
 */
export type KeyType = 'S' | 'N';

export interface IndexDefinition {
  indexName: string;
  partitionKey: { name: string; type: KeyType };
  sortKey: { name: string; type: KeyType };
}

export const TABLE_PARTITION_KEY = { name: 'PK', type: 'S' } as const;
export const TABLE_SORT_KEY = { name: 'SK', type: 'S' } as const;
export const TTL_ATTRIBUTE = 'expiresAt';

/**
 * No item needs a secondary index: a family version is read by the keys of its index segments and
 * document blocks (docs/adr/0009-one-index-per-family-version.md). The definition stays a list, so
 * that the stack and the local stack derive any future index from one place.
 */
export const INDEXES: readonly IndexDefinition[] = [];

/** Every key attribute with its type, as CreateTable's AttributeDefinitions wants them. */
function attributeDefinitions(): { AttributeName: string; AttributeType: KeyType }[] {
  const all = new Map<string, KeyType>([
    [TABLE_PARTITION_KEY.name, TABLE_PARTITION_KEY.type],
    [TABLE_SORT_KEY.name, TABLE_SORT_KEY.type],
  ]);
  for (const index of INDEXES) {
    all.set(index.partitionKey.name, index.partitionKey.type);
    all.set(index.sortKey.name, index.sortKey.type);
  }
  return [...all].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }));
}

/** The CreateTable input for the local stack and tests (on-demand, any GSI projecting ALL). */
export function createTableInput(tableName: string) {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: attributeDefinitions(),
    KeySchema: [
      { AttributeName: TABLE_PARTITION_KEY.name, KeyType: 'HASH' as const },
      { AttributeName: TABLE_SORT_KEY.name, KeyType: 'RANGE' as const },
    ],
    // CreateTable refuses an empty list.
    GlobalSecondaryIndexes:
      INDEXES.length === 0
        ? undefined
        : INDEXES.map((index) => ({
            IndexName: index.indexName,
            KeySchema: [
              { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
              { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
            ],
            Projection: { ProjectionType: 'ALL' as const },
          })),
  };
}
