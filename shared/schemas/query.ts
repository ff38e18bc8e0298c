/**
 * Query and path parameters (docs/api.md, "Parameters"): one zod object schema per route, whose
 * inferred types the handlers and the domain take and from which the OpenAPI parameters are
 * generated (scripts/openapi). Validation is strict: unknown, repeated, empty, malformed and
 * out-of-range values are a `validation_error` whose messages each name the parameter, one message
 * per parameter (each check aborts the parameter's remaining checks).
 */
import * as z from 'zod/mini';
import { PERIODS } from '../domain/buckets';
import { SORT_MODES } from '../domain/orderings';
import { ValidationError } from '../errors';
import type { OfferFamily } from '../keys';
import { PLATFORM_TYPES, SLUG_MAX_LENGTH } from './constants';

/** A message quotes at most this many characters of what the client sent, then `…`. */
const QUOTE_MAX_LENGTH = 64;

/** `min_apy`: the JSON number grammar without sign, at most this long (docs/api.md). */
const NUMBER_MAX_LENGTH = 32;
const UNSIGNED_NUMBER_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/** Client text in a message: at most QUOTE_MAX_LENGTH characters (code points), cut with `…`. */
export function quoted(text: string): string {
  let out = '';
  let count = 0;
  for (const char of text) {
    if (count === QUOTE_MAX_LENGTH) return `${out}…`;
    out += char;
    count++;
  }
  return out;
}

const abort = (error: string) => ({ error, abort: true });

const present = (name: string) => z.minLength(1, abort(`${name} must not be empty`));

/** Plain decimal digits within [minimum, maximum], as a number; a negative integer is "less than". */
function integer(name: string, minimum: number, maximum: number) {
  const less = `${name} must not be less than ${minimum}`;
  const greater = `${name} must not be greater than ${maximum}`;
  const digits = z.string().check(
    present(name),
    z.refine((value) => !/^-[0-9]*[1-9][0-9]*$/.test(value), abort(less)),
    z.regex(/^[0-9]+$/, abort(`${name} must be an integer`)),
  );
  // Digits always make an integer; past 2^53-1 (or Infinity) the safe-integer check says "greater".
  const bounded = z.int({ error: (issue) => (issue.code === 'too_small' ? less : greater), abort: true }).check(
    z.minimum(minimum, abort(less)),
    z.maximum(maximum, abort(greater)),
  );
  return z.pipe(digits, z.pipe(z.transform(Number), bounded));
}

function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z.pipe(z.string().check(present(name)), z.enum(values, { error: `${name} must be one of the following values: ${values.join(', ')}` }));
}

/** A slug filter: compared with stored slugs, never longer than any of them can be. */
function slug(name: string) {
  return z.string().check(present(name), z.maxLength(SLUG_MAX_LENGTH, abort(`${name} must not be longer than ${SLUG_MAX_LENGTH} characters`)));
}

/** A non-negative number as text (compared as an exact decimal, shared/decimal.ts). */
function unsignedNumber(name: string) {
  const isNegative = (value: string) => value.startsWith('-') && UNSIGNED_NUMBER_PATTERN.test(value.slice(1)) && /[1-9]/.test(value.split(/[eE]/)[0]);
  return z.string().check(
    present(name),
    z.maxLength(NUMBER_MAX_LENGTH, abort(`${name} must not be longer than ${NUMBER_MAX_LENGTH} characters`)),
    z.refine((value) => !isNegative(value), abort(`${name} must not be less than 0`)),
    z.regex(UNSIGNED_NUMBER_PATTERN, abort(`${name} must be a decimal number such as 4.75`)),
  );
}

/** The parameter's description in the OpenAPI document: zod's global registry, which toJSONSchema reads. */
function described<S extends z.ZodMiniType>(schema: S, description: string): S {
  z.globalRegistry.add(schema, { description });
  return schema;
}

// ---- the parameters ----------------------------------------------------------------------------

export const PAGE_SIZE = { minimum: 1, maximum: 200, default: 50 } as const;
export const DEFAULT_PERIOD = '1m';

