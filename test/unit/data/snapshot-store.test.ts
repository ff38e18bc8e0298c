/**
 * The cached pointer refreshed ahead (shared/data/snapshot-store.ts): from half of its time a
 * request is answered from it and reads it again beside the answer, outside its accounting; the new
 * versions are built (`prepare`) before the new pointer is cached; a request past the cache's time
 * waits for the read; a failed read ahead leaves the cached pointer serving until it expires, and
 * no other read ahead is tried before.
 */
import type { SnapshotPointer } from '../../../shared/data/items/pointer';
import type { PointerStore } from '../../../shared/data/pointer-store';
import { type ServedVersions, SnapshotStore } from '../../../shared/data/snapshot-store';
import { recordIndexDelta, withRequestAccounting } from '../../../shared/platform/dynamo-accounting';
import { setLogSink } from '../../../shared/platform/logger';

const CACHE_MS = 10_000;
const pointerOf = (version: string): Pick<SnapshotPointer, 'families' | 'retired' | 'historySeq'> => ({
  families: { earn_offers: { version, segments: 1, publishedAt: '2026-11-26T00:00:00.000Z' } },
  retired: [],
  historySeq: 0,
});
const servedEarn = (versions: ServedVersions) => versions.served.earn?.version;

/** A pointer store whose stored pointer the test sets, counting its reads; a read fails while `failing`. */
function fakePointer() {
  const state = { stored: pointerOf('v1'), reads: 0, failing: false };
  const store = {
    served: async () => {
      state.reads++;
      if (state.failing) throw new Error('throttled');
      return state.stored;
    },
  } as unknown as PointerStore;
  return { state, store };
}

function setup() {
  let now = 0;
  const { state, store } = fakePointer();
  const prepared: (string | undefined)[] = [];
  const snapshot = new SnapshotStore(
    store,
    CACHE_MS,
    () => now,
    async (next) => {
      prepared.push(servedEarn(next));
      // As the index store counts a delta it applies: in the scope of whoever runs it.
      recordIndexDelta();
    },
  );
  return { state, snapshot, prepared, advance: (ms: number) => (now += ms) };
}

let lines: string[] = [];
beforeEach(() => {
  lines = [];
  setLogSink((line) => lines.push(line));
});
afterAll(() => setLogSink(() => undefined));

describe('the snapshot pointer refreshed ahead', () => {
  it('is read once within half its time, whatever the requests', async () => {
    const { state, snapshot, prepared, advance } = setup();
    expect(servedEarn(await snapshot.versions())).toBe('v1');
    state.stored = pointerOf('v2');
    advance(CACHE_MS / 2 - 1);
    for (let i = 0; i < 3; i++) expect(servedEarn(await snapshot.versions())).toBe('v1');
    await snapshot.settled();
    expect({ reads: state.reads, prepared }).toEqual({ reads: 1, prepared: [] });
  });

  it('from half its time answers from the cached pointer, reads it beside the request outside its accounting, and serves the new versions once they are prepared', async () => {
    const { state, snapshot, prepared, advance } = setup();
    await snapshot.versions();
    state.stored = pointerOf('v2');
    advance(CACHE_MS / 2);
    // Two concurrent requests: the cached pointer for both, and one read. The first one's scope stays
    // open until the read ahead is done: what the read did is not counted in it.
    const [{ result, accounting }, other] = await Promise.all([
      withRequestAccounting(async () => {
        const versions = await snapshot.versions();
        await snapshot.settled();
        return versions;
      }),
      snapshot.versions(),
    ]);
    expect([servedEarn(result), servedEarn(other)]).toEqual(['v1', 'v1']);
    expect({ reads: state.reads, prepared }).toEqual({ reads: 2, prepared: ['v2'] });
    expect(servedEarn(await snapshot.versions())).toBe('v2');
    // The read ahead was no request's: the request's scope saw none of it.
    expect(accounting.summary()).toMatchObject({ indexLoads: 0, indexDeltas: 0 });
  });

  it('caches the new pointer from when it was read: past that time a request reads it again and waits', async () => {
    const { state, snapshot, advance } = setup();
    await snapshot.versions();
    advance(CACHE_MS / 2);
    await snapshot.versions();
    await snapshot.settled();
    state.stored = pointerOf('v3');
    advance(CACHE_MS);
    expect(servedEarn(await snapshot.versions())).toBe('v3');
    expect(state.reads).toBe(3);
  });

  it('a request past the cache’s time while a read ahead runs waits for that read, and no other starts', async () => {
    let now = 0;
    const { state, store } = fakePointer();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const snapshot = new SnapshotStore(
      store,
      CACHE_MS,
      () => now,
      () => gate,
    );
    await snapshot.versions();
    state.stored = pointerOf('v2');
    now = CACHE_MS / 2;
    expect(servedEarn(await snapshot.versions())).toBe('v1');
    now = CACHE_MS + 1;
    const waiting = snapshot.versions();
    release();
    expect(servedEarn(await waiting)).toBe('v2');
    expect(state.reads).toBe(2);
  });

  it('a read ahead that fails is logged, and no other is tried: the cached pointer serves until its time, and the request after reads it', async () => {
    const { state, snapshot, advance } = setup();
    await snapshot.versions();
    state.failing = true;
    advance(CACHE_MS / 2);
    expect(servedEarn(await snapshot.versions())).toBe('v1');
    await snapshot.settled();
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 'warn', message: 'pointer not refreshed ahead', error: 'throttled' }),
    ]);
    // Still within its time: the cached pointer answers, and the failing table is not asked again.
    for (let i = 0; i < 3; i++) expect(servedEarn(await snapshot.versions())).toBe('v1');
    await snapshot.settled();
    expect(state.reads).toBe(2);
    state.failing = false;
    state.stored = pointerOf('v2');
    advance(CACHE_MS / 2);
    expect(servedEarn(await snapshot.versions())).toBe('v2');
    expect(state.reads).toBe(3);
  });

  it('without a cache time, every request reads the pointer and none is read ahead', async () => {
    const { state, store } = fakePointer();
    const prepared: string[] = [];
    const snapshot = new SnapshotStore(
      store,
      0,
      () => 0,
      async () => void prepared.push('x'),
    );
    for (let i = 0; i < 3; i++) await snapshot.versions();
    expect({ reads: state.reads, prepared }).toEqual({ reads: 3, prepared: [] });
  });
});
