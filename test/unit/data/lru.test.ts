/**
 * The one byte-bounded LRU of the instance's reads of published data (shared/data/lru.ts): the
 * block cache and the index store are both built on it.
 */
import { ByteLru } from '../../../shared/data/lru';

/** A cache sized like the block cache: a value's JSON length in UTF-16, plus 64. */
const cacheOf = (maxBytes: number) =>
  new ByteLru<unknown>({ maxBytes, sizeOf: (value) => 2 * (JSON.stringify(value)?.length ?? 0) + 64 });

const reader = () => {
  let calls = 0;
  const read = (value: unknown) => async () => {
    calls++;
    return value;
  };
  return { read, calls: () => calls };
};

it('reads a key once, then answers from memory', async () => {
  const cache = cacheOf(1_000_000);
  const { read, calls } = reader();

  expect(await cache.get('a', read({ doc: 'x' }))).toEqual({ doc: 'x' });
  expect(await cache.get('a', read({ doc: 'other' }))).toEqual({ doc: 'x' });
  expect(calls()).toBe(1);
});

it('shares one read between concurrent misses of a key', async () => {
  const cache = cacheOf(1_000_000);
  const { read, calls } = reader();

  const answers = await Promise.all([cache.get('a', read(1)), cache.get('a', read(2)), cache.get('a', read(3))]);

  expect(answers).toEqual([1, 1, 1]);
  expect(calls()).toBe(1);
});

it('never keeps a failed read', async () => {
  const cache = cacheOf(1_000_000);
  const { read, calls } = reader();

  await expect(cache.get('a', () => Promise.reject(new Error('throttled')))).rejects.toThrow('throttled');
  expect(await cache.get('a', read('ok'))).toBe('ok');
  expect(calls()).toBe(1);
});

it('stays within its bound, dropping the least recently used entries first', async () => {
  const big = 'x'.repeat(200); // about 464 bytes an entry
  const cache = cacheOf(1_000);
  const { read, calls } = reader();

  await cache.get('a', read(big));
  await cache.get('b', read(big));
  await cache.get('a', read(big)); // a is now the most recently used
  await cache.get('c', read(big)); // over the bound: b leaves

  // Two entries within the bound: a and c answer from memory, b is read again.
  await cache.get('a', read(big));
  await cache.get('c', read(big));
  expect(calls()).toBe(3);
  await cache.get('b', read(big));
  expect(calls()).toBe(4);
});

it('keeps the value just read even when it alone exceeds the bound, until the next read', async () => {
  const cache = cacheOf(100);
  const { read, calls } = reader();

  await cache.get('big', read('x'.repeat(200)));
  await cache.get('big', read('other'));
  expect(calls()).toBe(1);
  await cache.get('small', read(1)); // over the bound: big leaves
  await cache.get('big', read('x'));
  expect(calls()).toBe(3);
});

it('tells each lookup: a miss, then a hit with the bytes kept', async () => {
  const accesses: { hit: boolean; bytes: number }[] = [];
  const cache = new ByteLru<string>({
    maxBytes: 1_000,
    sizeOf: (value) => value.length,
    onAccess: (a) => accesses.push(a),
  });

  await cache.get('a', async () => 'abc');
  await cache.get('a', async () => 'other');

  expect(accesses).toEqual([
    { hit: false, bytes: 0 },
    { hit: true, bytes: 3 },
  ]);
});
