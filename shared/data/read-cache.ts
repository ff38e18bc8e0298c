/**
 * What requests read from published snapshots, kept in the function instance. A snapshot never
 * changes once published and every key of it names its version, so an entry can never go stale:
 * there is nothing to invalidate, only a memory bound to keep (least recently used entries leave
 * first). History and the counters are not snapshot data and never pass through here.
 * Concurrent misses of one key share one read. Hits, misses and bytes go to the request metrics.
 */
import { recordCacheAccess } from '../platform/dynamo-accounting';

interface Entry {
  value: Promise<unknown>;
  bytes: number;
}

export interface ReadCacheStats {
  entries: number;
  bytes: number;
  maxBytes: number;
}

/** An estimate of what a read's result holds in memory: the length of its JSON (UTF-16, ×2). */
const sizeOf = (value: unknown): number => 2 * (JSON.stringify(value)?.length ?? 0) + 64;

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** The cached result of `key`, or the result of `read`, kept when it fits the bound. */
  async get<T>(key: string, read: () => Promise<T>): Promise<T> {
    const found = this.entries.get(key);
    if (found) {
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(key);
      this.entries.set(key, found);
      recordCacheAccess({ hit: true, bytes: found.bytes });
      return found.value as Promise<T>;
    }
    recordCacheAccess({ hit: false, bytes: 0 });
    const value = read();
    const entry: Entry = { value, bytes: 0 };
    this.entries.set(key, entry);
    try {
      const result = await value;
      entry.bytes = sizeOf(result);
      if (this.entries.get(key) === entry) {
        this.bytes += entry.bytes;
        this.evict();
      }
      return result;
    } catch (error) {
      // A failed read is never cached: the next request tries again.
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw error;
    }
  }

  /** Whether `key` is kept or being read (a batch reader asks before it reads the missing ones together). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  stats(): ReadCacheStats {
    return { entries: this.entries.size, bytes: this.bytes, maxBytes: this.maxBytes };
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) return;
      if (entry.bytes === 0) continue; // still being read
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
  }
}
