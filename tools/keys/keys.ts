/**
 * The commands of `npm run keys` (scripts/keys.ts is the entry, with the usage): the command line
 * parsed and checked, and each command run on a KeyStore.
 */
import {
  AccountsConflictError,
  type KeyLimits,
  type KeyStore,
  type KeySummary,
  type UserItem,
} from '../../shared/accounts/key-store';
import { DataFileError, parseAccounts } from '../../shared/import/dataset';
import { KEY_LIMIT_MAX, USER_ID_PATTERN, USER_ID_RULE } from '../../shared/platform/account-rules';
import { ENV } from '../../shared/platform/config';
import { ValidationError } from '../../shared/platform/errors';
import { isFileTimestamp } from '../../shared/platform/timestamps';
import { type AccountStores, loadAccounts } from '../../shared/webhooks/manage';
import {
  parseCommandLine as parseCommandLineOf,
  readDataFile,
  TABLE_OPTIONS,
  type TableConnection,
  tableConnection,
  UsageError,
} from '../cli';

const USAGE = `usage: npm run keys -- COMMAND [options]
  create  --user ID [--per-minute N] [--per-month N]
  revoke  --key-id ID --user ID
  list    --user ID
  premium --user ID (--until DATE | --until never | --off)
  load    --accounts FILE   (its users, keys and webhook subscriptions, as npm start loads it)
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

const OPTIONS = {
  user: { type: 'string' },
  'key-id': { type: 'string' },
  'per-minute': { type: 'string' },
  'per-month': { type: 'string' },
  until: { type: 'string' },
  off: { type: 'boolean' },
  accounts: { type: 'string' },
  ...TABLE_OPTIONS,
  pepper: { type: 'string' },
} as const;

export interface Connection extends TableConnection {
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
  const { command, values } = parseCommandLineOf(argv, {
    usage: USAGE,
    options: OPTIONS,
    commands: COMMAND_OPTIONS,
    shared: [...Object.keys(TABLE_OPTIONS), 'pepper'],
    nonEmpty: ['user', 'key-id', 'accounts', 'table', 'endpoint', 'region'],
    hint: (command, missing) =>
      command === 'revoke' && missing.includes('user')
        ? ' (a key is found through its owner: see `list --user ID`)'
        : '',
  });

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
    connection: { ...tableConnection(values, env), pepper: values.pepper ?? env[ENV.keyPepper] ?? '' },
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
 * Loads an accounts file as `npm start` does (shared/webhooks/manage.ts `loadAccounts`): its users,
 * keys and webhook subscriptions, the whole file checked first (nothing is written when it is refused).
 */
export async function loadAccountsCommand(
  stores: AccountStores,
  path: string,
  options: LoadOptions,
): Promise<{ users: number; keys: number; webhooks: number }> {
  try {
    return await loadAccounts(stores, parseAccounts(readDataFile(path)), options);
  } catch (error) {
    const refused =
      error instanceof DataFileError || error instanceof AccountsConflictError
        ? error.errors
        : error instanceof ValidationError
          ? ((error.details?.message as string[] | undefined) ?? [])
          : undefined;
    if (refused) throw new UsageError(`${path} refused, nothing written:\n${refused.join('\n')}`);
    throw error;
  }
}

/** How an accounts file's subscriptions are checked: the table's target rule, now. */
export type LoadOptions = Parameters<typeof loadAccounts>[2];

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

export async function run(
  invocation: Invocation,
  stores: AccountStores,
  print: (line: string) => void,
  options: LoadOptions,
): Promise<void> {
  const store = stores.keys;
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
      const loaded = await loadAccountsCommand(stores, invocation.path, options);
      print(
        `loaded ${loaded.users} user(s), ${loaded.keys} key(s) and ${loaded.webhooks} webhook subscription(s) from ${invocation.path}`,
      );
      return;
    }
  }
}
