/**
 * The matching function (docs/adr/0028-webhook-delivery.md): the table's stream, filtered to the
 * snapshot pointer item, hands it each write of the pointer with its old and new images; what the
 * write published is matched against the subscriptions and the deliveries queued. A failure is
 * thrown, so that the stream retries the record (matching a publish twice queues its deliveries
 * twice: delivery is at least once).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { decodePointer } from '../../shared/data/items/pointer';
import { logger } from '../../shared/platform/logger';
import { type MatchDeps, matchPublished } from '../../shared/webhooks/matching';
import { familiesPublished } from '../../shared/webhooks/published';

const familiesOf = (image: Record<string, unknown> | undefined) =>
  image ? decodePointer(unmarshall(image as Record<string, AttributeValue>)).families : undefined;

export function matchHandler(deps: MatchDeps) {
  return async (event: DynamoDBStreamEvent): Promise<void> => {
    for (const record of event.Records) {
      const published = familiesPublished(familiesOf(record.dynamodb?.OldImage), familiesOf(record.dynamodb?.NewImage));
      for (const family of published) {
        const result = await matchPublished(deps, family);
        logger.info('webhooks: matched', { family: family.family, snapshot: family.snapshot, ...result });
      }
    }
  };
}
