/**
 * The deployed delivery queue (docs/adr/0028-webhook-delivery.md): SQS, whose messages wait at most
 * 900 s; a longer wait is taken in hops by the sending handler (delivery.ts).
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryMessage, DeliveryQueue } from './queue';

/** SQS's longest delay of a message. */
const SQS_MAX_DELAY_SECONDS = 900;
/** SQS's largest batch. */
const SQS_BATCH = 10;

/** The variable that names the queue, set by the stack on the matching and sending functions. */
export const WEBHOOK_QUEUE_URL = 'WEBHOOK_QUEUE_URL';

export class SqsDeliveryQueue implements DeliveryQueue {
  readonly maxDelaySeconds = SQS_MAX_DELAY_SECONDS;

  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(messages: readonly DeliveryMessage[], delaySeconds: number): Promise<void> {
    const delay = Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.round(delaySeconds)));
    for (let i = 0; i < messages.length; i += SQS_BATCH) {
      let entries = messages.slice(i, i + SQS_BATCH).map((message, j) => ({
        Id: String(j),
        MessageBody: JSON.stringify(message),
        DelaySeconds: delay,
      }));
      // A refused entry is sent again: a delivery whose message is lost is never attempted.
      for (let attempt = 0; entries.length > 0; attempt++) {
        if (attempt === 5) throw new Error(`SQS refused ${entries.length} webhook message(s)`);
        const out = await this.sqs.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }));
        const failed = new Set((out.Failed ?? []).map((f) => f.Id));
        entries = entries.filter((e) => failed.has(e.Id));
      }
    }
  }
}

/** A queue message's body as matching wrote it; undefined when it is not one. */
export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<DeliveryMessage>;
    const ok =
      typeof parsed.subscriptionId === 'string' &&
      typeof parsed.deliveryId === 'string' &&
      (parsed.family === 'earn' || parsed.family === 'borrow' || parsed.family === 'collateral');
    return ok ? (parsed as DeliveryMessage) : undefined;
  } catch {
    return undefined;
  }
}
