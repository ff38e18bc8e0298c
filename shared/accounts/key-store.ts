/**
 * API keys and their users (docs/adr/0004-api-keys.md). A key is stored only as a hash of its secret: the key
 * item is addressed by that hash, so authenticating is one GetItem and the secret never touches
 * the table. Each key also has a reference under its user (`list`, `revoke` without a Scan).
 *
 * Every item is decoded, and every whole item written encoded, by its codec (account-items.ts):
 * a key or user item that does not decode throws a CorruptDataError, which the authorizer answers
 * with its failure (503, fail closed, logged), never a 401 or an Allow.
 *
 * This module is in the authorizer's bundle: it imports zod/mini through the codecs, never the
 * import's dataset schema (the accounts file is declared below as a plain type).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { getItems } from '../data/batch-reader';
import { putItems } from '../data/batch-writer';
import { apiKeyKey, USER_KEY_REF_PREFIX, userKey, userKeyRefKey } from '../data/keys';
import { queryAll } from '../data/query-all';
import { API_KEY_FORMAT, API_KEY_RULE, keyIdForHash } from '../platform/account-rules';
import type { Clock } from '../platform/clock';
import { isConditionFailure } from '../platform/dynamodb';
import {
  decodeKeyItem,
  decodeKeyRefItem,
  decodeUserItem,
  encodeKeyItem,
  encodeKeyRefItem,
  encodeUserItem,
  type KeyItem,
  type KeyLimits,
  type UserItem,
} from './account-items';

export type { KeyItem, KeyLimits, UserItem };

/**
 * An accounts file as `parseAccounts` returns it (shared/import/dataset.ts, the import's schema):
 * declared here, in the data layer, which must not import the import; its callers pass the parsed
 * file, so a schema that stops producing this does not compile.
 */
interface AccountsFile {
  readonly users: readonly {
    readonly id: string;
    readonly premium: boolean;
    readonly premium_until?: string | null;
    readonly keys: readonly {
      readonly key: string;
      readonly revoked?: boolean;
      readonly per_minute?: number;
      readonly per_month?: number;
    }[];
  }[];
}

/** Prefix of generated keys: recognizable in leaks and by secret scanners. */
const GENERATED_KEY_PREFIX = 'mdk_';

/** What `list` shows of a key: never its hash or secret. */
export interface KeySummary extends Partial<KeyLimits> {
  keyId: string;
  /** True also when the key item is gone (the key cannot authenticate). */
  revoked: boolean;
  createdAt: string;
}

/** The reads the authorizer needs (tests pass a fake or a store over a mocked client). */
export interface KeyLookup {
  findByKey(secret: string): Promise<KeyItem | undefined>;
  getUser(userId: string): Promise<UserItem | undefined>;
}

/** Cross-record errors of an accounts file (duplicates), by place like DataFileError's. */
export class AccountsConflictError extends Error {
  constructor(readonly errors: string[]) {
    super(`${errors.length} error(s) in the accounts file:\n${errors.join('\n')}`);
    this.name = 'AccountsConflictError';
  }
}

/**
 * createKey with a secret that is already stored (for this or another user).
 * @internal (exported for its tests)
 */
export class KeyExistsError extends Error {
  constructor() {
    super('That API key is already stored.');
    this.name = 'KeyExistsError';
  }
}

/**
 * HMAC-SHA256 of the secret with the pepper, or plain SHA-256 without one; hex.
 * @internal (exported for its tests)
 */
export function hashKey(secret: string, pepper: string): string {
  return pepper
    ? createHmac('sha256', pepper).update(secret).digest('hex')
    : createHash('sha256').update(secret).digest('hex');
}

/**
 * A new secret: 256 random bits, base64url (47 characters with the prefix).
 * @internal (exported for its tests)
 */
