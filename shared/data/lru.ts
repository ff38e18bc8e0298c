/**
 * The byte-bounded cache of published data an instance read (indexes, blocks): nothing published
 * changes, so nothing is invalidated. Least recently used first out, never the one just read;
 * concurrent misses of a key share one read; a failed read is never kept.
 */

/** `bytes`: 0 while it is being read. */
interface Entry<V> {
  value: Promise<V>;
  bytes: number;
}

export interface LruOptions<V> {
  maxBytes: number;
  /** What a value is estimated to hold in memory. */
  sizeOf: (value: V) => number;
  /** Told of every lookup: a hit (with the entry's bytes) or a miss. */
  onAccess?: (access: { hit: boolean; bytes: number }) => void;
  /** Whether a value larger than the whole bound is kept until the next read (default) or dropped at once. */
  keepOversized?: boolean;
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
        if (entry.bytes > this.options.maxBytes && this.options.keepOversized === false) this.entries.delete(key);
        else {
          this.bytes += entry.bytes;
          this.evict(key);
        }
      }
      return value;
    } catch (error) {
      // A failed read is never kept: the next request tries again.
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw error;
    }
  }

  /** What the kept values are estimated to hold, bytes. */
  get keptBytes(): number {
    return this.bytes;
  }

  /** Whether `key` is kept or being read (a batch reader asks before it reads the missing ones together). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The kept (or being read) value of `key`, without making it more recently used. */
  peek(key: string): Promise<V> | undefined {
    return this.entries.get(key)?.value;
  }

  /** Removes `key` and gives its value (kept or being read), if any: to move it to another cache. */
  take(key: string): Promise<V> | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    return entry.value;
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
