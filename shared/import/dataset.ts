/**
 * The data files (README.md, "Data import"): a dataset (records = API fields + publication flags) and an
 * accounts file. `parseDataset` / `parseAccounts` validate a whole file, from its bytes (text
 * included) or from a value already in memory, and name every error by its place
 * (`earn_offers[3].apy: …`); nothing is written unless the whole file is valid.
 */
import * as z from 'zod/mini';
import {
  currencyFields,
  decimal,
  exchangeFields,
  OFFER_FIELDS,
  protocolFields,
  SLUG_MAX_LENGTH,
  timestamp,
  walletFields,
} from '../domain/resources';
import {
  HISTORY_FAMILIES,
  type HistoryFamily,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  type OfferFamily,
} from '../model/offer-families';
import { API_KEY_FORMAT, API_KEY_RULE, KEY_LIMIT_MAX, USER_ID_PATTERN, USER_ID_RULE } from '../platform/account-rules';
import { decodeJson, isBytes, MAX_NESTING, type TextProblem, valueProblems } from './json-text';

/**
 * A record's slug, current or former: it becomes a URL path segment and a key, so only characters
 * that need no escaping in either (README, "Data import").
 */
const SLUG_PATTERN = new RegExp(`^[a-z0-9][a-z0-9._-]{0,${SLUG_MAX_LENGTH - 1}}$`);
const recordSlug = () =>
  z.string().check(
    z.regex(SLUG_PATTERN, {
      error: `must be 1 to ${SLUG_MAX_LENGTH} characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit`,
    }),
  );

const published = z._default(z.boolean(), true);
const listedFlags = {
  slug: recordSlug(),
  published,
  delisted: z._default(z.boolean(), false),
  previous_slugs: z._default(z.array(recordSlug()), []),
};

// Platform records may omit `type` (it is the family's); when present it must match. Written out
// per family: a generic helper spreading its fields lost the literal type of `type`.
const ExchangeRecord = z.strictObject({ ...exchangeFields, type: z.optional(exchangeFields.type), ...listedFlags });
const WalletRecord = z.strictObject({ ...walletFields, type: z.optional(walletFields.type), ...listedFlags });
const ProtocolRecord = z.strictObject({ ...protocolFields, type: z.optional(protocolFields.type), ...listedFlags });
export const CurrencyRecord = z.strictObject({ ...currencyFields, ...listedFlags });
const offerRecord = <F extends OfferFamily>(family: F) => z.strictObject({ ...OFFER_FIELDS[family], published });
/** Each offer family's records, under its dataset family (`earn_offers`, …). */
type OfferRecords = { [F in OfferFamily as (typeof OFFER_FAMILY)[F]['dataset']]: ReturnType<typeof offerRecord<F>> };
const OFFER_RECORDS = Object.fromEntries(
  OFFER_FAMILIES.map((family) => [OFFER_FAMILY[family].dataset, offerRecord(family)]),
) as OfferRecords;
const optionalArrays = <S extends Record<string, z.ZodMiniType>>(records: S) =>
  Object.fromEntries(Object.entries(records).map(([name, record]) => [name, z.optional(z.array(record))])) as {
    [K in keyof S]: z.ZodMiniOptional<z.ZodMiniArray<S[K]>>;
  };

const offerRef = z.int().check(z.minimum(0, { error: 'must not be negative' }));

/**
 * A history point of the file: its time and the value of each role the family's history holds
 * (shared/model/offer-families.ts `history`). The contract gives earn points a nullable tvl; a
 * point without one reads as null.
 */
const RECORD_POINT_ROLES = { apy: () => decimal(), tvl: () => z.optional(z.nullable(decimal())) };
type RecordPointRole = keyof typeof RECORD_POINT_ROLES;
type RecordPoint<F extends HistoryFamily> = { timestamp: ReturnType<typeof timestamp> } & {
  [R in (typeof OFFER_FAMILY)[F]['history'][number]]: ReturnType<(typeof RECORD_POINT_ROLES)[R]>;
};
const historyRecord = <F extends HistoryFamily>(family: F) =>
  z.strictObject({
    offer_id: offerRef,
    points: z.array(
      z.strictObject({
        timestamp: timestamp(),
        ...Object.fromEntries(
          (OFFER_FAMILY[family].history as readonly RecordPointRole[]).map((role) => [
            role,
            RECORD_POINT_ROLES[role](),
          ]),
        ),
      } as RecordPoint<F>),
    ),
  });
