/**
 * The one byte-bounded cache of the instance's reads of published data: a version's index
 * (index-store.ts) and document blocks (document-store.ts). What it holds never changes once
 * published (every key names its version or its content's hash), so an entry never goes stale:
 * there is nothing to invalidate, only a memory bound to keep. The least recently used entries
 * leave first, never the one just read (an entry larger than the whole bound stays until the next
 * read). Concurrent misses of one key share one read; a failed read is never kept.
 */

interface Entry<V> {
  value: Promise<V>;
  /** 0 while it is being read. */
  bytes: number;
}

export interface LruOptions<V> {
  maxBytes: number;
  /** What a value is estimated to hold in memory. */
  sizeOf: (value: V) => number;
  /** Told of every lookup: a hit (with the entry's bytes) or a miss. */
  onAccess?: (access: { hit: boolean; bytes: number }) => void;
}

export class ByteLru<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;

  constructor(private readonly options: LruOptions<V>) {}

  /** The kept value of `key`, or the result of `read`, kept within the bound. */
  async get(key: string, read: () => Promise<V>): Promise<V> {
    const found = this.entries.get(key);
    if (found) {
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(key);
      this.entries.set(key, found);
      this.options.onAccess?.({ hit: true, bytes: found.bytes });
      return found.value;
    }
    this.options.onAccess?.({ hit: false, bytes: 0 });
    const entry: Entry<V> = { value: read(), bytes: 0 };
    this.entries.set(key, entry);
    try {
      const value = await entry.value;
      if (this.entries.get(key) === entry) {
        entry.bytes = this.options.sizeOf(value);
        this.bytes += entry.bytes;
        this.evict(key);
      }
      return value;
    } catch (error) {
      // A failed read is never kept: the next request tries again.
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw error;
    }
  }

  /** Whether `key` is kept or being read (a batch reader asks before it reads the missing ones together). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Least recently used first, never the one just read nor one still being read. */
  private evict(read: string): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.options.maxBytes) return;
      if (key === read || entry.bytes === 0) continue;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
  }
}
