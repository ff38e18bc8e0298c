/** The import lease on the pointer item (docs/data-model.md, "Versions and imports"): one import at a time. */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../platform/dynamodb';
import { decodePointer, type ImportLease, type SnapshotPointer } from './items/pointer';
import { pointerKey } from './keys';

/** Another import holds the lease: retry later. */
export class ImportBusyError extends Error {
  constructor(readonly until: number) {
    super(`another import is running (its lease ends at ${new Date(until).toISOString()}); retry later`);
    this.name = 'ImportBusyError';
  }
}

export class LeaseStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** One conditional update of the lease; the pointer as it was before, when `old`. */
  private async update(
    update: string,
    condition: string,
    names: Record<string, string>,
    values: Record<string, unknown>,
    old = false,
  ): Promise<SnapshotPointer | undefined> {
    const out = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: pointerKey(),
        UpdateExpression: update,
        ConditionExpression: condition,
        ExpressionAttributeNames: { '#lease': 'lease', ...names },
        ExpressionAttributeValues: values,
        ...(old ? { ReturnValues: 'ALL_OLD' as const } : {}),
      }),
    );
    return out.Attributes && decodePointer(out.Attributes);
  }

  /**
   * Take the lease unless another import holds an unexpired one; the versions an earlier holder was
   * writing stay listed, for whoever holds it next to delete. Returns the pointer as it was.
   */
  async acquire(lease: ImportLease, now: number): Promise<SnapshotPointer | undefined> {
    try {
      try {
        // An expired lease: take it over, keeping its list.
        return await this.update(
          'SET #lease.#owner = :owner, #lease.#until = :until, #lease.#writing = list_append(#lease.#writing, :writing)',
          '#lease.#until < :now',
          { '#until': 'until', '#owner': 'owner', '#writing': 'writing' },
          { ':owner': lease.owner, ':until': lease.until, ':writing': lease.writing, ':now': now },
          true,
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return await this.update('SET #lease = :lease', 'attribute_not_exists(#lease)', {}, { ':lease': lease }, true);
      }
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const out = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: pointerKey(), ConsistentRead: true }),
      );
      throw new ImportBusyError((out.Item && decodePointer(out.Item).lease?.until) ?? now);
    }
  }

  /** Hold the lease until `until` (a long import renews it between steps); refused if it was taken over. */
  async renew(owner: string, until: number): Promise<void> {
    await this.update(
      'SET #lease.#until = :until',
      '#lease.#owner = :owner',
      { '#owner': 'owner', '#until': 'until' },
      { ':owner': owner, ':until': until },
    );
  }

  /** Record more versions the holder is about to write (when its plan changed under the lease). */
  async recordWriting(owner: string, writing: string[]): Promise<void> {
    await this.update(
      'SET #lease.#writing = list_append(#lease.#writing, :writing)',
      '#lease.#owner = :owner',
      { '#owner': 'owner', '#writing': 'writing' },
      { ':owner': owner, ':writing': writing },
    );
  }

  /** End the lease without publishing (a failed import): expired, with what it was writing, for the next to delete. */
  async release(owner: string): Promise<void> {
    try {
      await this.update(
        'SET #lease.#until = :ended',
        '#lease.#owner = :owner',
        { '#owner': 'owner', '#until': 'until' },
        { ':owner': owner, ':ended': 0 },
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