/** Each history family's records, under `{family}_history`. */
type HistoryRecords = { [F in HistoryFamily as `${F}_history`]: ReturnType<typeof historyRecord<F>> };
const HISTORY_RECORDS = Object.fromEntries(
  HISTORY_FAMILIES.map((family): [string, z.ZodMiniType] => [`${family}_history`, historyRecord(family)]),
) as unknown as HistoryRecords;

export const Dataset = z.strictObject({
  exchanges: z.optional(z.array(ExchangeRecord)),
  wallets: z.optional(z.array(WalletRecord)),
  protocols: z.optional(z.array(ProtocolRecord)),
  currencies: z.optional(z.array(CurrencyRecord)),
  ...optionalArrays(OFFER_RECORDS),
  ...optionalArrays(HISTORY_RECORDS),
});

/** The schema of one record of each versioned family: what its stored source records are decoded with. */
export const RECORD_SCHEMA = {
  exchanges: ExchangeRecord,
  wallets: WalletRecord,
  protocols: ProtocolRecord,
  currencies: CurrencyRecord,
  ...OFFER_RECORDS,
} as const;

type ExchangeRecord = z.output<typeof ExchangeRecord>;
type WalletRecord = z.output<typeof WalletRecord>;
type ProtocolRecord = z.output<typeof ProtocolRecord>;
export type PlatformRecord = ExchangeRecord | WalletRecord | ProtocolRecord;
export type CurrencyRecord = z.output<typeof CurrencyRecord>;
export type Dataset = z.output<typeof Dataset>;
export type DatasetFamily = keyof Dataset;
export const DATASET_FAMILIES = Object.keys(Dataset.def.shape) as DatasetFamily[];

// ---- accounts ----------------------------------------------------------------------------------

const KEY_LIMIT_RULE = `must be a positive integer of at most 15 digits (${KEY_LIMIT_MAX})`;
const keyLimit = () =>
  z.int().check(z.positive({ error: KEY_LIMIT_RULE }), z.maximum(KEY_LIMIT_MAX, { error: KEY_LIMIT_RULE }));

export const AccountsFile = z.strictObject({
  users: z.array(
    z.strictObject({
      id: z.string().check(z.regex(USER_ID_PATTERN, { error: USER_ID_RULE })),
      premium: z.boolean(),
      premium_until: z.optional(z.nullable(timestamp())),
      keys: z.array(
        z.strictObject({
          key: z.string().check(z.regex(API_KEY_FORMAT, { error: API_KEY_RULE })),
          revoked: z.optional(z.boolean()),
          per_minute: z.optional(keyLimit()),
          per_month: z.optional(keyLimit()),
        }),
      ),
      /**
       * Webhook subscriptions (CONTRACT §14): their shape here; what they say is checked where they are
       * written (shared/webhooks/manage.ts `loadAccounts`), as `npm run webhooks -- create` checks it.
       */
      webhooks: z.optional(
        z.array(
          z.strictObject({
            id: z.string().check(z.regex(/^wh_[0-9a-f]{20}$/, { error: 'must be wh_ and 20 hex digits' })),
            url: z.string(),
            family: z.string(),
            secret: z.string(),
            filter: z.optional(z.string()),
            events: z.optional(z.array(z.string())),
            conditions: z.optional(
              z.strictObject({
                apy_change: z.optional(z.string()),
                apy_above: z.optional(z.string()),
                apy_below: z.optional(z.string()),
                availability: z.optional(z.boolean()),
              }),
            ),
          }),
        ),
      ),
    }),
  ),
});
export type AccountsFile = z.output<typeof AccountsFile>;

// ---- errors by place ---------------------------------------------------------------------------

export class DataFileError extends Error {
  constructor(readonly errors: string[]) {
    super(`${errors.length} error(s) in the data file:\n${errors.slice(0, 50).join('\n')}`);
    this.name = 'DataFileError';
  }
}

function placeOf(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`))
    .join('');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${issue.expected}`;
    case 'unrecognized_keys':
      return `unknown field(s): ${issue.keys.join(', ')}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      return issue.message !== 'Invalid input' ? issue.message : `must be at least ${String(issue.minimum)}`;
    case 'invalid_union':
      return 'has an invalid value';
    default:
      return issue.message && issue.message !== 'Invalid input' ? issue.message : `is invalid (${issue.code})`;
  }
}

/** Flatten a zod error into `place: message` lines, unknown keys named one by one. */
function issuesByPlace(error: z.core.$ZodError): string[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${placeOf([...issue.path, key]) || key}: unknown field`);
    }
    return [`${placeOf(issue.path) || '(file)'}: ${describeIssue(issue)}`];
  });
}

