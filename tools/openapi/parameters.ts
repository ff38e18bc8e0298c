/**
 * What the description says of each query and path parameter, keyed by the parameter's name so
 * that the compiler knows every name.
 *
 * How it holds together: `PARAMETER_DESCRIPTIONS` declares the names (`ParameterName`); an
 * operation takes its schemas through `documented()`, which does not compile when a schema has a
 * parameter this table does not describe; `PARAMETER_EXAMPLES` (below) is a
 * `Record<ParameterName, …>`, which does not compile when one lacks an example; per-operation
 * overrides are keyed by the same names. To add a parameter: add it to its zod schema
 * (shared/http/query.ts; a filter: shared/model/offer-families.ts), then its line here and its
 * example below; the compiler names each one missing. Its type, bounds, enumeration and default come from the schema, not from here.
 */
import { MAX_BUCKETS } from '../../shared/domain/history';
import {
  LIST_MAX,
  NUMBER_MAX_LENGTH,
  type ParamSchema,
  SEARCH_TEXT_MAX_LENGTH,
  SNAPSHOT_MAX_LENGTH,
} from '../../shared/http/query';
import {
  FIGURE_FAMILIES,
  inWords,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  type OfferFilter,
} from '../../shared/model/offer-families';
import { SLUG_MAX_LENGTH } from '../../shared/platform/constants';
import { SNAPSHOT_EXAMPLES } from './examples';

const NUMBER_GRAMMAR =
  'A number as JSON writes it, without sign: digits, an optional fraction, an optional exponent ' +
  `(\`4.75\`, \`1e-7\`, \`2.5E1\`, \`1e6\`; not \`.5\`, \`+1\` or \`5.\`), at most ${NUMBER_MAX_LENGTH} characters, compared as an exact decimal.`;
const SIGNED_NUMBER_GRAMMAR =
  'A number as JSON writes it, negative allowed (a borrow mean can be below zero): an optional `-`, digits, an optional fraction, an optional exponent ' +
  `(\`4.75\`, \`-0.5\`, \`-2.5E-1\`, \`1e6\`; not \`.5\`, \`+1\` or \`5.\`), at most ${NUMBER_MAX_LENGTH} characters, compared as an exact decimal.`;

/** A list parameter: what one comma-separated value of it says. */
export const listOf = (what: string, maximum: number = LIST_MAX.other) =>
  `${what} A comma-separated list of 1 to ${maximum} distinct values (\`a,b\`: either); a single value is a list of one. ` +
  'An empty element, a repeated element or a longer list is a `validation_error`. Several list parameters combine with AND.';

