/**
 * The commands of `npm run keys` (scripts/keys.ts is the entry, with the usage): the command line
 * parsed and checked, and each command run on a KeyStore.
 */
import { parseArgs } from 'node:util';
import {
  AccountsConflictError,
  type KeyLimits,
  type KeyStore,
  type KeySummary,
  type UserItem,
} from '../../shared/data/key-store';
import { DataFileError, parseAccounts } from '../../shared/import/dataset';
import { KEY_LIMIT_MAX, USER_ID_PATTERN, USER_ID_RULE } from '../../shared/platform/account-rules';
import { ENV } from '../../shared/platform/config';
import { isFileTimestamp } from '../../shared/platform/timestamps';
import { readDataFile, UsageError } from '../cli';

const USAGE = `usage: npm run keys -- COMMAND [options]
  create  --user ID [--per-minute N] [--per-month N]
  revoke  --key-id ID --user ID
  list    --user ID
  premium --user ID (--until DATE | --until never | --off)
  load    --accounts FILE
options: --table NAME  --endpoint URL  --region REGION  --pepper PEPPER (default: $${ENV.keyPepper})`;

type Command = 'create' | 'revoke' | 'list' | 'premium' | 'load';

/** Options each command takes, besides the connection options. */
const COMMAND_OPTIONS: Record<Command, { required: string[]; optional: string[] }> = {
  create: { required: ['user'], optional: ['per-minute', 'per-month'] },
  revoke: { required: ['key-id', 'user'], optional: [] },
  list: { required: ['user'], optional: [] },
  premium: { required: ['user'], optional: ['until', 'off'] },
  load: { required: ['accounts'], optional: [] },
};

const CONNECTION_OPTIONS = ['table', 'endpoint', 'region', 'pepper'];

const OPTIONS = {
  user: { type: 'string' },
  'key-id': { type: 'string' },
  'per-minute': { type: 'string' },
  'per-month': { type: 'string' },
  until: { type: 'string' },
  off: { type: 'boolean' },
  accounts: { type: 'string' },
  table: { type: 'string' },
  endpoint: { type: 'string' },
  region: { type: 'string' },
  pepper: { type: 'string' },
} as const;

export interface Connection {
  tableName: string;
  endpoint?: string;
  region?: string;
  pepper: string;
}

export type Invocation =
  | { command: 'create'; userId: string; limits: Partial<KeyLimits> }
  | { command: 'revoke'; userId: string; keyId: string }
  | { command: 'list'; userId: string }
  | { command: 'premium'; userId: string; until: string | null | false }
  | { command: 'load'; path: string };

function positiveInteger(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  // The bound of an accounts file's limits: 15 digits at most, so RateLimit values stay RFC 9651 integers.
  if (!/^[1-9]\d*$/.test(raw) || Number(raw) > KEY_LIMIT_MAX)
    throw new UsageError(`--${name} must be a positive integer of at most 15 digits, got "${raw}"`);
  return Number(raw);
}

/** `--until`: a date (midnight UTC) or an ISO 8601 UTC timestamp, normalized; `never`: no end. */
function parseUntil(raw: string): string | null {
  if (raw === 'never') return null;
  const full = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw;
  // The rule of an accounts file's premium_until: a real instant (no 2026-02-30, no T24:00) in years 1970-9999.
  if (!isFileTimestamp(full)) {
    throw new UsageError(
      `--until must be a date (2026-12-31), an ISO 8601 UTC timestamp (2026-12-31T23:59:59Z) or "never", got "${raw}"`,
    );
  }
  return new Date(Date.parse(full)).toISOString();
}

/** Parse the command line; a UsageError (exit 2) names what is wrong. */
export function parseCommandLine(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): { invocation: Invocation; connection: Connection } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const command = positionals[0] as Command | undefined;
  if (positionals.length !== 1 || !command || !(command in COMMAND_OPTIONS)) {
    throw new UsageError(positionals.length === 0 ? USAGE : `unknown command "${positionals.join(' ')}"\n${USAGE}`);
  }
  const allowed = COMMAND_OPTIONS[command];
  const given = Object.keys(values);
  const extra = given.filter(
    (name) => ![...allowed.required, ...allowed.optional, ...CONNECTION_OPTIONS].includes(name),
  );
  if (extra.length > 0)
    throw new UsageError(`${command} does not take ${extra.map((name) => `--${name}`).join(', ')}\n${USAGE}`);
  const missing = allowed.required.filter((name) => values[name as keyof typeof values] === undefined);
  if (missing.length > 0) {
    const hint =
      command === 'revoke' && missing.includes('user')
        ? ' (a key is found through its owner: see `list --user ID`)'
        : '';
    throw new UsageError(`${command} needs ${missing.map((name) => `--${name}`).join(', ')}${hint}\n${USAGE}`);
  }
  for (const name of ['user', 'key-id', 'accounts', 'table', 'endpoint', 'region'] as const) {
    if (values[name] === '') throw new UsageError(`--${name} must not be empty`);
  }

  const userId = values.user ?? '';
  // The rule of an accounts file's user ids, so the command line stores no id a file could not name.
  if (values.user !== undefined && !USER_ID_PATTERN.test(userId))
    throw new UsageError(`--user ${USER_ID_RULE}, got "${userId.slice(0, 140)}"`);
  let invocation: Invocation;
  switch (command) {
    case 'create': {
      const perMinute = positiveInteger('per-minute', values['per-minute']);
      const perMonth = positiveInteger('per-month', values['per-month']);
      invocation = {
        command,
        userId,
        limits: { ...(perMinute !== undefined ? { perMinute } : {}), ...(perMonth !== undefined ? { perMonth } : {}) },
      };
      break;
    }
    case 'revoke':
      invocation = { command, userId, keyId: values['key-id']! };
      break;
    case 'list':
      invocation = { command, userId };
      break;
    case 'premium':
      if ((values.until === undefined) === (values.off !== true))
        throw new UsageError(`premium needs exactly one of --until DATE and --off\n${USAGE}`);
      invocation = { command, userId, until: values.off ? false : parseUntil(values.until!) };
      break;
    case 'load':
      invocation = { command, path: values.accounts! };
      break;
  }
  return {
    invocation,
    connection: {
      tableName: values.table ?? env[ENV.tableName] ?? 'market-data',
      endpoint: values.endpoint,
      region: values.region,
      pepper: values.pepper ?? env[ENV.keyPepper] ?? '',
    },
  };
}

