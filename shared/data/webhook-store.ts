/**
 * The webhook items (docs/data-model.md, "Webhooks"): subscriptions (one partition per offer family,
 * which a publish reads whole), a user's references to them, their secrets (apart: the data API never
 * reads one), the reference APYs of `apy_change`, and the deliveries with their bodies. Every command
 * on them is built here.
 */
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../platform/dynamodb';
import { getItems } from './batch-reader';
import { deleteItems, putItems } from './batch-writer';
import {
  type DeliveryItem,
  decodeDeliveryItem,
  decodeMatchedSubscription,
  decodeReferenceItem,
  decodeSecretItem,
  decodeSubscriptionItem,
  encoded,
  encodeReferences,
  MATCHED_ATTRIBUTES,
  type MatchedSubscription,
  type ReferenceSets,
  type SubscriptionItem,
} from './items/webhook';
import {
  type Key,
  type OfferFamily,
  USER_WEBHOOK_REF_PREFIX,
  userKey,
  userWebhookRefKey,
  webhookDeliveryKey,
  webhookDeliveryPartition,
  webhookFamilyPartition,
  webhookKey,
  webhookReferenceBucket,
  webhookReferenceKey,
  webhookReferencePartition,
  webhookSecretKey,
} from './keys';
import { queryAll } from './query-all';

export type { DeliveryItem, MatchedSubscription, ReferenceSets, SubscriptionItem };

/** A user's subscription count reached its bound (CONTRACT §14: 25 a user). */
export class WebhookLimitError extends Error {
  constructor(readonly limit: number) {
    super(`a user has at most ${limit} webhook subscriptions`);
    this.name = 'WebhookLimitError';
  }
}

/** A family's reference APYs as read (subscription id → offer id → APY; each set as stored), and how many items each bucket held. */
export interface ReferenceBook {
  family: OfferFamily;
  sets: ReferenceSets;
  packed: Map<string, string>;
  parts: Map<number, number>;
}

/** Buckets of a family's references: a publish rewrites the buckets that changed, not every subscription's. */
const REFERENCE_BUCKETS = 256;
/** A bucket's item holds at most this many characters of references (an item is at most 400 KB). */
const REFERENCE_PART_CHARS = 300_000;

/**
 * The bucket of a subscription's references (FNV-1a of its id).
 * @internal (exported for its tests)
 */
export function referenceBucketOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return (h >>> 0) % REFERENCE_BUCKETS;
}

/** Each bucket's entries (subscription id, encoded references) in id order; empty sets dropped. */
function bucketed(sets: Iterable<[string, string]>): Map<number, [string, string][]> {
  const buckets = new Map<number, [string, string][]>();
  for (const [id, refs] of sets) {
    if (refs === '') continue;
    const bucket = referenceBucketOf(id);
    const entries = buckets.get(bucket) ?? [];
    entries.push([id, refs]);
    buckets.set(bucket, entries);
  }
  for (const entries of buckets.values()) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return buckets;
}

const sameEntries = (a: readonly [string, string][], b: readonly [string, string][]): boolean =>
  a.length === b.length && a.every(([id, refs], i) => b[i][0] === id && b[i][1] === refs);

/** A bucket's entries cut into items' `refs` maps by size. */
function partsOf(entries: readonly [string, string][]): Record<string, string>[] {
  const parts: Record<string, string>[] = [];
  let chars = Number.POSITIVE_INFINITY;
  for (const [id, refs] of entries) {
    if (chars + id.length + refs.length > REFERENCE_PART_CHARS) {
      parts.push({});
      chars = 0;
    }
    parts[parts.length - 1][id] = refs;
    chars += id.length + refs.length;
  }
  return parts;
}

