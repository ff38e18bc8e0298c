/**
 * Query and path parameters (docs/api.md, "Parameters"): one zod object schema per route, whose
 * inferred types the handlers and the domain take and from which the OpenAPI parameters are
 * generated (scripts/openapi, which adds each parameter's description). Validation is strict:
 * unknown, repeated, empty, malformed and out-of-range values are a `validation_error` whose
 * messages each name the parameter, one message per parameter (each check aborts the
 * parameter's remaining checks).
 *
 * Each schema is built on its first use, not when the module loads: building zod schemas costs a
 * function's cold start milliseconds, a function builds only those of the routes it serves, and a
 * bundle keeps only those its routes name (docs/performance.md, "Bundle ≤ 1.2× and init").
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
export const NUMBER_MAX_LENGTH = 32;
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

/** A schema built once, on its first use; pure, so a bundle drops the ones nothing calls. */
function onFirstUse<S>(build: () => S): () => S {
  let schema: S | undefined;
  return () => (schema ??= build());
}

// ---- the parameters ----------------------------------------------------------------------------

export const PAGE_SIZE = { minimum: 1, maximum: 200, default: 50 } as const;
export const DEFAULT_PERIOD = '1m';

const limit = /* @__PURE__ */ onFirstUse(() => z._default(integer('limit', PAGE_SIZE.minimum, PAGE_SIZE.maximum), PAGE_SIZE.default));
const offset = /* @__PURE__ */ onFirstUse(() => z._default(integer('offset', 0, Number.MAX_SAFE_INTEGER), 0));

const offerFilters = /* @__PURE__ */ onFirstUse(() => ({
  platform_type: z.optional(oneOf('platform_type', PLATFORM_TYPES)),
  platform: z.optional(slug('platform')),
  asset: z.optional(slug('asset')),
  sort: z.optional(oneOf('sort', SORT_MODES)),
}));

const minApy = () => z.optional(unsignedNumber('min_apy'));

/** Routes that take no query parameter. */
export const NO_QUERY = /* @__PURE__ */ onFirstUse(() => z.strictObject({}));

export const LIST_QUERY = /* @__PURE__ */ onFirstUse(() => z.strictObject({ limit: limit(), offset: offset() }));

const OFFER_QUERY = /* @__PURE__ */ onFirstUse(() => z.strictObject({ limit: limit(), offset: offset(), ...offerFilters(), min_apy: minApy() }));

export const OFFER_LIST_QUERY = {
  earn: OFFER_QUERY,
  borrow: OFFER_QUERY,
  collateral: /* @__PURE__ */ onFirstUse(() => z.strictObject({ limit: limit(), offset: offset(), ...offerFilters() })),
} satisfies Record<OfferFamily, () => z.ZodMiniObject>;

export const HISTORY_QUERY = /* @__PURE__ */ onFirstUse(() =>
  z.strictObject({
    period: z._default(oneOf('period', PERIODS), DEFAULT_PERIOD),
  }),
);

export const OFFER_ID_PATH = /* @__PURE__ */ onFirstUse(() =>
  z.strictObject({
    id: integer('id', 0, Number.MAX_SAFE_INTEGER),
  }),
);

/** Documentation only: a slug no record can have is looked up as absent (404), not refused. */
export const SLUG_PATH = /* @__PURE__ */ onFirstUse(() =>
  z.strictObject({
    slug: z.string().check(z.minLength(1), z.maxLength(SLUG_MAX_LENGTH)),
  }),
);

export type ListQuery = z.infer<ReturnType<typeof LIST_QUERY>>;
/** What every offer family's list accepts (`min_apy` only on earn and borrow). */
export type OfferQuery = z.infer<ReturnType<typeof OFFER_QUERY>>;

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

/**
 * Valid queries already parsed, per schema and exact parameters: parsing is a pure function of
 * them, popular pages repeat, and a parse costs more than the lookup. The results are frozen, so
 * no caller can change what the next one gets. Invalid queries are parsed every time.
 */
const PARSED = new WeakMap<ParamSchema, Map<string, unknown>>();
const PARSED_PER_SCHEMA = 256;

/** A request's query against its route's schema: defaults applied, values converted. */
export function parseQuery<S extends ParamSchema>(schema: S, values: Record<string, string[]>): Readonly<z.output<S>> {
  const messages: string[] = [];
  // Prototype-free: a parameter named `__proto__` is a plain (unknown) key here.
  const single: Record<string, string> = Object.create(null);
  for (const [name, list] of Object.entries(values)) {
    // Unknown names (even `constructor`) are left to the strict schema, which reports them.
    if (Object.hasOwn(schema.shape, name) && list.length > 1) messages.push(`${name} must not be repeated`);
    single[name] = list[0] ?? '';
  }
  if (messages.length > 0) return validated(schema, single, messages);
  let parsed = PARSED.get(schema);
  if (!parsed) PARSED.set(schema, (parsed = new Map()));
  const key = JSON.stringify(Object.entries(single));
  const known = parsed.get(key);
  if (known !== undefined) return known as z.output<S>;
  const result = Object.freeze(validated(schema, single, messages));
  if (parsed.size >= PARSED_PER_SCHEMA) {
    const oldest = parsed.keys().next().value;
    if (oldest !== undefined) parsed.delete(oldest);
  }
  parsed.set(key, result);
  return result;
}

/** A path offer id: plain decimal digits, at most 2^53-1. */
export function parseOfferId(raw: string | undefined): number {
  return validated(OFFER_ID_PATH(), { id: raw ?? '' }, []).id;
}
