/**
 * The local stage's delivery queue (docs/adr/0028-webhook-delivery.md): messages held in memory
 * until the injected clock reaches their time, then run by the same handler the deployed sending
 * function runs. Tests move the clock and drain; `npm start` drains on a timer.
 */
import type { DeliveryMessage, DeliveryQueue } from '../shared/webhooks/queue';

/** A handler that throws leaves its message for this long, as SQS's visibility timeout does. */
const RETRY_AFTER_ERROR_MS = 5_000;

export class InProcessQueue implements DeliveryQueue {
  /** No bound: a delay is taken in one hop. */
  readonly maxDelaySeconds = Number.POSITIVE_INFINITY;
  private pending: { due: number; message: DeliveryMessage }[] = [];

  constructor(private readonly clock: () => Date) {}

  async send(messages: readonly DeliveryMessage[], delaySeconds: number): Promise<void> {
    const due = this.clock().getTime() + delaySeconds * 1000;
    for (const message of messages) this.pending.push({ due, message });
  }

  get size(): number {
    return this.pending.length;
  }

  /** When the earliest message is due (epoch ms), if any. */
  nextDue(): number | undefined {
    return this.pending.length === 0 ? undefined : Math.min(...this.pending.map((p) => p.due));
  }

  /** Runs every message due now (concurrently: a slow receiver holds up no other), and those they send back due now. */
  async drain(handle: (message: DeliveryMessage) => Promise<unknown>): Promise<number> {
    let ran = 0;
    for (;;) {
      const now = this.clock().getTime();
      const due = this.pending.filter((p) => p.due <= now);
      if (due.length === 0) return ran;
      this.pending = this.pending.filter((p) => p.due > now);
      ran += due.length;
      await Promise.all(
        due.map(({ message }) =>
          handle(message).catch(() => this.pending.push({ due: now + RETRY_AFTER_ERROR_MS, message })),
        ),
      );
    }
  }
}