const limit = described(z._default(integer('limit', PAGE_SIZE.minimum, PAGE_SIZE.maximum), PAGE_SIZE.default), 'Page size. Plain decimal digits.');
const offset = described(z._default(integer('offset', 0, Number.MAX_SAFE_INTEGER), 0), 'Zero-based offset into the result set. Plain decimal digits.');

const OFFER_FILTERS = {
  platform_type: described(z.optional(oneOf('platform_type', PLATFORM_TYPES)), 'Only offers of platforms of this family.'),
  platform: described(z.optional(slug('platform')), 'Only offers of the platform with this (current) slug. Must not be empty.'),
  asset: described(z.optional(slug('asset')), 'Only offers of the asset (or collateral asset) with this slug. Must not be empty.'),
  sort: described(z.optional(oneOf('sort', SORT_MODES)), 'Sort mode.'),
};

const minApy = described(
  z.optional(unsignedNumber('min_apy')),
  'Only offers whose APY (percent) is at least this value, compared as an exact decimal. A number as JSON writes it, without sign: ' +
    `digits, an optional fraction, an optional exponent (\`4.75\`, \`1e-7\`, \`2.5E1\`; not \`.5\`, \`+1\` or \`5.\`), at most ${NUMBER_MAX_LENGTH} characters.`,
);

/** Routes that take no query parameter. */
export const NO_QUERY = z.strictObject({});

export const LIST_QUERY = z.strictObject({ limit, offset });

const OFFER_QUERY = z.strictObject({ limit, offset, ...OFFER_FILTERS, min_apy: minApy });

export const OFFER_LIST_QUERY = {
  earn: OFFER_QUERY,
  borrow: OFFER_QUERY,
  collateral: z.strictObject({ limit, offset, ...OFFER_FILTERS }),
} satisfies Record<OfferFamily, z.ZodMiniObject>;

export const HISTORY_QUERY = z.strictObject({
  period: described(z._default(oneOf('period', PERIODS), DEFAULT_PERIOD), 'History window.'),
});

export const OFFER_ID_PATH = z.strictObject({
  id: described(integer('id', 0, Number.MAX_SAFE_INTEGER), 'Numeric offer identifier. Plain decimal digits.'),
});

/** Documentation only: a slug no record can have is looked up as absent (404), not refused. */
export const SLUG_PATH = z.strictObject({
  slug: described(
    z.string().check(z.minLength(1), z.maxLength(SLUG_MAX_LENGTH)),
    'Canonical slug. A former slug of a renamed record answers 301 with the current one in `Location`. Must not be empty.',
  ),
});

export type ListQuery = z.infer<typeof LIST_QUERY>;
/** What every offer family's list accepts (`min_apy` only on earn and borrow). */
export type OfferQuery = z.infer<typeof OFFER_QUERY>;

// ---- parsing -----------------------------------------------------------------------------------

export type ParamSchema = z.ZodMiniObject<z.core.$ZodShape, z.core.$strict>;

function validated<S extends ParamSchema>(schema: S, values: Record<string, string>, messages: string[]): z.output<S> {
  const result = z.safeParse(schema, values);
  if (result.success && messages.length === 0) return result.data;
  for (const issue of result.error?.issues ?? []) {
    if (issue.code === 'unrecognized_keys') messages.push(...issue.keys.map((key) => `property ${quoted(key)} should not exist`));
    else messages.push(issue.message);
  }
  throw new ValidationError(messages);
}

/** A request's query against its route's schema: defaults applied, values converted. */
export function parseQuery<S extends ParamSchema>(schema: S, values: Record<string, string[]>): z.output<S> {
  const messages: string[] = [];
  // Prototype-free: a parameter named `__proto__` is a plain (unknown) key here.
  const single: Record<string, string> = Object.create(null);
  for (const [name, list] of Object.entries(values)) {
    // Unknown names (even `constructor`) are left to the strict schema, which reports them.
    if (Object.hasOwn(schema.shape, name) && list.length > 1) messages.push(`${name} must not be repeated`);
    single[name] = list[0] ?? '';
  }
  return validated(schema, single, messages);
}

/** A path offer id: plain decimal digits, at most 2^53-1. */
export function parseOfferId(raw: string | undefined): number {
  return validated(OFFER_ID_PATH, { id: raw ?? '' }, []).id;
}
