/**
 * An import's hold on the lease (import-lease.ts): taken once, then held before every step and
 * every batch write, renewed once half of it has passed (a quick import never renews it: each
 * renewal rewrites the pointer item), so a batch is only sent with at least half the lease ahead.
 * An import that stalled past it and was taken over fails at its renewal, before it writes or
 * deletes more. The lease lasts at least as long as the import may run and a renewal only extends
 * it, so a taken-over ingest function is no longer running.
 */
import { randomUUID } from 'node:crypto';
import type { LeaseStore } from '../data/import-lease';
import type { SnapshotPointer } from '../data/items/pointer';
import type { Clock } from '../platform/clock';

/**
 * How long past a lease's end another import waits before taking it over: room for clocks that disagree.
 * @internal (exported for its tests)
 */
export const TAKEOVER_GRACE_MS = 30_000;

export class LeaseHolder {
  readonly owner = randomUUID();
  private until = 0;
  private held = false;
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly store: LeaseStore,
    private readonly clock: Clock,
    private readonly leaseMs: number,
  ) {}

  /** Take the lease for the versions `writing`, from `startedAt`; the pointer as it was before. */
  async take(writing: string[], startedAt: number): Promise<SnapshotPointer | undefined> {
    this.until = startedAt + this.leaseMs;
    const before = await this.store.acquire(
      { owner: this.owner, until: this.until, writing },
      startedAt - TAKEOVER_GRACE_MS,
    );
    this.held = true;
    return before;
  }

  /** Before a step or a batch write: renewed once half of it has passed (nothing before it is taken). */
  hold(): Promise<void> {
    if (!this.held) return Promise.resolve();
    if (this.renewing) return this.renewing;
    const now = this.clock().getTime();
    if (this.until - now > this.leaseMs / 2) return Promise.resolve();
    this.renewing = this.store
      .renew(this.owner, now + this.leaseMs)
      .then(() => {
        this.until = now + this.leaseMs;
      })
      .finally(() => {
        this.renewing = undefined;
      });
    return this.renewing;
  }

  /** More versions to write (the plan changed under the lease). */
  recordWriting(versions: string[]): Promise<void> {
    return versions.length > 0 ? this.store.recordWriting(this.owner, versions) : Promise.resolve();
  }

  /** End the lease without publishing (a failed import): the next import deletes what it wrote. */
  release(): Promise<void> {
    return this.store.release(this.owner).catch(() => undefined);
  }
}