/** One line per place and problem (a string with two bad runs is named once). */
const textErrors = (problems: TextProblem[]): string[] => [
  ...new Set(
    problems.map((problem) =>
      'byte' in problem
        ? `byte ${problem.byte}: ${problem.message}`
        : `${placeOf(problem.path) || '(file)'}: ${problem.key ? `a field name: ${problem.message}` : problem.message}`,
    ),
  ),
];

/** Elements an array inside a platform, currency or offer record may hold (`previous_slugs`, `reward_assets`, …). */
const RECORD_ARRAY_MAX = 64;
/**
 * The largest platform, currency or offer record, as compact JSON in UTF-8. Each record is stored
 * whole in one item (its rendered document, and its source beside others), and DynamoDB refuses
 * an item over 400 KB: the contract's other bounds alone allow a record of 1.6 MB (64 assets of
 * 2,048-character names), this one keeps every item far below the limit.
 */
const RECORD_MAX_BYTES = 16_384;

const RECORD_FAMILIES = DATASET_FAMILIES.filter((family) => !family.endsWith('_history'));
const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The bounds of each platform, currency and offer record, by place: arrays of at most
 * RECORD_ARRAY_MAX elements at any depth, and at most RECORD_MAX_BYTES of JSON. A record nested
 * too deep is named by the text checks (json-text.ts) and not measured here.
 */
function recordProblems(file: unknown): TextProblem[] {
  if (!isObject(file)) return [];
  const problems: TextProblem[] = [];
  for (const family of RECORD_FAMILIES) {
    const records = file[family];
    if (!Array.isArray(records)) continue;
    records.forEach((record, i) => {
      let tooDeep = false;
      const visit = (node: unknown, path: PropertyKey[], level: number): void => {
        if (node === null || typeof node !== 'object') return;
        if (level > MAX_NESTING) {
          tooDeep = true;
          return;
        }
        const entries = Array.isArray(node)
          ? node.map((value, index) => [index, value] as const)
          : Object.entries(node);
        if (Array.isArray(node) && node.length > RECORD_ARRAY_MAX) {
          problems.push({ path, message: `more than ${RECORD_ARRAY_MAX} elements (${node.length})` });
        }
        for (const [key, value] of entries) visit(value, [...path, key], level + 1);
      };
      // The file is level 1, a family level 2, a record level 3.
      visit(record, [family, i], 3);
      if (tooDeep || !isObject(record)) return;
      const json = JSON.stringify(record);
      const bytes = json.length * 3 <= RECORD_MAX_BYTES ? json.length : Buffer.byteLength(json, 'utf8');
      if (bytes > RECORD_MAX_BYTES) {
        problems.push({
          path: [family, i],
          message: `the record is ${bytes} bytes of JSON, more than ${RECORD_MAX_BYTES}`,
        });
      }
    });
  }
  return problems;
}

function parseWith<S extends z.ZodMiniType>(
  schema: S,
  input: DataFileInput,
  bounds: (value: unknown) => TextProblem[] = () => [],
): z.output<S> {
  const { value, problems } = isBytes(input)
    ? decodeJson(input)
    : { value: input, problems: valueProblems(input, { surrogates: true }) };
  if (value === undefined && problems.length > 0) throw new DataFileError(textErrors(problems));
  const errors = textErrors([...problems, ...bounds(value)]);
  const result = z.safeParse(schema, value, { reportInput: true });
  if (!result.success) errors.push(...issuesByPlace(result.error));
  if (errors.length > 0 || !result.success) throw new DataFileError(errors);
  return result.data;
}

/**
 * A data file as read (its bytes, from a disk or an S3 object: the one way files come in) or a
 * JSON value already in memory (the generated sample, tests). Both are validated alike.
 */
export type DataFileInput = Uint8Array | unknown;

/** Validate a dataset file, its text and shape (cross-record rules are checked by the import). */
export const parseDataset = (input: DataFileInput): Dataset => parseWith(Dataset, input, recordProblems);
export const parseAccounts = (input: DataFileInput): AccountsFile => parseWith(AccountsFile, input);
