/**
 * The single table's physical definition, read by the CDK stack and by the local stack (which
 * creates the same table in dynalite), so the two can never disagree. No item needs a secondary
 * index (docs/adr/0009-one-index-per-family-version.md); the key values come from keys.ts.
 */
export type KeyType = 'S' | 'N';

export const TABLE_PARTITION_KEY = { name: 'PK', type: 'S' } as const;
export const TABLE_SORT_KEY = { name: 'SK', type: 'S' } as const;
export const TTL_ATTRIBUTE = 'expiresAt';

/** The CreateTable input for the local stack and tests (on-demand). */
export function createTableInput(tableName: string) {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [TABLE_PARTITION_KEY, TABLE_SORT_KEY].map((key) => ({
      AttributeName: key.name,
      AttributeType: key.type,
    })),
    KeySchema: [
      { AttributeName: TABLE_PARTITION_KEY.name, KeyType: 'HASH' as const },
      { AttributeName: TABLE_SORT_KEY.name, KeyType: 'RANGE' as const },
    ],
  };
}
