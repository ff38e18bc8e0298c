/**
 * What matching hands sending: one message per delivery, on a queue that can hold it back a while
 * (SQS deployed, at most 15 minutes a message; an in-process queue locally, local/webhook-queue.ts).
 */
import { randomBytes } from 'node:crypto';
import type { OfferFamily } from '../data/keys';

export interface DeliveryMessage {
  subscriptionId: string;
  family: OfferFamily;
  deliveryId: string;
}

export interface DeliveryQueue {
  /** The longest a message may be held back (SQS: 900 s); a longer wait is taken in several hops. */
  readonly maxDelaySeconds: number;
  send(messages: readonly DeliveryMessage[], delaySeconds: number): Promise<void>;
}

/**
 * A delivery's id (its `webhook-id`, the same on every attempt): `msg_`, its creation time in epoch ms
 * (13 digits: the deliveries of a subscription sort by time) and 48 random bits.
 */
export const deliveryIdAt = (ms: number): string =>
  `msg_${String(ms).padStart(13, '0')}${randomBytes(6).toString('hex')}`;
