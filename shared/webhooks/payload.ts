/**
 * The bodies of one subscription's deliveries for one publish (CONTRACT §14 "What"): its events in
 * offer-id order, cut into parts of at most 100 events, and fewer when 100 would not fit one queue
 * message (the body travels in it: queue.ts), numbered `part` of `parts`. The offers are the
 * documents as the detail serves them, byte for byte.
 */
import type { OfferFamily } from '../data/keys';
import { OFFER_FAMILY } from '../model/offer-families';
import type { MatchedEvent } from './events';
import { MESSAGE_MAX_BYTES } from './queue';

/** @internal (exported for its tests) */
export const EVENTS_PER_PART = 100;
/**
 * A part's events close before they pass this many bytes: the rest of a message (its head line, the
 * body's own fields: ids, version names, a time) takes far less than the 2 KiB kept for it. One
 * event alone stays far below (an offer record is at most 16 KiB: shared/import/dataset.ts).
 * @internal (exported for its tests)
 */
export const PART_EVENTS_MAX_BYTES = MESSAGE_MAX_BYTES - 2048;

export interface PayloadHead {
  subscription: string;
  family: OfferFamily;
  snapshot: string;
  previousSnapshot: string;
  refreshedAt: string;
}

/** One event's JSON, its offer given as the served document (the version's before for a removal). */
export function eventJson(family: OfferFamily, event: MatchedEvent, offer: string): string {
  const fields = OFFER_FAMILY[family].fields as { apy?: string; flag: string };
  const parts = [
    `"type":${JSON.stringify(event.type)}`,
    `"offer_id":${event.offerId}`,
    `"reasons":${JSON.stringify(event.reasons)}`,
  ];
  if (fields.apy !== undefined) parts.push(`"apy":${JSON.stringify(event.apy)}`);
  parts.push(`${JSON.stringify(fields.flag)}:${JSON.stringify(event.flag)}`, `"offer":${offer}`);
  return `{${parts.join(',')}}`;
}

/** An event's JSON and its size in UTF-8 bytes, measured once (an event goes to many subscriptions). */
export interface EventText {
  text: string;
  bytes: number;
}

export const sized = (text: string): EventText => ({ text, bytes: Buffer.byteLength(text) });

/** The events' JSON cut into parts (at most 100 events, their bytes and commas within PART_EVENTS_MAX_BYTES), each the list of its events' JSON. */
export function partsOf(events: readonly EventText[]): string[][] {
  const parts: string[][] = [];
  let part: string[] = [];
  let size = 0;
  for (const { text, bytes } of events) {
    if ((size + bytes + 1 > PART_EVENTS_MAX_BYTES || part.length === EVENTS_PER_PART) && part.length > 0) {
      parts.push(part);
      part = [];
      size = 0;
    }
    part.push(text);
    size += bytes + 1;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

/**
 * The body of part `part` (from 1) of `parts`. Its events are concatenated, not joined: the body
 * refers to the event texts (shared by every subscription sent them) until the queue writes it out.
 */
export function bodyOf(head: PayloadHead, events: readonly string[], part: number, parts: number): string {
  let list = '';
  for (let i = 0; i < events.length; i++) list = i === 0 ? events[i] : `${list},${events[i]}`;
  return (
    `{"type":"offers.events","subscription":${JSON.stringify(head.subscription)},` +
    `"family":${JSON.stringify(head.family)},"snapshot":${JSON.stringify(head.snapshot)},` +
    `"previous_snapshot":${JSON.stringify(head.previousSnapshot)},"refreshed_at":${JSON.stringify(head.refreshedAt)},` +
    `"part":${part},"parts":${parts},"events":[${list}]}`
  );
}
