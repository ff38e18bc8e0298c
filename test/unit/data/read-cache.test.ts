import { ReadCache } from '../../../shared/data/read-cache';

const reader = () => {
  let calls = 0;
  const read = (value: unknown) => async () => {
    calls++;
    return value;
  };
  return { read, calls: () => calls };
};

it('reads a key once, then answers from memory', async () => {
  const cache = new ReadCache(1_000_000);
  const { read, calls } = reader();

  expect(await cache.get('a', read({ doc: 'x' }))).toEqual({ doc: 'x' });
  expect(await cache.get('a', read({ doc: 'other' }))).toEqual({ doc: 'x' });
  expect(calls()).toBe(1);
});

it('shares one read between concurrent misses of a key', async () => {
  const cache = new ReadCache(1_000_000);
  const { read, calls } = reader();

  const answers = await Promise.all([cache.get('a', read(1)), cache.get('a', read(2)), cache.get('a', read(3))]);

  expect(answers).toEqual([1, 1, 1]);
  expect(calls()).toBe(1);
});

it('never keeps a failed read', async () => {
  const cache = new ReadCache(1_000_000);
  const { read, calls } = reader();

  await expect(cache.get('a', () => Promise.reject(new Error('throttled')))).rejects.toThrow('throttled');
  expect(await cache.get('a', read('ok'))).toBe('ok');
  expect(calls()).toBe(1);
});

it('stays within its bound, dropping the least recently used entries first', async () => {
  const big = 'x'.repeat(200); // about 464 bytes an entry
  const cache = new ReadCache(1_000);
  const { read, calls } = reader();

  await cache.get('a', read(big));
  await cache.get('b', read(big));
  await cache.get('a', read(big)); // a is now the most recently used
  await cache.get('c', read(big)); // over the bound: b leaves

  expect(cache.stats().bytes).toBeLessThanOrEqual(1_000);
  expect(cache.stats().entries).toBe(2);
  await cache.get('a', read(big));
  expect(calls()).toBe(3);
  await cache.get('b', read(big));
  expect(calls()).toBe(4);
});
