/**
 * The deployed delivery queue (docs/adr/0028-webhook-delivery.md): SQS, whose messages wait at most
 * 900 s; a longer wait is taken in hops by the sending handler (delivery.ts).
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { eachBatch } from '../data/batches';
import { type DeliveryMessage, type DeliveryQueue, encodeDeliveryMessage, MESSAGE_MAX_BYTES } from './queue';

/** SQS's longest delay of a message. */
const SQS_MAX_DELAY_SECONDS = 900;
/** SQS's largest batch (in messages; in bytes, that of one message). */
const SQS_BATCH = 10;
/** Batches sent at once. */
const SQS_CONCURRENCY = 8;

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
    // Several batches in flight: a publish's thousands of messages are not sent one round trip at a time.
    await eachBatch(batchesOf(messages.map(encodeDeliveryMessage)), 1, SQS_CONCURRENCY, async ([batch]) => {
      let entries = batch.map((text, j) => ({ Id: String(j), MessageBody: text, DelaySeconds: delay }));
      // A refused entry is sent again: a delivery whose message is lost is never attempted.
      for (let attempt = 0; entries.length > 0; attempt++) {
        if (attempt === 5) throw new Error(`SQS refused ${entries.length} webhook message(s)`);
        const out = await this.sqs.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }));
        const failed = new Set((out.Failed ?? []).map((f) => f.Id));
        entries = entries.filter((e) => failed.has(e.Id));
      }
    });
  }
}

/**
 * Batches of at most 10 messages whose bodies together stay within SQS's limit of a batch (that of
 * one message), each message measured once (a publish's are 180 MB at BENCH).
 */
function batchesOf(texts: readonly string[]): string[][] {
  const batches: string[][] = [];
  let size = Number.POSITIVE_INFINITY;
  for (const text of texts) {
    const bytes = Buffer.byteLength(text);
    if (bytes > MESSAGE_MAX_BYTES) throw new RangeError(`a webhook message of ${bytes} bytes is over SQS's limit`);
    if (size + bytes + 1 > MESSAGE_MAX_BYTES || batches[batches.length - 1].length === SQS_BATCH) {
      batches.push([]);
      size = 0;
    }
    batches[batches.length - 1].push(text);
    size += bytes + 1;
  }
  return batches;
}
