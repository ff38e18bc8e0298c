/**
 * The sending function (docs/adr/0028-webhook-delivery.md): each SQS message names one delivery;
 * the same handler as the local stack's in-process queue (shared/webhooks/delivery.ts). A message
 * whose handling throws (DynamoDB unreachable) is reported failed alone, so that SQS delivers it
 * again after its visibility timeout and, past the queue's receive count, to the dead-letter queue.
 * One EMF line per outcome: delivered, retrying, failed, disabled.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '../../shared/platform/logger';
import { WEBHOOK_METRICS_NAMESPACE } from '../../shared/platform/metric-names';
import { handleDelivery, type SendDeps } from '../../shared/webhooks/delivery';
import { decodeDeliveryMessage } from '../../shared/webhooks/queue';

export function sendHandler(deps: SendDeps) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: { itemIdentifier: string }[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        const message = decodeDeliveryMessage(record.body);
        if (!message) {
          logger.warn('webhooks: a message that names no delivery, dropped', { messageId: record.messageId });
          return;
        }
        try {
          const outcome = await handleDelivery(deps, message);
          logger.metric({
            _aws: {
              Timestamp: deps.clock().getTime(),
              CloudWatchMetrics: [
                { Namespace: WEBHOOK_METRICS_NAMESPACE, Dimensions: [[]], Metrics: [{ Name: outcome, Unit: 'Count' }] },
              ],
            },
            [outcome]: 1,
          });
        } catch (error) {
          logger.error('webhooks: delivery failed to run', { delivery: message.deliveryId, error });
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  };
}