export class WebhookStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  // ---- subscriptions ---------------------------------------------------------------------------

  /** Writes a new subscription, its secret and the user's reference to it; refused past `limit` a user. */
  async create(subscription: SubscriptionItem, secret: string, limit: number): Promise<void> {
    const refs = await this.refsOf(subscription.userId);
    if (refs.length >= limit) throw new WebhookLimitError(limit);
    const { id, userId, family, createdAt } = subscription;
    await this.put({ ...webhookSecretKey(id), secret });
    await this.put({ ...webhookKey(family, id), ...encoded('subscription', subscription) });
    await this.put({ ...userWebhookRefKey(userId, id), id, family, createdAt });
  }

  /** Writes the subscriptions of an accounts file whole (idempotent): the file is the truth for what it names. */
  async load(subscriptions: readonly { item: SubscriptionItem; secret: string }[]): Promise<void> {
    const items = subscriptions.flatMap(({ item, secret }) => [
      { ...webhookSecretKey(item.id), secret },
      { ...webhookKey(item.family, item.id), ...encoded('subscription', item) },
      { ...userWebhookRefKey(item.userId, item.id), id: item.id, family: item.family, createdAt: item.createdAt },
    ]);
    await putItems(items, { client: this.client, tableName: this.tableName });
  }

  /** The user's subscriptions, by `created_at` then id. */
  async listForUser(userId: string): Promise<SubscriptionItem[]> {
    const refs = await this.refsOf(userId);
    const found = await this.getMany(refs.map((ref) => webhookKey(ref.family, ref.id)));
    return found
      .map(decodeSubscriptionItem)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** One of the user's subscriptions; undefined when the user has none of that id. */
  async getForUser(userId: string, id: string): Promise<SubscriptionItem | undefined> {
    const ref = await this.get(userWebhookRefKey(userId, id));
    if (!ref) return undefined;
    const item = await this.get(webhookKey(ref.family as OfferFamily, id));
    return item ? decodeSubscriptionItem(item) : undefined;
  }

  async getSubscription(family: OfferFamily, id: string): Promise<SubscriptionItem | undefined> {
    const item = await this.get(webhookKey(family, id));
    return item ? decodeSubscriptionItem(item) : undefined;
  }

  /** Every subscription of a family, what matching reads of it (one Query of its partition); the caller keeps the active ones. */
  async ofFamily(family: OfferFamily): Promise<MatchedSubscription[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ProjectionExpression: MATCHED_ATTRIBUTES.map((name) => `#${name}`).join(','),
      ExpressionAttributeNames: Object.fromEntries(MATCHED_ATTRIBUTES.map((name) => [`#${name}`, name])),
      ExpressionAttributeValues: { ':pk': webhookFamilyPartition(family) },
    });
    return items.map(decodeMatchedSubscription);
  }

  /** Removes a subscription, its secret, its reference APYs and the user's reference. False when the user has none of that id. */
  async remove(userId: string, id: string): Promise<boolean> {
    const subscription = await this.getForUser(userId, id);
    if (!subscription) return false;
    await this.clearReferences(subscription.family, id);
    await this.delete(webhookKey(subscription.family, id));
    await this.delete(webhookSecretKey(id));
    await this.delete(userWebhookRefKey(userId, id));
    return true;
  }

  /**
   * Active again, from what is served now: not sent what it missed, and its references start over
   * (the APYs it sees next are new references). False when the user has none of that id.
   */
  async enable(userId: string, id: string): Promise<SubscriptionItem | undefined> {
    const subscription = await this.getForUser(userId, id);
    if (!subscription) return undefined;
    await this.clearReferences(subscription.family, id);
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: webhookKey(subscription.family, id),
        UpdateExpression: 'SET #status = :active, disabledReason = :null, failingSince = :null',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':active': 'active', ':null': null },
      }),
    );
    return { ...subscription, status: 'active', disabledReason: null, failingSince: null };
  }

  /** Replaces the secret of one of the user's subscriptions. False when the user has none of that id. */
  async rotateSecret(userId: string, id: string, secret: string): Promise<boolean> {
    if (!(await this.getForUser(userId, id))) return false;
    await this.put({ ...webhookSecretKey(id), secret });
    return true;
  }

  async secret(id: string): Promise<string | undefined> {
    const item = await this.get(webhookSecretKey(id));
    return item ? decodeSecretItem(item) : undefined;
  }

  /** An attempt succeeded: the failures' clock stops. */
  async recordSuccess(family: OfferFamily, id: string, at: string): Promise<void> {
    await this.updateExisting(family, id, 'SET lastSuccessAt = :at, failingSince = :null', {
      ':at': at,
      ':null': null,
    });
  }

  /**
   * An attempt failed: when no attempt has succeeded since `disableAfterMs` before `at`, the
   * subscription is disabled with `reason`. Returns the subscription as it now is.
   */
  async recordFailure(
    family: OfferFamily,
    id: string,
    at: string,
    disableAfterMs: number,
    reason: string,
  ): Promise<SubscriptionItem | undefined> {
    const after = await this.updateExisting(
      family,
      id,
      'SET lastFailureAt = :at, failingSince = if_not_exists(failingSince, :at)',
      { ':at': at },
    );
    if (!after) return undefined;
    // failingSince may hold null (a success cleared it): the failures' clock starts now.
    if (after.failingSince === null) {
      return this.updateExisting(family, id, 'SET failingSince = :at', { ':at': at });
    }
    if (after.status !== 'active' || Date.parse(at) - Date.parse(after.failingSince) < disableAfterMs) return after;
    return this.updateExisting(family, id, 'SET #status = :disabled, disabledReason = :reason', {
      ':disabled': 'disabled',
      ':reason': reason,
    });
  }

  // ---- reference APYs ---------------------------------------------------------------------------

  /** The reference APYs of a family's subscriptions (one Query of its partition; nothing stored: an empty book). */
  async references(family: OfferFamily): Promise<ReferenceBook> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': webhookReferencePartition(family) },
    });
    const book: ReferenceBook = { family, sets: new Map(), packed: new Map(), parts: new Map() };
    for (const item of items) {
      const bucket = Number(String(item.SK).slice(1, String(item.SK).indexOf('#')));
      book.parts.set(bucket, (book.parts.get(bucket) ?? 0) + 1);
      for (const [id, refs] of decodeReferenceItem(item)) book.sets.set(id, refs);
      for (const [id, packed] of Object.entries(item.refs as Record<string, string>)) book.packed.set(id, packed);
    }
    return book;
  }

  /**
   * Writes the family's references as `next` has them: only the buckets whose contents differ from
   * the book read, each whole (its parts put, the parts it no longer needs deleted); a set that is
   * the book's own is not encoded again. Returns the buckets written.
   */
  async writeReferences(book: ReferenceBook, next: ReferenceSets): Promise<number> {
    const before = bucketed(book.packed);
    const packed = (id: string, refs: ReadonlyMap<number, string>) =>
      refs === book.sets.get(id) ? book.packed.get(id)! : refs.size === 0 ? '' : encodeReferences(refs);
    const after = bucketed([...next].map(([id, refs]): [string, string] => [id, packed(id, refs)]));
    const puts: Record<string, unknown>[] = [];
    const deletes: Key[] = [];
    let written = 0;
    for (const bucket of new Set([...before.keys(), ...after.keys()])) {
      const entries = after.get(bucket) ?? [];
      if (sameEntries(before.get(bucket) ?? [], entries)) continue;
      written++;
      const parts = partsOf(entries);
      parts.forEach((refs, part) => {
        puts.push({ ...webhookReferenceKey(book.family, bucket, part), refs });
      });
      for (let part = parts.length; part < (book.parts.get(bucket) ?? 0); part++)
        deletes.push(webhookReferenceKey(book.family, bucket, part));
    }
    const options = { client: this.client, tableName: this.tableName };
    await putItems(puts, options);
    await deleteItems(
      deletes.map((key) => ({ ...key })),
      options,
    );
    return written;
  }

  /** Drops one subscription's references (removed, or enabled again: its references start over). */
  private async clearReferences(family: OfferFamily, id: string): Promise<void> {
    const bucket = referenceBucketOf(id);
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :bucket)',
      ExpressionAttributeValues: {
        ':pk': webhookReferencePartition(family),
        ':bucket': webhookReferenceBucket(bucket),
      },
    });
    for (const item of items) {
      if (!Object.hasOwn((item.refs ?? {}) as object, id)) continue;
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { PK: item.PK, SK: item.SK },
          UpdateExpression: 'REMOVE refs.#id',
          ExpressionAttributeNames: { '#id': id },
        }),
      );
    }
  }

  // ---- deliveries -------------------------------------------------------------------------------

  /** New deliveries, pending (a publish's thousands: 16 batches in flight). */
  async putDeliveries(deliveries: readonly DeliveryItem[]): Promise<void> {
    await putItems(deliveries.map(deliveryRecord), { client: this.client, tableName: this.tableName, concurrency: 16 });
  }

  async delivery(subscriptionId: string, id: string): Promise<DeliveryItem | undefined> {
    const item = await this.get(webhookDeliveryKey(subscriptionId, id));
    return item ? deliveryOf(item) : undefined;
  }

  async putDelivery(item: DeliveryItem): Promise<void> {
    await this.put(deliveryRecord(item));
  }

  /** A subscription's deliveries whose id is at least `fromId` (their ids start with their time), newest first. */
  async deliveriesSince(subscriptionId: string, fromId: string): Promise<DeliveryItem[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK >= :from',
      ExpressionAttributeValues: { ':pk': webhookDeliveryPartition(subscriptionId), ':from': fromId },
      ScanIndexForward: false,
    });
    return items.map(deliveryOf);
  }

  // ---- plumbing ---------------------------------------------------------------------------------

  private async refsOf(userId: string): Promise<{ id: string; family: OfferFamily }[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': userKey(userId).PK, ':prefix': USER_WEBHOOK_REF_PREFIX },
    });
    return items.map((item) => ({ id: String(item.id), family: item.family as OfferFamily }));
  }

  private async get(key: Key): Promise<Record<string, unknown> | undefined> {
    const out = await this.client.send(new GetCommand({ TableName: this.tableName, Key: key }));
    return out.Item;
  }

  private async put(item: Record<string, unknown>): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: item }));
  }

  private async delete(key: Key): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: key }));
  }

  private getMany(keys: Key[]): Promise<Record<string, unknown>[]> {
    return getItems(keys, { client: this.client, tableName: this.tableName });
  }

  private async updateExisting(
    family: OfferFamily,
    id: string,
    expression: string,
    values: Record<string, unknown>,
  ): Promise<SubscriptionItem | undefined> {
    try {
      const out = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookKey(family, id),
          UpdateExpression: expression,
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: expression.includes('#status') ? { '#status': 'status' } : undefined,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return decodeSubscriptionItem(out.Attributes);
    } catch (error) {
      // Removed meanwhile: nothing to record.
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}

/** A delivery as stored: its id and subscription are its keys, not repeated in it; a null is left out (it decodes so). */
function deliveryRecord(item: DeliveryItem): Record<string, unknown> {
  const { id, subscriptionId, ...state } = encoded('delivery', item);
  const record: Record<string, unknown> = { ...webhookDeliveryKey(subscriptionId, id) };
  for (const [name, value] of Object.entries(state)) if (value !== null) record[name] = value;
  return record;
}

function deliveryOf(item: Record<string, unknown>): DeliveryItem {
  const partition = webhookDeliveryPartition('');
  const { PK, SK, ...state } = item;
  return decodeDeliveryItem({ ...state, id: SK, subscriptionId: String(PK).slice(partition.length) });
}
