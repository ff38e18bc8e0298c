/**
 * What matching hands sending: one message per delivery, carrying its body, on a queue that can
 * hold it back a while (SQS deployed, at most 15 minutes a message; an in-process queue locally,
 * local/webhook-queue.ts). The body travels in the message, never as a stored item
 * (docs/adr/0028-webhook-delivery.md): the table keeps only the delivery's state, for the owner's view.
 */
import { createHash } from 'node:crypto';
import { OFFER_FAMILIES, type OfferFamily } from '../data/keys';

export interface DeliveryMessage {
  subscriptionId: string;
  family: OfferFamily;
  deliveryId: string;
  /** The body POSTed, exactly as signed (the events of one part). */
  body: string;
}

export interface DeliveryQueue {
  /** The longest a message may be held back (SQS: 900 s); a longer wait is taken in several hops. */
  readonly maxDelaySeconds: number;
  send(messages: readonly DeliveryMessage[], delaySeconds: number): Promise<void>;
}

/** SQS's largest message (256 KiB): a message, its head line and body, fits it (payload.ts cuts parts to fit). */
export const MESSAGE_MAX_BYTES = 262_144;

/**
 * A message as text: its head (the delivery's names) as one line of JSON, then the body as it is.
 * The body is not escaped into a JSON string, so it costs its own bytes and is handed on byte for byte.
 */
export function encodeDeliveryMessage(message: DeliveryMessage): string {
  const { body, ...head } = message;
  return `${JSON.stringify(head)}\n${body}`;
}

/** A message's text as matching wrote it; undefined when it is not one. */
export function decodeDeliveryMessage(text: string): DeliveryMessage | undefined {
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  try {
    const head = JSON.parse(text.slice(0, newline)) as Partial<DeliveryMessage>;
    const ok =
      typeof head.subscriptionId === 'string' &&
      typeof head.deliveryId === 'string' &&
      (OFFER_FAMILIES as readonly unknown[]).includes(head.family);
    return ok
      ? {
          subscriptionId: head.subscriptionId!,
          family: head.family!,
          deliveryId: head.deliveryId!,
          body: text.slice(newline + 1),
        }
      : undefined;
  } catch {
    return undefined;
  }
}

/** What one delivery is: the publish (its version, the one replaced, when), for which subscription, which part. */
export interface DeliveryOrigin {
  subscriptionId: string;
  previous: string;
  snapshot: string;
  publishedAt: string;
  part: number;
}

/**
 * A delivery's id (its `webhook-id`, the same on every attempt): `msg_`, the publish's time in epoch
 * ms (13 digits: the deliveries of a subscription sort by time) and 48 bits of a hash of the
 * subscription, both versions and the part. Derived, never drawn: a publish matched twice (a stream
 * record retried) sends the same events under the same ids, so a receiver can drop the second copy.
 */
export function deliveryIdOf(origin: DeliveryOrigin): string {
  const ms = Date.parse(origin.publishedAt);
  const hash = createHash('sha256')
    .update([origin.subscriptionId, origin.previous, origin.snapshot, String(origin.part)].join('\n'))
    .digest('hex');
  return `msg_${String(ms).padStart(13, '0')}${hash.slice(0, 12)}`;
}