// ---- the commands (tests call these directly) ------------------------------------------------

/** @internal (exported for its tests) */
export interface CreatedKey {
  keyId: string;
  secret: string;
  /** The owner as stored, if any: a key of a user without a subscription answers 403. */
  user: UserItem | undefined;
}

/** @internal (exported for its tests) */
export async function createKeyCommand(
  store: KeyStore,
  userId: string,
  limits: Partial<KeyLimits> = {},
): Promise<CreatedKey> {
  const { keyId, secret } = await store.createKey(userId, limits);
  return { keyId, secret, user: await store.getUser(userId) };
}

/** @internal (exported for its tests) */
export async function revokeKeyCommand(store: KeyStore, userId: string, keyId: string): Promise<void> {
  if (!(await store.revokeKey(userId, keyId))) throw new Error(`user "${userId}" has no key ${keyId}`);
}

/** @internal (exported for its tests) */
export async function listKeysCommand(
  store: KeyStore,
  userId: string,
): Promise<{ user: UserItem | undefined; keys: KeySummary[] }> {
  const [user, keys] = await Promise.all([store.getUser(userId), store.listKeys(userId)]);
  return { user, keys };
}

/** @internal (exported for its tests) */
export const premiumCommand = (store: KeyStore, userId: string, until: string | null | false): Promise<UserItem> =>
  store.setPremium(userId, until);

/**
 * Validate the whole file first (nothing is written when it is refused), then write it.
 * @internal (exported for its tests)
 */
export async function loadAccountsCommand(store: KeyStore, path: string): Promise<{ users: number; keys: number }> {
  try {
    return await store.loadAccounts(parseAccounts(readDataFile(path)));
  } catch (error) {
    if (error instanceof DataFileError || error instanceof AccountsConflictError) {
      throw new UsageError(`${path} refused, nothing written:\n${error.errors.join('\n')}`);
    }
    throw error;
  }
}

// ---- output -----------------------------------------------------------------------------------

const describeUser = (user: UserItem | undefined, now: Date): string =>
  !user
    ? 'no such user (its keys answer 403 until `premium --user ID --until …`)'
    : !user.premium
      ? 'no premium subscription'
      : user.premiumUntil === null
        ? 'premium, no end date'
        : `premium until ${user.premiumUntil}${Date.parse(user.premiumUntil) <= now.getTime() ? ' (expired)' : ''}`;

const limitText = (value: number | undefined) => (value === undefined ? 'default' : String(value));

function formatKeyTable(keys: KeySummary[]): string[] {
  const rows = [
    ['KEY ID', 'STATE', 'PER MINUTE', 'PER MONTH', 'CREATED'],
    ...keys.map((key) => [
      key.keyId,
      key.revoked ? 'revoked' : 'active',
      limitText(key.perMinute),
      limitText(key.perMonth),
      key.createdAt,
    ]),
  ];
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd(),
  );
}

export async function run(invocation: Invocation, store: KeyStore, print: (line: string) => void): Promise<void> {
  switch (invocation.command) {
    case 'create': {
      const created = await createKeyCommand(store, invocation.userId, invocation.limits);
      print(
        `created key ${created.keyId} for user ${invocation.userId} (per minute: ${limitText(invocation.limits.perMinute)}, per month: ${limitText(invocation.limits.perMonth)})`,
      );
      print(`user ${invocation.userId}: ${describeUser(created.user, store.now())}`);
      print('API key (shown once; only its hash is stored):');
      print(created.secret);
      return;
    }
    case 'revoke':
      await revokeKeyCommand(store, invocation.userId, invocation.keyId);
      print(
        `revoked key ${invocation.keyId} of user ${invocation.userId} (cached authorizer answers may last until their TTL ends)`,
      );
      return;
    case 'list': {
      const { user, keys } = await listKeysCommand(store, invocation.userId);
      print(`user ${invocation.userId}: ${describeUser(user, store.now())}`);
      if (keys.length === 0) print('no keys');
      else formatKeyTable(keys).forEach((line) => print(line));
      return;
    }
    case 'premium': {
      const user = await premiumCommand(store, invocation.userId, invocation.until);
      print(`user ${user.userId}: ${describeUser(user, store.now())}`);
      return;
    }
    case 'load': {
      const loaded = await loadAccountsCommand(store, invocation.path);
      print(`loaded ${loaded.users} user(s) and ${loaded.keys} key(s) from ${invocation.path}`);
      return;
    }
  }
}
