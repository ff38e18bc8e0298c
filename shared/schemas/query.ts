/**
 * Query and path parameters (specification 4.1–4.6, CONTRACT §1). Each parameter is declared once
 * as a `ParamSpec`; from it come the zod schema that validates requests and the OpenAPI
 * parameter. Validation is strict: unknown, repeated, empty, malformed and out-of-range values are
 * a `validation_error` whose messages each name the parameter.
 */
import * as z from 'zod/mini';
import { PERIODS, type Period } from '../domain/buckets';
import { SORT_MODES, type SortMode } from '../domain/orderings';
import { ValidationError } from '../errors';
import type { OfferFamily } from '../keys';
import { PLATFORM_TYPES, SLUG_MAX_LENGTH, type PlatformType } from './constants';

export const MAX_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

export type ParamSpec =
  | { kind: 'integer'; description: string; minimum: number; maximum: number; default?: number }
  | { kind: 'enum'; description: string; values: readonly string[]; default?: string }
  | { kind: 'decimal'; description: string; minimum: number }
  | { kind: 'string'; description: string };

type Issue = { message: string };

function integerIssues(name: string, value: string, spec: { minimum: number; maximum: number }): Issue[] {
  if (/^-[0-9]*[1-9][0-9]*$/.test(value)) return [{ message: `${name} must not be less than ${spec.minimum}` }];
  if (!/^[0-9]+$/.test(value)) return [{ message: `${name} must be an integer` }];
  const n = Number(value);
  if (n < spec.minimum) return [{ message: `${name} must not be less than ${spec.minimum}` }];
  if (n > spec.maximum) return [{ message: `${name} must not be greater than ${spec.maximum}` }];
  return [];
}

function decimalIssues(name: string, value: string, spec: { minimum: number }): Issue[] {
  if (/^-[0-9]+(\.[0-9]+)?$/.test(value) && /[1-9]/.test(value)) return [{ message: `${name} must not be less than ${spec.minimum}` }];
  if (!/^[0-9]+(\.[0-9]+)?$/.test(value)) return [{ message: `${name} must be a decimal number such as 4.75` }];
  return [];
}

function issuesOf(name: string, value: string, spec: ParamSpec): Issue[] {
  if (value === '') return [{ message: `${name} must not be empty` }];
  switch (spec.kind) {
    case 'integer':
      return integerIssues(name, value, spec);
    case 'decimal':
      return decimalIssues(name, value, spec);
    case 'enum':
      return spec.values.includes(value) ? [] : [{ message: `${name} must be one of the following values: ${spec.values.join(', ')}` }];
    case 'string':
      return value.length > SLUG_MAX_LENGTH ? [{ message: `${name} must not be longer than ${SLUG_MAX_LENGTH} characters` }] : [];
  }
}

/** The zod schema of one parameter: a string checked by its spec, converted to its type. */
function paramSchema(name: string, spec: ParamSpec) {
  const checked = z.string().check(
    z.superRefine((value, ctx) => {
      for (const issue of issuesOf(name, value, spec)) ctx.issues.push({ code: 'custom', message: issue.message, input: value });
    }),
  );
  return spec.kind === 'integer' ? z.pipe(checked, z.transform((value) => Number(value))) : checked;
}

export function querySchema(specs: Record<string, ParamSpec>) {
  return z.strictObject(Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, z.optional(paramSchema(name, spec))])));
}

// ---- the parameters ----------------------------------------------------------------------------

export const LIST_PARAMS = {
  limit: { kind: 'integer', description: 'Page size.', minimum: 1, maximum: 200, default: 50 },
  offset: { kind: 'integer', description: 'Zero-based offset into the result set.', minimum: 0, maximum: MAX_SAFE_INTEGER, default: 0 },
} as const satisfies Record<string, ParamSpec>;

const OFFER_FILTERS = {
  platform_type: { kind: 'enum', description: 'Only offers of platforms of this family.', values: PLATFORM_TYPES },
  platform: { kind: 'string', description: 'Only offers of the platform with this (current) slug.' },
  asset: { kind: 'string', description: 'Only offers of the asset (or collateral asset) with this slug.' },
  sort: { kind: 'enum', description: 'Sort mode.', values: SORT_MODES },
} as const satisfies Record<string, ParamSpec>;

const MIN_APY = {
  min_apy: { kind: 'decimal', description: 'Only offers whose APY (percent) is at least this value.', minimum: 0 },
} as const satisfies Record<string, ParamSpec>;

export const OFFER_LIST_PARAMS: Record<OfferFamily, Record<string, ParamSpec>> = {
  earn: { ...LIST_PARAMS, ...OFFER_FILTERS, ...MIN_APY },
  borrow: { ...LIST_PARAMS, ...OFFER_FILTERS, ...MIN_APY },
  collateral: { ...LIST_PARAMS, ...OFFER_FILTERS },
};

export const HISTORY_PARAMS = {
  period: { kind: 'enum', description: 'History window.', values: PERIODS, default: '1m' },
} as const satisfies Record<string, ParamSpec>;

export const ID_PARAM = { kind: 'integer', description: 'Numeric offer identifier.', minimum: 0, maximum: MAX_SAFE_INTEGER } as const;

// ---- parsing -----------------------------------------------------------------------------------

export interface ListQuery {
  limit: number;
  offset: number;
}

export interface OfferQuery extends ListQuery {
  platform_type?: PlatformType;
  platform?: string;
  asset?: string;
  min_apy?: string;
  sort?: SortMode;
}

export interface HistoryQuery {
  period: Period;
}

const schemaCache = new WeakMap<object, ReturnType<typeof querySchema>>();

/** Validate a request's query against its parameters; defaults applied. */
export function parseQuery<T>(values: Record<string, string[]>, specs: Record<string, ParamSpec>): T {
  const messages: string[] = [];
  // Prototype-free: a parameter named `__proto__` is a plain (unknown) key here.
  const single: Record<string, string> = Object.create(null);
  for (const [name, list] of Object.entries(values)) {
    // Unknown names (even `constructor`) are left to the strict schema, which reports them.
    if (Object.hasOwn(specs, name) && list.length > 1) messages.push(`${name} must not be repeated`);
    single[name] = list[0] ?? '';
  }

  let schema = schemaCache.get(specs);
  if (!schema) schemaCache.set(specs, (schema = querySchema(specs)));
  const result = z.safeParse(schema, single);
  if (!result.success) {
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') messages.push(...issue.keys.map((key) => `property ${key} should not exist`));
      else messages.push(issue.message);
    }
  }
  if (messages.length > 0) throw new ValidationError(messages);
  const parsed = result.data as Record<string, unknown>;
  for (const [name, spec] of Object.entries(specs)) {
    if (parsed[name] === undefined && 'default' in spec && spec.default !== undefined) parsed[name] = spec.default;
  }
  return parsed as T;
}

/** A path offer id: plain decimal digits, at most 2^53-1. */
export function parseOfferId(raw: string | undefined): number {
  const issues = issuesOf('id', raw ?? '', ID_PARAM);
  if (issues.length > 0) throw new ValidationError(issues.map((i) => i.message));
  return Number(raw);
}