/** What each parameter means, by name. */
export const PARAMETER_DESCRIPTIONS = {
  limit: 'Page size. Plain decimal digits.',
  offset: 'Zero-based offset into the result set. Plain decimal digits.',
  platform_type: listOf('Only offers of platforms of these families.'),
  platform: listOf(
    `Only offers of the platforms with these (current) slugs, each at most ${SLUG_MAX_LENGTH} characters.`,
  ),
  asset: listOf(
    `Only offers of the assets (or collateral assets) with these slugs, each at most ${SLUG_MAX_LENGTH} characters.`,
  ),
  chain: listOf(
    `Only offers on the chains with these slugs (\`chain.slug\`; an offer with \`chain: null\` never matches), each at most ${SLUG_MAX_LENGTH} characters.`,
  ),
  ids: listOf(
    'Only the offers with these ids (plain decimal digits, at most 2^53-1); an unknown or unpublished id is simply absent.',
    LIST_MAX.ids,
  ),
  sort: 'Sort mode.',
  min_apy: `Only offers whose APY (percent) is at least this value. ${NUMBER_GRAMMAR}`,
  min_tvl: `Only offers whose TVL (USD: ${OFFER_FAMILIES.flatMap((f) => {
    const tvl = (OFFER_FAMILY[f].fields as { tvl?: string }).tvl;
    return tvl ? [`${f} \`${tvl}\``] : [];
  }).join(', ')}) is at least this value; an offer whose TVL is \`null\` never matches. ${NUMBER_GRAMMAR}`,
  min_apy_mean_30d: `Only offers whose \`apy_stats.mean_30d\` (the mean of the last 30 daily APY points, percent) is at least this value; an offer whose mean is \`null\` never matches. ${SIGNED_NUMBER_GRAMMAR}`,
  max_apy_stddev_30d: `Only offers whose \`apy_stats.stddev_30d\` (the deviation of the same 30 daily points, percentage points) is at most this value; an offer whose deviation is \`null\` never matches. ${NUMBER_GRAMMAR}`,
  include:
    `\`apy_stats\`: each ${inWords(FIGURE_FAMILIES)} offer of the answer carries \`apy_stats\`, its trend and stability figures (docs/api.md, "APY figures"), as its last field; ` +
    "in CSV the columns `apy_stats.as_of` … `apy_stats.points_30d` after the offer's. Without it the answer is that of version 1.2, byte for byte. An unknown value is a `validation_error`.",
  available: `Only ${inWords(OFFER_FAMILIES.filter((f) => OFFER_FAMILY[f].fields.flag === 'available'))} offers whose \`available\` is this value (\`true\` or \`false\`).`,
  is_active: 'Only offers whose `is_active` is this value (`true` or `false`).',
  snapshot:
    `Read the data version a page named in \`pagination.snapshot\` (1 to ${SNAPSHOT_MAX_LENGTH} characters of \`A-Z a-z 0-9 _ -\`): the same records, order and \`total\` after any newer import, ` +
    'so that a crawl neither skips nor repeats. Every replaced version stays readable at least 60 minutes; after that `410 snapshot_expired`. The `Link` header carries it.',
  since:
    'The older end: a `pagination.snapshot` (or `snapshot`) of an earlier answer of this family. An expired or unknown version is `410 snapshot_expired`: read the whole list again. ' +
    'A version published later than the newer end (the served version, or `snapshot`) is `400 validation_error` naming `since`. Required.',
  period: 'History window (default `1m` when `from` is absent). Not with `from`/`to`.',
  from: 'Start of a custom window: a UTC timestamp (`2026-03-01T00:00:00Z`, with or without milliseconds). Not with `period`.',
  to: `End of a custom window (needs \`from\`): a UTC timestamp; default the request time.`,
  interval: `Bucket size of the points: replaces the default of the period or of the custom window. At most ${MAX_BUCKETS.toLocaleString('en-US')} buckets per window.`,
  id: 'Numeric offer identifier. Plain decimal digits, at most 2^53-1.',
  slug:
    'Canonical slug. A former slug of a renamed record answers 301 with the current one in `Location`. ' +
    `Must not be empty; at most ${SLUG_MAX_LENGTH} characters (a longer slug is a \`validation_error\`).`,
  q: `The text to find: a slug, a symbol or (part of) a name, case-insensitive; 1 to ${SEARCH_TEXT_MAX_LENGTH} characters once trimmed. Required.`,
  // Every filter the families declare (shared/model/offer-families.ts): one without a line here does not compile.
} as const satisfies Record<string, string> & Record<OfferFilter, string>;

/** Every query and path parameter the description knows. */
export type ParameterName = keyof typeof PARAMETER_DESCRIPTIONS;

/** A query or path schema whose every parameter is described, with the names of its parameters in order. */
export interface DocumentedSchema {
  readonly schema: ParamSchema;
  readonly names: readonly ParameterName[];
}

type Undescribed<S extends ParamSchema> = Exclude<keyof S['shape'], ParameterName>;

/** `S` when every parameter of it is described, else a type naming the ones that are not. */
type Described<S extends ParamSchema> = [Undescribed<S>] extends [never]
  ? S
  : { 'parameters missing from PARAMETER_DESCRIPTIONS': Undescribed<S> };

/** A schema the description may document: compiles only when PARAMETER_DESCRIPTIONS names all its parameters. */
export function documented<S extends ParamSchema>(schema: S & Described<S>): DocumentedSchema {
  // Every key is a ParameterName: `Described` admits no other.
  return { schema, names: Object.keys(schema.shape) as ParameterName[] };
}

/**
 * An example for each query and path parameter, by name (a path slug's depends on the family): one
 * missing does not compile (the header says how the names are kept).
 */
export const PARAMETER_EXAMPLES: Readonly<Record<ParameterName, unknown>> = {
  limit: 100,
  offset: 2,
  platform_type: ['exchange', 'protocol'],
  platform: ['aave', 'binance'],
  asset: ['tether', 'usd-coin'],
  chain: ['ethereum'],
  ids: [1, 2],
  sort: 'tvl_desc',
  min_apy: '4.75',
  min_tvl: '1e6',
  min_apy_mean_30d: '4',
  max_apy_stddev_30d: '0.5',
  include: ['apy_stats'],
  available: true,
  is_active: true,
  snapshot: SNAPSHOT_EXAMPLES.newer,
  since: SNAPSHOT_EXAMPLES.older,
  period: '1w',
  from: '2026-03-01T00:00:00Z',
  to: '2026-11-20T00:00:00Z',
  interval: '1d',
  id: 2,
  slug: 'binance',
  q: 'tether',
};
