/**
 * The index budget follows the function's configured memory (shared/data/index-store.ts
 * `indexBudget`): Lambda's `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`, read once with the configuration.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createStores } from '../../../shared/data/stores';
import { readConfig } from '../../../shared/platform/config';

const MB = 2 ** 20;
const client = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const budgetAt = (memory?: string) =>
  createStores(
    client,
    readConfig({ TABLE_NAME: 't', ...(memory === undefined ? {} : { AWS_LAMBDA_FUNCTION_MEMORY_SIZE: memory }) }),
    () => 0,
  ).indexes.budget;

it('is a quarter of the configured memory for the served indexes and an eighth for retired ones', () => {
  expect(budgetAt('1024')).toEqual({ servedBytes: 256 * MB, retiredBytes: 128 * MB });
  expect(budgetAt('2048')).toEqual({ servedBytes: 512 * MB, retiredBytes: 256 * MB });
  expect(budgetAt('640')).toEqual({ servedBytes: 160 * MB, retiredBytes: 80 * MB });
});

it('assumes the API functions’ default 512 MB where no memory is configured (locally)', () => {
  expect(budgetAt()).toEqual({ servedBytes: 128 * MB, retiredBytes: 64 * MB });
});

it('refuses a memory size that is not a positive integer at initialization', () => {
  expect(() => budgetAt('0')).toThrow('AWS_LAMBDA_FUNCTION_MEMORY_SIZE must be a positive integer');
  expect(() => budgetAt('lots')).toThrow('AWS_LAMBDA_FUNCTION_MEMORY_SIZE must be a positive integer');
});
