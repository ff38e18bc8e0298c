/**
 * The CSV representation of offer lists and history answers (docs/api.md, "CSV"): RFC 4180 text,
 * CRLF line ends, a header row, UTF-8 without BOM, one row per offer or per point. It is written
 * from the JSON answer's own values (the same read path, the same documents), with the columns
 * derived from the resource schemas: a nested object flattens to dotted columns (`platform.slug`),
 * an array of references is one column of their slugs joined by `|` (`reward_assets`), `null` is
 * an empty field, a decimal string goes out byte for byte. A text field that a spreadsheet would
 * run as a formula gets a leading `'` (OWASP "CSV injection"); decimals, ids and timestamps never
 * start that way, so they are never altered.
 */
import type * as z from 'zod/mini';
import type { HistoryFamily, OfferFamily } from '../data/keys';
import { ApyStats, HISTORY_POINT_FIELDS, OFFER_FIELDS } from '../domain/resources';
import { DECIMAL_PATTERN } from '../platform/decimal';
import type { ApiEvent } from './http';
import { headerValues } from './http';

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
const CSV_MEDIA_TYPE = 'text/csv';
const JSON_MEDIA_TYPE = 'application/json';

/** A column: its header name and how to read its value from the JSON value of a row. */
interface Column {
  readonly name: string;
  readonly path: readonly string[];
  /** An array of references: their slugs, joined by `|`. */
  readonly slugs: boolean;
}

type Shape = Readonly<Record<string, z.ZodMiniType>>;

const defOf = (schema: z.ZodMiniType) => schema._zod.def as { type: string; [key: string]: unknown };

/** A nullable or optional schema's inner one (`platform: PlatformRef | null` flattens as PlatformRef). */
function unwrapped(schema: z.ZodMiniType): z.ZodMiniType {
  const def = defOf(schema);
  return def.type === 'nullable' || def.type === 'optional' ? unwrapped(def.innerType as z.ZodMiniType) : schema;
}

const SCALARS = new Set(['string', 'number', 'boolean', 'literal', 'enum']);

/**
 * The columns of a resource, in the order of its schema's fields: objects flattened depth first
 * with dots, arrays as one column. A field of any other kind is a programming error, caught when
 * the module is first used (the unit tests derive every family's columns).
 * @internal (exported for its tests)
 */
export function columnsOf(shape: Shape, prefix: readonly string[] = []): Column[] {
  return Object.entries(shape).flatMap(([field, schema]): Column[] => {
    const path = [...prefix, field];
    const def = defOf(unwrapped(schema));
    if (def.type === 'object') return columnsOf(def.shape as Shape, path);
    if (def.type === 'array') {
      const element = defOf(unwrapped(def.element as z.ZodMiniType));
      if (element.type !== 'object' || !('slug' in (element.shape as Shape)))
        throw new Error(`CSV: ${path.join('.')} is not an array of references`);
      return [{ name: path.join('.'), path, slugs: true }];
    }
    if (!SCALARS.has(def.type)) throw new Error(`CSV: ${path.join('.')} has no column form (${def.type})`);
    return [{ name: path.join('.'), path, slugs: false }];
  });
}

/**
 * Each family's columns, derived once on first use (a function that never answers CSV never pays
 * for it); with `apy_stats` (`include=apy_stats`, docs/api.md "APY figures"), its figures last
 * (`apy_stats.as_of`, `apy_stats.change_1d`, …).
 */
const offerColumns = new Map<string, Column[]>();
export const offerColumnsOf = (family: OfferFamily, apyStats = false): Column[] => {
  const key = `${family}${apyStats ? '+apy_stats' : ''}`;
  let columns = offerColumns.get(key);
  if (!columns) {
    const shape = apyStats ? { ...OFFER_FIELDS[family], apy_stats: ApyStats } : OFFER_FIELDS[family];
    offerColumns.set(key, (columns = columnsOf(shape)));
  }
  return columns;
};

/** History rows: the offer `id` first, then the point's fields. */
const ID_COLUMN: Column = { name: 'id', path: ['id'], slugs: false };
export const historyColumnsOf = (family: HistoryFamily): Column[] => [
  ID_COLUMN,
  ...columnsOf(HISTORY_POINT_FIELDS[family]),
];

/** Characters a spreadsheet reads as the start of a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** Characters that make a field need quotes (RFC 4180 §2.6). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One field: text that would start a formula gets a leading `'` unless it is a decimal (`-0.5`
 * stays a number), then quotes when it holds a quote, comma or line break (quotes doubled).
 * @internal (exported for its tests)
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : String(value);
  const safe = FORMULA_START.test(text) && !DECIMAL_PATTERN.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

type Json = Record<string, unknown>;

function cell(row: Json, column: Column): unknown {
  let value: unknown = row;
  for (const key of column.path) {
    if (value === null || value === undefined) return null;
    value = (value as Json)[key];
  }
  if (column.slugs) return (value as { slug: string }[] | null)?.map((ref) => ref.slug).join('|') ?? null;
  return value;
}

const CRLF = '\r\n';

/** The CSV text of rows: a header row, then one row per value, every row ending in CRLF. */
function csvText(columns: readonly Column[], rows: Iterable<Json>): string {
  const lines = [columns.map((c) => c.name).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvField(cell(row, c))).join(','));
  return lines.join(CRLF) + CRLF;
}

/** A page of offers as CSV, from its JSON documents (carrying `apy_stats` when `apyStats`). */
export const offersCsv = (family: OfferFamily, docs: readonly string[], apyStats = false): string =>
  csvText(
    offerColumnsOf(family, apyStats),
    docs.map((doc) => JSON.parse(doc) as Json),
  );

/** One offer's points (the `data` of its history answer). */
export interface HistoryEntry {
  readonly id: number;
  readonly points: readonly Json[];
}

/** History of one offer or several as CSV: one row per point, in the order of the entries and their points. */
export const historyCsv = (family: HistoryFamily, entries: readonly HistoryEntry[]): string =>
  csvText(
    historyColumnsOf(family),
    entries.flatMap(({ id, points }) => points.map((point) => ({ id, ...point }))),
  );

/**
 * The quality (RFC 9110 §12.4.2) an Accept field value gives a media type, from its most specific
 * range that matches (`type/subtype`, then `type/*`, then `*\/*`), or 0 when none matches.
 */
function qualityOf(ranges: readonly { range: string; q: number }[], mediaType: string, wildcards: boolean): number {
  const [type] = mediaType.split('/');
  const candidates = wildcards ? [mediaType, `${type}/*`, '*/*'] : [mediaType];
  for (const candidate of candidates) {
    const found = ranges.find((r) => r.range === candidate);
    if (found) return found.q;
  }
  return 0;
}

/**
 * Whether the request asks for CSV: its Accept names `text/csv` itself (a wildcard is not enough:
 * every other Accept keeps the JSON answer of 1.2) with a quality above JSON's. No Accept, `*\/*`,
 * `text/*`, or `application/json` at the same quality: JSON.
 */
export function acceptsCsv(event: ApiEvent): boolean {
  const ranges = headerValues(event, 'Accept')
    .join(',')
    .split(',')
    .map((part) => {
      const [range, ...parameters] = part.split(';').map((p) => p.trim().toLowerCase());
      const q = parameters.find((p) => p.startsWith('q='));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { range, q: Number.isFinite(quality) ? quality : 0 };
    })
    .filter(({ range }) => range);
  const csv = qualityOf(ranges, CSV_MEDIA_TYPE, false);
  return csv > 0 && csv > qualityOf(ranges, JSON_MEDIA_TYPE, true);
}
