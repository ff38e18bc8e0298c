/**
 * Work done in steps: a generator that yields between them. Run whole (`finished`), or with the
 * event loop turning between steps (`finishedBetween`), so that whatever else the instance is doing
 * (a request's reads coming back, its answer being sent) waits at most one step behind it: the
 * index a pointer read ahead builds beside a request (docs/adr/0019-pointer-refreshed-ahead.md).
 */
export type Steps<T> = Generator<void, T, undefined>;

/** The result of `steps`, run to the end at once. */
export function finished<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The result of `steps`, the event loop turning (its I/O and timers served) between each two. */
export async function finishedBetween<T>(steps: Steps<T>): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    await turn();
  }
}
