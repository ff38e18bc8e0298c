/**
 * A webhook subscription (CONTRACT §14, docs/api.md "Webhooks"): what a user asks to be sent, checked
 * once where it is written (`npm run webhooks -- create`, an accounts file's `webhooks`). Its filter is
 * a query string of its family's list filters, validated by that list's own schema
 * (shared/http/query.ts `OFFER_LIST_QUERY`) and evaluated by the list's predicate
 * (shared/domain/offer-facts.ts `offerMatcher`): what a subscription watches is exactly what the list
 * with that query answers.
 */
import { randomBytes } from 'node:crypto';
import type { OfferFamily } from '../data/keys';
import { OFFER_LIST_QUERY, parseQuery } from '../http/query';
import {
  type FilterDeclaration,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  OFFER_FILTERS,
  type OfferFilter,
  type OfferFilters,
} from '../model/offer-families';
import { DECIMAL_PATTERN } from '../platform/decimal';
import { ValidationError } from '../platform/errors';

export const WEBHOOK_EVENTS = ['offer.added', 'offer.removed', 'offer.changed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** The conditions of `offer.changed`, in the order an event's `reasons` lists them. */
export const CONDITIONS = ['apy_change', 'apy_above', 'apy_below', 'availability'] as const;
export type Condition = (typeof CONDITIONS)[number];
const APY_CONDITIONS = ['apy_change', 'apy_above', 'apy_below'] as const;

export interface Conditions {
  apy_change?: string;
  apy_above?: string;
  apy_below?: string;
  availability?: boolean;
}

/** At most this many subscriptions a user (per stage). */
export const MAX_WEBHOOKS_PER_USER = 25;

/** Where a stage may send (docs/security.md, "Webhook targets"). */
export type TargetRule = 'public' | 'local';

/** What a subscription says, as written by its owner. */
export interface SubscriptionSpec {
  url: string;
  family: OfferFamily;
  filter: string;
  events: WebhookEvent[];
  conditions: Conditions;
}

/** The query parameters a filter must not hold: they shape a page, not the offers watched. */
const NOT_FILTERS = ['sort', 'limit', 'offset', 'snapshot', 'include'];
const DECIMAL_MAX_LENGTH = 64;
const FILTER_MAX_LENGTH = 2048;
const URL_MAX_LENGTH = 2048;

/** `whsec_` and the base64 of 24 to 64 bytes. */
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = { min: 24, max: 64, generated: 32 } as const;
export const WEBHOOK_ID_PATTERN = /^wh_[0-9a-f]{20}$/;

export const generateWebhookId = (): string => `wh_${randomBytes(10).toString('hex')}`;
export const generateWebhookSecret = (): string =>
  `${SECRET_PREFIX}${randomBytes(SECRET_BYTES.generated).toString('base64')}`;

/** Whether a secret has the Standard Webhooks form this service signs with. */
export function isWebhookSecret(value: unknown): value is string {
  if (typeof value !== 'string' || !value.startsWith(SECRET_PREFIX)) return false;
  const encoded = value.slice(SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= SECRET_BYTES.min && bytes <= SECRET_BYTES.max;
}

/** Parsed filters, kept per family and text (a publish evaluates the same few filters for many subscriptions). */
const PARSED = new Map<string, OfferFilters>();

/**
 * A filter's query string as its family's list parses it: a `validation_error` naming `filter` and the
 * parameter (`filter: min_apy must be a decimal number such as 4.75`).
 */
export function parseFilter(family: OfferFamily, filter: string): OfferFilters {
  const key = `${family}?${filter}`;
  const known = PARSED.get(key);
  if (known) return known;
  const values: Record<string, string[]> = Object.create(null);
  for (const [name, value] of new URLSearchParams(filter)) (values[name] ??= []).push(value);
  const paging = Object.keys(values).filter((name) => NOT_FILTERS.includes(name));
  if (paging.length > 0) throw new ValidationError(paging.map((name) => `filter: ${name} is not a filter`));
  let parsed: OfferFilters;
  try {
    parsed = parseQuery(OFFER_LIST_QUERY[family](), values) as OfferFilters;
  } catch (error) {
    if (error instanceof ValidationError)
      throw new ValidationError(messagesOf(error).map((message) => `filter: ${message}`));
    throw error;
  }
  if (PARSED.size > 1024) PARSED.clear();
  PARSED.set(key, parsed);
  return parsed;
}

/** Whether a filter reads an APY figure (figures change without the offer's document changing). */
export const readsFigures = (filters: OfferFilters): boolean =>
  (Object.keys(filters) as OfferFilter[]).some(
    (name) =>
      filters[name] !== undefined &&
      Object.hasOwn(OFFER_FILTERS, name) &&
      'figure' in (OFFER_FILTERS[name] as FilterDeclaration),
  );

const messagesOf = (error: ValidationError): string[] => (error.details?.message as string[] | undefined) ?? [];

const isDecimal = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= DECIMAL_MAX_LENGTH && DECIMAL_PATTERN.test(value);

/** The URL rule of a stage (CONTRACT §14 "Targets"): the syntax here; the addresses at creation and at each attempt (target.ts). */
function urlProblem(url: unknown, rule: TargetRule): string | undefined {
  if (typeof url !== 'string' || url === '') return 'url is required';
  if (url.length > URL_MAX_LENGTH) return `url must not be longer than ${URL_MAX_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url must be an absolute URL';
  }
  if (parsed.username !== '' || parsed.password !== '') return 'url must not carry credentials';
  if (rule === 'local') {
    const local = /^http:\/\/(127\.0\.0\.1|localhost):[1-9][0-9]{0,4}(\/|$|\?)/.test(url);
    return local && parsed.port !== ''
      ? undefined
      : 'url must be http://127.0.0.1:PORT/… or http://localhost:PORT/… on the local stage';
  }
  if (parsed.protocol !== 'https:') return 'url must be an https URL';
  return undefined;
}

export interface SubscriptionInput {
  url?: unknown;
  family?: unknown;
  filter?: unknown;
  events?: unknown;
  conditions?: unknown;
}

/**
 * A subscription as its owner wrote it, checked field by field: every problem is a message naming
 * its field (`conditions.apy_above must be a decimal such as 8.5`), all of them in one ValidationError.
 */
export function validateSubscription(input: SubscriptionInput, rule: TargetRule): SubscriptionSpec {
  const problems: string[] = [];
  const urlIssue = urlProblem(input.url, rule);
  if (urlIssue) problems.push(urlIssue);
  const family = input.family;
  const knownFamily = typeof family === 'string' && (OFFER_FAMILIES as readonly string[]).includes(family);
  if (!knownFamily) problems.push(`family must be one of the following values: ${OFFER_FAMILIES.join(', ')}`);

  const filter = input.filter ?? '';
  if (typeof filter !== 'string' || filter.length > FILTER_MAX_LENGTH)
    problems.push(`filter must be a query string of at most ${FILTER_MAX_LENGTH} characters`);
  else if (knownFamily) {
    try {
      parseFilter(family as OfferFamily, filter);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      problems.push(...messagesOf(error));
    }
  }

  const events = input.events ?? [...WEBHOOK_EVENTS];
  const eventList = Array.isArray(events) ? (events as unknown[]) : [];
  if (
    !Array.isArray(events) ||
    eventList.length === 0 ||
    eventList.some((e) => !(WEBHOOK_EVENTS as readonly unknown[]).includes(e)) ||
    new Set(eventList).size !== eventList.length
  )
    problems.push(`events must be a non-empty list of distinct values of: ${WEBHOOK_EVENTS.join(', ')}`);

  const conditions = conditionsOf(input.conditions, knownFamily ? (family as OfferFamily) : undefined, problems);
  const named = typeof input.conditions === 'object' && input.conditions !== null ? Object.keys(input.conditions) : [];
  if (eventList.includes('offer.changed') && Object.keys(conditions).length === 0 && named.length === 0)
    problems.push('conditions must hold at least one condition when events has offer.changed');

  if (problems.length > 0) throw new ValidationError(problems);
  return {
    url: input.url as string,
    family: family as OfferFamily,
    filter: filter as string,
    events: WEBHOOK_EVENTS.filter((e) => eventList.includes(e)),
    conditions,
  };
}

function conditionsOf(raw: unknown, family: OfferFamily | undefined, problems: string[]): Conditions {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push('conditions must be an object');
    return {};
  }
  const given = raw as Record<string, unknown>;
  const out: Conditions = {};
  for (const name of Object.keys(given))
    if (!(CONDITIONS as readonly string[]).includes(name)) problems.push(`conditions.${name} is not a condition`);
  const hasApy = family === undefined || 'apy' in OFFER_FAMILY[family].fields;
  for (const name of APY_CONDITIONS) {
    const value = given[name];
    if (value === undefined) continue;
    if (!hasApy) problems.push(`conditions.${name} is refused on ${family}: it has no APY`);
    else if (!isDecimal(value)) problems.push(`conditions.${name} must be a decimal string such as "8.5"`);
    else if (name === 'apy_change' && value.startsWith('-'))
      problems.push('conditions.apy_change must not be less than 0');
    else out[name] = value;
  }
  if (given.availability !== undefined) {
    if (typeof given.availability !== 'boolean') problems.push('conditions.availability must be true or false');
    else if (given.availability) out.availability = true;
  }
  return out;
}
