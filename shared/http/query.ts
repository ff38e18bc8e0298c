/**
 * Query and path parameters (docs/api.md, "Parameters"): one zod object schema per route, whose
 * parsed values the handlers pass to the domain (which declares what it reads: `PageRequest`,
 * `OfferFilters`; a schema that stops producing it does not compile) and from which the OpenAPI
 * parameters are generated (scripts/openapi, which adds each parameter's description). Validation is strict:
 * unknown, repeated, empty, malformed and out-of-range values are a `validation_error` whose
 * messages each name the parameter, one message per parameter (each check aborts the
 * parameter's remaining checks).
 *
 * Each schema is built on its first use, not when the module loads: building zod schemas costs a
 * function's cold start milliseconds, a function builds only those of the routes it serves, and a
 * bundle keeps only those its routes name (docs/performance.md, "Cold start, throughput, mix").
 */
import * as z from 'zod/mini';
import type { OfferFamily } from '../data/keys';
import { INTERVALS, MAX_HISTORY_IDS, PERIODS } from '../domain/buckets';
import {
  type FigureFamily,
  type FilterDeclaration,
  type FilterKind,
  type FilterKinds,
  hasFigures,
  INCLUDES,
  type Include,
  LIST_MAX,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  OFFER_FILTERS,
  type OfferFilter,
  type OfferParameter,
  type SortMode,
  sortModesOf,
} from '../model/offer-families';
import { PLATFORM_TYPES, type PlatformType, SLUG_MAX_LENGTH } from '../platform/constants';
import { ValidationError } from '../platform/errors';
import { isFileTimestamp, TIMESTAMP_MAX_LENGTH, TIMESTAMP_PATTERN } from '../platform/timestamps';

/** A message quotes at most this many characters of what the client sent, then `…`. */
const QUOTE_MAX_LENGTH = 64;

/** `min_apy`: the JSON number grammar without sign, at most this long (docs/api.md). */
export const NUMBER_MAX_LENGTH = 32;
const UNSIGNED_NUMBER_PATTERN = /^(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
/** The same with an optional leading `-` (a `signed` bound). */
const SIGNED_NUMBER_PATTERN = new RegExp(`^-?${UNSIGNED_NUMBER_PATTERN.source.slice(1)}`);

/**
 * Client text in a message: at most QUOTE_MAX_LENGTH characters (code points), cut with `…`.
 * @internal (exported for its tests)
 */
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
  const bounded = z
    .int({ error: (issue) => (issue.code === 'too_small' ? less : greater), abort: true })
    .check(z.minimum(minimum, abort(less)), z.maximum(maximum, abort(greater)));
  return z.pipe(digits, z.pipe(z.transform(Number), bounded));
}

function oneOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z.pipe(
    z.string().check(present(name)),
    z.enum(values, { error: `${name} must be one of the following values: ${values.join(', ')}` }),
  );
}

/**
 * A number as text (compared as an exact decimal, shared/platform/decimal.ts): non-negative, or
 * of either sign when `signed` (a leading `-`, never `+`).
 */
function decimalNumber(name: string, signed: boolean) {
  const isNegative = (value: string) =>
    value.startsWith('-') && UNSIGNED_NUMBER_PATTERN.test(value.slice(1)) && /[1-9]/.test(value.split(/[eE]/)[0]);
  return z.string().check(
    present(name),
    z.maxLength(NUMBER_MAX_LENGTH, abort(`${name} must not be longer than ${NUMBER_MAX_LENGTH} characters`)),
    z.refine((value) => signed || !isNegative(value), abort(`${name} must not be less than 0`)),
    z.regex(
      signed ? SIGNED_NUMBER_PATTERN : UNSIGNED_NUMBER_PATTERN,
      abort(`${name} must be a decimal number such as ${signed ? '-0.5' : '4.75'}`),
    ),
  );
}

