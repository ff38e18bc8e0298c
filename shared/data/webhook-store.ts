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
  decodeReferenceItem,
  decodeSecretItem,
  decodeSubscriptionItem,
  encoded,
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
  webhookReferenceKey,
  webhookSecretKey,
} from './keys';
import { queryAll } from './query-all';

export type { DeliveryItem, SubscriptionItem };

/** A user's subscription count reached its bound (CONTRACT §14: 25 a user). */
export class WebhookLimitError extends Error {
  constructor(readonly limit: number) {
    super(`a user has at most ${limit} webhook subscriptions`);
    this.name = 'WebhookLimitError';
  }
}

/** A subscription's reference APYs to write whole, by offer id. */
export interface ReferenceWrite {
  subscriptionId: string;
  refs: ReadonlyMap<number, string>;
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

  /** Every subscription of a family (one Query of its partition); the caller keeps the active ones. */
  async ofFamily(family: OfferFamily): Promise<SubscriptionItem[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': webhookFamilyPartition(family) },
    });
    return items.map(decodeSubscriptionItem);
  }

  /** Removes a subscription, its secret, its reference APYs and the user's reference. False when the user has none of that id. */
  async remove(userId: string, id: string): Promise<boolean> {
    const subscription = await this.getForUser(userId, id);
    if (!subscription) return false;
    await this.clearReferences(id);
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
    await this.clearReferences(id);
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

  /** The reference APYs stored for these subscriptions (one item each), by subscription id; none stored: absent. */
  async references(subscriptionIds: readonly string[]): Promise<Map<string, Map<number, string>>> {
    const items = await this.getMany(subscriptionIds.map((id) => webhookReferenceKey(id)));
    const found = new Map<string, Map<number, string>>();
    for (const item of items) {
      const id = String(item.PK).slice(webhookReferenceKey('').PK.length);
      found.set(id, decodeReferenceItem(item));
    }
    return found;
  }

  /** Writes each subscription's references whole (an empty set deletes its item). */
  async writeReferences(writes: readonly ReferenceWrite[]): Promise<void> {
    const options = { client: this.client, tableName: this.tableName };
    await putItems(
      writes
        .filter((w) => w.refs.size > 0)
        .map((w) => ({
          ...webhookReferenceKey(w.subscriptionId),
          refs: Object.fromEntries([...w.refs].map(([offerId, apy]) => [String(offerId), apy])),
        })),
      options,
    );
    await deleteItems(
      writes.filter((w) => w.refs.size === 0).map((w) => ({ ...webhookReferenceKey(w.subscriptionId) })),
      options,
    );
  }

  private async clearReferences(id: string): Promise<void> {
    await this.delete(webhookReferenceKey(id));
  }

  // ---- deliveries -------------------------------------------------------------------------------

  /** New deliveries, pending. */
  async putDeliveries(deliveries: readonly DeliveryItem[]): Promise<void> {
    await putItems(deliveries.map(deliveryRecord), { client: this.client, tableName: this.tableName });
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

/** A delivery as stored: its id and subscription are its keys, not repeated in it. */
function deliveryRecord(item: DeliveryItem): Record<string, unknown> {
  const { id, subscriptionId, ...state } = encoded('delivery', item);
  return { ...webhookDeliveryKey(subscriptionId, id), ...state };
}

function deliveryOf(item: Record<string, unknown>): DeliveryItem {
  const partition = webhookDeliveryPartition('');
  const { PK, SK, ...state } = item;
  return decodeDeliveryItem({ ...state, id: SK, subscriptionId: String(PK).slice(partition.length) });
}