export const generateSecret = (): string => `${GENERATED_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;

/** A summary's limits: those the key item holds, no absent one as an undefined property. */
const limitsOf = (item: Partial<KeyLimits>): Partial<KeyLimits> => ({
  ...(item.perMinute !== undefined ? { perMinute: item.perMinute } : {}),
  ...(item.perMonth !== undefined ? { perMonth: item.perMonth } : {}),
});

export class KeyStore implements KeyLookup {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly pepper: string,
    private readonly clock: Clock,
  ) {}

  /** The store's clock: the time its expiries are judged by. */
  now(): Date {
    return this.clock();
  }

  hash(secret: string): string {
    return hashKey(secret, this.pepper);
  }

  async findByKey(secret: string): Promise<KeyItem | undefined> {
    const out = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: apiKeyKey(this.hash(secret)) }),
    );
    // A malformed item throws (CorruptDataError): the authorizer fails closed with a 503.
    return out.Item ? decodeKeyItem(out.Item) : undefined;
  }

  async getUser(userId: string): Promise<UserItem | undefined> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: userKey(userId) }));
    return out.Item ? decodeUserItem(out.Item) : undefined;
  }

  async putUser(user: UserItem): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: encodeUserItem(user) }));
  }

  /** `until`: an ISO 8601 end, `null` for no end, `false` to end the subscription. Creates the user. */
  async setPremium(userId: string, until: string | null | false): Promise<UserItem> {
    const user: UserItem = { userId, premium: until !== false, premiumUntil: until === false ? null : until };
    await this.putUser(user);
    return user;
  }

  /**
   * A new key for the user. The secret is returned once and never stored. A given secret must
   * match the key format, and limits be positive integers (RangeError, before any write); a
   * secret already stored is refused (the conditional put).
   */
  async createKey(
    userId: string,
    limits: Partial<KeyLimits> = {},
    secret: string = generateSecret(),
  ): Promise<{ secret: string; keyId: string }> {
    if (!API_KEY_FORMAT.test(secret)) throw new RangeError(`An API key ${API_KEY_RULE}.`);
    const hash = this.hash(secret);
    const keyId = keyIdForHash(hash);
    const createdAt = this.clock().toISOString();
    const keyItem = encodeKeyItem(hash, {
      keyId,
      userId,
      revoked: false,
      createdAt,
      perMinute: limits.perMinute,
      perMonth: limits.perMonth,
    });
    const refItem = encodeKeyRefItem(userId, { keyId, hash, createdAt });
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: keyItem,
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new KeyExistsError();
      throw error;
    }
    // No transactions in the embedded DynamoDB: write the reference second, undo the key if it fails.
    try {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: refItem }));
    } catch (error) {
      await this.client
        .send(new DeleteCommand({ TableName: this.tableName, Key: apiKeyKey(hash) }))
        .catch(() => undefined);
      throw error;
    }
    return { secret, keyId };
  }

  /** Revoke one of the user's keys. False when the user has no such key. */
  async revokeKey(userId: string, keyId: string): Promise<boolean> {
    const ref = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: userKeyRefKey(userId, keyId) }),
    );
    if (!ref.Item) return false;
    const { hash } = decodeKeyRefItem(ref.Item);
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: apiKeyKey(hash),
          UpdateExpression: 'SET revoked = :true, revokedAt = if_not_exists(revokedAt, :now)',
          ConditionExpression: 'attribute_exists(PK) AND userId = :userId',
          ExpressionAttributeValues: { ':true': true, ':now': this.clock().toISOString(), ':userId': userId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** The user's keys, oldest first: a Query on the user's references, then the key items. */
  async listKeys(userId: string): Promise<KeySummary[]> {
    const refItems = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': userKey(userId).PK, ':prefix': USER_KEY_REF_PREFIX },
    });
    const refs = refItems.map(decodeKeyRefItem);

    const items = await this.getKeyItems(refs.map((ref) => ref.hash));
    return refs
      .map((ref): KeySummary => {
        const item = items.get(ref.hash);
        return item
          ? { keyId: ref.keyId, revoked: item.revoked, createdAt: ref.createdAt, ...limitsOf(item) }
          : { keyId: ref.keyId, revoked: true, createdAt: ref.createdAt };
      })
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
  }

  /**
   * Write the users, keys (hash only) and references of an accounts file. Idempotent: a key's id
   * comes from its hash, so a re-load rewrites the same items. The file is the truth for what it
   * names (a key it lists as not revoked is un-revoked); nothing it does not name is touched.
   */
  async loadAccounts(file: AccountsFile): Promise<{ users: number; keys: number }> {
    const items = accountItems(file, this.pepper, this.clock().toISOString());
    await putItems(items, { client: this.client, tableName: this.tableName });
    return { users: file.users.length, keys: file.users.reduce((n, user) => n + user.keys.length, 0) };
  }

  /** The key items of these hashes that exist, decoded, by hash. */
  private async getKeyItems(hashes: string[]): Promise<Map<string, KeyItem>> {
    const hashOfPartition = new Map(hashes.map((hash) => [apiKeyKey(hash).PK, hash]));
    const items = await getItems(
      hashes.map((hash) => apiKeyKey(hash)),
      { client: this.client, tableName: this.tableName },
    );
    return new Map(items.map((item) => [hashOfPartition.get(item.PK as string) ?? '', decodeKeyItem(item)]));
  }
}

/**
 * The items of an accounts file; duplicate users or keys are refused, named by place.
 * @internal (exported for its tests)
 */
export function accountItems(file: AccountsFile, pepper: string, createdAt: string): Record<string, unknown>[] {
  const errors: string[] = [];
  const userPlaces = new Map<string, string>();
  const keyPlaces = new Map<string, string>();
  const items: Record<string, unknown>[] = [];
  file.users.forEach((user, u) => {
    const place = `users[${u}]`;
    const earlier = userPlaces.get(user.id);
    if (earlier) errors.push(`${place}.id: duplicate of ${earlier}.id`);
    userPlaces.set(user.id, place);
    items.push(encodeUserItem({ userId: user.id, premium: user.premium, premiumUntil: user.premium_until ?? null }));
    user.keys.forEach((key, k) => {
      const keyPlace = `${place}.keys[${k}]`;
      const hash = hashKey(key.key, pepper);
      const earlierKey = keyPlaces.get(hash);
      if (earlierKey) errors.push(`${keyPlace}.key: duplicate of ${earlierKey}.key`);
      keyPlaces.set(hash, keyPlace);
      const keyId = keyIdForHash(hash);
      const keyItem: KeyItem = {
        keyId,
        userId: user.id,
        revoked: key.revoked ?? false,
        createdAt,
        perMinute: key.per_minute,
        perMonth: key.per_month,
      };
      items.push(encodeKeyItem(hash, keyItem), encodeKeyRefItem(user.id, { keyId, hash, createdAt }));
    });
  });
  if (errors.length > 0) throw new AccountsConflictError(errors);
  return items;
}