/** `true` or `false`, as a boolean. */
function flag(name: string) {
  return z.pipe(
    oneOf(name, ['true', 'false']),
    z.pipe(
      z.transform((value: 'true' | 'false') => value === 'true'),
      z.boolean(),
    ),
  );
}

/** A data version as `pagination.snapshot` names it (1-64 characters of `[A-Za-z0-9_-]`), opaque to clients. */
export const SNAPSHOT_MAX_LENGTH = 64;
const SNAPSHOT_PATTERN = /^[A-Za-z0-9_-]+$/;

function snapshot(name: string) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is required` : undefined) })
    .check(
      present(name),
      z.maxLength(SNAPSHOT_MAX_LENGTH, abort(`${name} must not be longer than ${SNAPSHOT_MAX_LENGTH} characters`)),
      z.regex(SNAPSHOT_PATTERN, abort(`${name} must contain only letters, digits, _ and -`)),
    );
}

/** The most values a list parameter holds: `ids`, and every other one (declared with the filters). */
export { LIST_MAX };

/** What a list parameter's elements are: a check of each element's text, and its value. */
interface Element<T> {
  /** The element's message (naming the parameter) when its text is not a value, else undefined. */
  problem: (text: string) => string | undefined;
  value: (text: string) => T;
  /** The schema of a value (documentation: the output side of the list). */
  schema: () => z.ZodMiniType<T, T>;
}

/**
 * A comma-separated list of 1 to `maximum` distinct elements. Checked in order, one message per
 * parameter: empty, too many values, an empty element, an element that is not a value, a value
 * given twice (compared as values: `1,01` repeats an id). The values are frozen (a parsed query is
 * shared, `parseQuery`).
 */
function list<T>(name: string, maximum: number, element: Element<T>) {
  const text = z.string().check(
    present(name),
    z.check<string>((ctx) => {
      const problem = listProblem(name, maximum, element, ctx.value);
      if (problem !== undefined)
        ctx.issues.push({ code: 'custom', message: problem, input: ctx.value, continue: false });
    }),
  );
  const values = z.transform((value: string) => Object.freeze(value.split(',').map(element.value)));
  return z.pipe(
    text,
    z.pipe(values, z.readonly(z.array(element.schema()).check(z.minLength(1), z.maxLength(maximum)))),
  );
}

function listProblem<T>(name: string, maximum: number, element: Element<T>, value: string): string | undefined {
  const parts = value.split(',');
  if (parts.length > maximum) return `${name} must not have more than ${maximum} values`;
  const seen = new Set<T>();
  for (const part of parts) {
    if (part === '') return `${name} must not contain an empty value`;
    const problem = element.problem(part);
    if (problem !== undefined) return problem;
    const parsed = element.value(part);
    if (seen.has(parsed)) return `${name} must not contain ${quoted(part)} twice`;
    seen.add(parsed);
  }
  return undefined;
}

const slugElement = (name: string): Element<string> => ({
  problem: (text) =>
    text.length > SLUG_MAX_LENGTH ? `${name} must not be longer than ${SLUG_MAX_LENGTH} characters` : undefined,
  value: (text) => text,
  schema: () => z.string().check(z.minLength(1), z.maxLength(SLUG_MAX_LENGTH)),
});

const platformTypeElement = (name: string): Element<PlatformType> => ({
  problem: (text) =>
    (PLATFORM_TYPES as readonly string[]).includes(text)
      ? undefined
      : `${name} must be one of the following values: ${PLATFORM_TYPES.join(', ')}`,
  value: (text) => text as PlatformType,
  schema: () => z.enum(PLATFORM_TYPES),
});

const includeElement = (name: string): Element<Include> => ({
  problem: (text) =>
    (INCLUDES as readonly string[]).includes(text)
      ? undefined
      : `${name} must be one of the following values: ${INCLUDES.join(', ')}`,
  value: (text) => text as Include,
  schema: () => z.enum(INCLUDES),
});

const idElement = (name: string): Element<number> => ({
  problem: (text) => {
    if (!/^[0-9]+$/.test(text)) return `${name} must be a comma-separated list of integers`;
    return Number(text) > Number.MAX_SAFE_INTEGER
      ? `${name} must not be greater than ${Number.MAX_SAFE_INTEGER}`
      : undefined;
  },
  value: Number,
  schema: () => z.int().check(z.minimum(0), z.maximum(Number.MAX_SAFE_INTEGER)),
});

/** A parameter that must be given: its absence is named (`ids is required`). */
function required<T extends z.ZodMiniType<unknown, string>>(name: string, schema: T) {
  return z.pipe(
    z.string({ error: (issue) => (issue.input === undefined ? `${name} is required` : undefined) }),
    schema,
  );
}

/** A schema built once, on its first use; pure, so a bundle drops the ones nothing calls. */
function onFirstUse<S>(build: () => S): () => S {
  let schema: S | undefined;
  return () => (schema ??= build());
}

// ---- the parameters ----------------------------------------------------------------------------

export const PAGE_SIZE = { minimum: 1, maximum: 200, default: 50 } as const;

const limit = /* @__PURE__ */ onFirstUse(() =>
  z._default(integer('limit', PAGE_SIZE.minimum, PAGE_SIZE.maximum), PAGE_SIZE.default),
);
const offset = /* @__PURE__ */ onFirstUse(() => z._default(integer('offset', 0, Number.MAX_SAFE_INTEGER), 0));

/** The parameter of each filter kind (shared/model/offer-families.ts `FilterKinds`), named as declared. */
const FILTER_PARAM: {
  [K in FilterKind]: (name: string, declared: FilterDeclaration) => z.ZodMiniType<FilterKinds[K]>;
} = {
  slugs: (name, declared) => list(name, declared.max ?? LIST_MAX.other, slugElement(name)),
  platformTypes: (name, declared) => list(name, declared.max ?? LIST_MAX.other, platformTypeElement(name)),
  ids: (name, declared) => list(name, declared.max ?? LIST_MAX.other, idElement(name)),
  atLeast: (name, declared) => decimalNumber(name, declared.signed === true),
  atMost: (name, declared) => decimalNumber(name, declared.signed === true),
  is: (name) => flag(name),
};

const snapshotParam = () => z.optional(snapshot('snapshot'));

/** `include` (docs/api.md, "APY figures"): a list of distinct values of INCLUDES. */
const includeParam = () => z.optional(list('include', INCLUDES.length, includeElement('include')));
type IncludeShape = { include: ReturnType<typeof includeParam> };
/** `include` where a family's offers carry figures, nothing elsewhere (there it is an unknown parameter). */
const includeOf = <F extends OfferFamily>(family: F) =>
  (hasFigures(family) ? { include: includeParam() } : {}) as F extends FigureFamily
    ? IncludeShape
    : Record<never, never>;

/** Routes that take no query parameter. */
export const NO_QUERY = /* @__PURE__ */ onFirstUse(() => z.strictObject({}));

/** Lists of the caller's own (webhook subscriptions and deliveries): paging only, no version. */
export const PAGE_QUERY = /* @__PURE__ */ onFirstUse(() => z.strictObject({ limit: limit(), offset: offset() }));

/** A webhook subscription's id in the path (documentation and the handler's check). */
export const WEBHOOK_ID_PATH = /* @__PURE__ */ onFirstUse(() =>
  z.strictObject({
    id: z
      .string()
      .check(z.regex(/^wh_[0-9a-f]{20}$/, abort('id must be a subscription id such as wh_0123456789abcdef0123'))),
  }),
);

/** Platform and currency lists. */
export const LIST_QUERY = /* @__PURE__ */ onFirstUse(() =>
  z.strictObject({ limit: limit(), offset: offset(), snapshot: snapshotParam() }),
);

type FamilyFilter<F extends OfferFamily> = Extract<(typeof OFFER_FAMILY)[F]['query'][number], OfferFilter>;

/** The shape of a family's list query: paging, its declared parameters, `snapshot`. */
type OfferListShape<F extends OfferFamily> = {
  limit: ReturnType<typeof limit>;
  offset: ReturnType<typeof offset>;
  sort: z.ZodMiniOptional<z.ZodMiniType<SortMode>>;
  snapshot: ReturnType<typeof snapshotParam>;
} & {
  [P in FamilyFilter<F>]: z.ZodMiniOptional<z.ZodMiniType<FilterKinds[(typeof OFFER_FILTERS)[P]['kind']]>>;
} & (F extends FigureFamily ? IncludeShape : Record<never, never>);

/**
 * A family's list query, from its declaration (shared/model/offer-families.ts): `limit`, `offset`,
 * its parameters in their declared order (their messages come in that order: the parameters of
 * version 1.1 first), `snapshot`. Each family has its own flag, `available` on earn, `is_active`
 * on borrow and collateral (the other's name is unknown).
 */
function offerListQuery<F extends OfferFamily>(family: F) {
  const parameters = (OFFER_FAMILY[family].query as readonly OfferParameter[]).map((name): [string, z.ZodMiniType] => {
    if (name === 'sort') return [name, z.optional(oneOf('sort', sortModesOf(family)))];
    if (name === 'include') return [name, includeParam()];
    const declared: FilterDeclaration = OFFER_FILTERS[name];
    return [name, z.optional(FILTER_PARAM[declared.kind](name, declared))];
  });
  const shape = { limit: limit(), offset: offset(), ...Object.fromEntries(parameters), snapshot: snapshotParam() };
  // Every declared parameter, each of its kind's type.
  return z.strictObject(shape as OfferListShape<F>);
}

/** One schema per family, each built on its first use. */
const perFamily = <Schemas extends Record<OfferFamily, () => z.ZodMiniObject>>(
  build: (family: OfferFamily) => z.ZodMiniObject,
): Schemas => Object.fromEntries(OFFER_FAMILIES.map((family) => [family, onFirstUse(() => build(family))])) as Schemas;

export const OFFER_LIST_QUERY =
  /* @__PURE__ */ perFamily<{
    [F in OfferFamily]: () => ReturnType<typeof offerListQuery<F>>;
  }>(offerListQuery);

/**
 * `GET /api/v1/{family}/changes`: the offers that differ between version `since` and the served (or
 * `snapshot`) one; `include` where the family's offers carry figures.
 */
function changesQuery<F extends OfferFamily>(family: F) {
  return z.strictObject({
    since: snapshot('since'),
    snapshot: snapshotParam(),
    limit: limit(),
    offset: offset(),
    ...includeOf(family),
  });
}

export const CHANGES_QUERY =
  /* @__PURE__ */ perFamily<{ [F in OfferFamily]: () => ReturnType<typeof changesQuery<F>> }>(changesQuery);

/** An offer's detail: `include` where the family's offers carry figures, no parameter elsewhere. */
const detailQuery = <F extends OfferFamily>(family: F) => z.strictObject(includeOf(family));
export const OFFER_DETAIL_QUERY =
  /* @__PURE__ */ perFamily<{ [F in OfferFamily]: () => ReturnType<typeof detailQuery<F>> }>(detailQuery);

/** A currency's detail: `include` adds the figures to its earn and borrow offers. */
export const CURRENCY_DETAIL_QUERY = /* @__PURE__ */ onFirstUse(() => z.strictObject({ include: includeParam() }));

/** `GET /api/v1/search` (docs/api.md, "Search"): the text and how many matches. */
export const SEARCH_LIMIT = { minimum: 1, maximum: 20, default: 10 } as const;
export const SEARCH_TEXT_MAX_LENGTH = 64;

/** The search text, trimmed: 1 to SEARCH_TEXT_MAX_LENGTH characters (code points) once trimmed. */
function searchText(name: string) {
  const checked = z.string().check(
    z.refine((value) => value.trim().length > 0, abort(`${name} must not be empty`)),
    z.refine(
      (value) => [...value.trim()].length <= SEARCH_TEXT_MAX_LENGTH,
      abort(`${name} must not be longer than ${SEARCH_TEXT_MAX_LENGTH} characters`),
    ),
  );
  return z.pipe(
    checked,
    z.pipe(
      z.transform((value: string) => value.trim()),
      z.string().check(z.minLength(1), z.maxLength(SEARCH_TEXT_MAX_LENGTH)),
    ),
  );
}

export const SEARCH_QUERY = /* @__PURE__ */ onFirstUse(() =>
  z.strictObject({
    q: required('q', searchText('q')),
    limit: z._default(integer('limit', SEARCH_LIMIT.minimum, SEARCH_LIMIT.maximum), SEARCH_LIMIT.default),
  }),
);

/**
 * A timestamp in the grammar of data files (CONTRACT §8), as given (the domain reads its instant).
 * Its length and pattern are checks of their own, so that the description states them (a generated
 * client then refuses `yesterday` itself); the real instant and its year are checked after them.
 */
function instant(name: string) {
  const grammar = abort(`${name} must be an ISO 8601 UTC timestamp such as 2026-01-31T12:00:00Z`);
  return z
    .string()
    .check(
      present(name),
      z.maxLength(TIMESTAMP_MAX_LENGTH, grammar),
      z.regex(TIMESTAMP_PATTERN, grammar),
      z.refine(isFileTimestamp, grammar),
    );
}

/**
 * The window of a history request (docs/api.md, "History"): a `period` (default `1m`, applied by
 * the domain, which also checks the parameters together), or `from` and optionally `to`; either
 * with an `interval`.
 */
const historyWindow = /* @__PURE__ */ onFirstUse(() => ({
  period: z.optional(oneOf('period', PERIODS)),
  from: z.optional(instant('from')),
  to: z.optional(instant('to')),
  interval: z.optional(oneOf('interval', INTERVALS)),
}));

export const HISTORY_QUERY = /* @__PURE__ */ onFirstUse(() => z.strictObject(historyWindow()));

/** `GET /api/v1/{family}/history?ids=…`: 1 to MAX_HISTORY_IDS offers, then the window of each. */
export const HISTORIES_QUERY = /* @__PURE__ */ onFirstUse(() =>
  z.strictObject({ ids: required('ids', list('ids', MAX_HISTORY_IDS, idElement('ids'))), ...historyWindow() }),
);

export const OFFER_ID_PATH = /* @__PURE__ */ onFirstUse(() =>
  z.strictObject({
    id: integer('id', 0, Number.MAX_SAFE_INTEGER),
  }),
);

/** Documentation only: the detail handlers look a slug up as it comes (shared/domain/catalog.ts). */
export const SLUG_PATH = /* @__PURE__ */ onFirstUse(() =>
  z.strictObject({
    slug: z.string().check(z.minLength(1), z.maxLength(SLUG_MAX_LENGTH)),
  }),
);

/**
 * What an offer family's list accepts: every family's parameters, each optional where a family
 * lacks it (`min_apy`, `min_tvl` and `available` are never set on collateral; `available` only on
 * earn, `is_active` never on earn).
 * @internal (exported for its tests)
 */
export type OfferQuery = z.infer<ReturnType<typeof OFFER_LIST_QUERY.earn>> &
  Pick<z.infer<ReturnType<typeof OFFER_LIST_QUERY.borrow>>, 'is_active'>;

// ---- parsing -----------------------------------------------------------------------------------

export type ParamSchema = z.ZodMiniObject<z.core.$ZodShape, z.core.$strict>;

function validated<S extends ParamSchema>(schema: S, values: Record<string, string>, messages: string[]): z.output<S> {
  const result = z.safeParse(schema, values);
  if (result.success && messages.length === 0) return result.data;
  for (const issue of result.error?.issues ?? []) {
    if (issue.code === 'unrecognized_keys')
      messages.push(...issue.keys.map((key) => `property ${quoted(key)} should not exist`));
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
