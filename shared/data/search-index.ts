/**
 * What a search reads of a platform or currency version (docs/api.md, "Search"; ADR 0027): every
 * exposed record's slug, name, symbol and former slugs, in the family's list order. The import
 * derives it from the version it writes (its index and documents) and stores it as chunks beside
 * the version's document blocks, named by the version's manifest like them: written, kept and
 * deleted with the version. An instance reads a version's chunks once, on its first search; after
 * that, the pointer refreshed ahead (snapshot-store.ts, ADR 0019) reads a new version's chunks of
 * each family it has searched before a request names the version (`prepare`).
 *
 * A chunk (`DOC#S.<version>.<part>`, keys.ts `searchChunkName`) is stored in the block format
 * (items/document-block.ts: raw deflate, one JSON text a line): its first line `[version, part,
 * parts]`, then one `[slug, name, symbol, [former slugs]]` a record.
 */

import { inflateRawSync } from 'node:zlib';
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { CorruptDataError } from '../platform/errors';
import type { VersionContent } from './family-index';
import { cut, inflated, parsed } from './items/content';
import { documentBlockKey, searchChunkName, type VersionedFamily } from './keys';

/**
 * One record as a search sees it.
 * @internal (exported for its tests)
 */
export interface SearchRecord {
  slug: string;
  name: string;
  /** Currencies' symbol; null for platforms. */
  symbol: string | null;
  /** Its former slugs: a search for one finds the record under its current slug. */
  former: readonly string[];
}

/** A version's records, in its family's list order (docs/api.md, "Orderings"). */
export type SearchRecords = readonly SearchRecord[];

const isString = (value: unknown): value is string => typeof value === 'string';

/**
 * The search chunks of a version (none for an offer version): its exposed records, from its index
 * (slugs, list order, former slugs) and its documents (name, symbol), in list order.
 */
function searchChunks(version: string, content: VersionContent): { hash: string; docs: string[] }[] {
  const { index } = content;
  if (index.kind !== 'catalog') return [];
  const docsOf = new Map(content.blocks.map((b) => [b.hash, b.docs]));
  const former = new Map<string, string[]>();
  for (const [slug, current] of Object.entries(index.redirects)) {
    const list = former.get(current);
    if (list) list.push(slug);
    else former.set(current, [slug]);
  }
  const lines = index.order.map((entry) => {
    const slug = index.slugs[entry];
    // Every entry's document is in one of the version's blocks, and every platform and currency has a name.
    const doc = docsOf.get(index.blocks[index.block[entry]])![index.slot[entry]];
    const { name, symbol } = JSON.parse(doc) as { name: string; symbol?: unknown };
    return JSON.stringify([slug, name, isString(symbol) ? symbol : null, (former.get(slug) ?? []).sort()]);
  });
  const groups = cut(lines);
  const parts = Math.max(groups.length, 1);
  return Array.from({ length: parts }, (_, part) => ({
    hash: searchChunkName(version, part),
    docs: [JSON.stringify([version, part, parts]), ...(groups[part] ?? [])],
  }));
}

/** A version as the import writes it, with its search chunks among its blocks (none for offers). */
export const withSearchChunks = (version: string, content: VersionContent): VersionContent => ({
  ...content,
  blocks: [...content.blocks, ...searchChunks(version, content)],
});

const LINE_SEPARATOR = '\n';

/** A chunk's records, checked to be the part of the version its key names; and how many parts the version has. */
function decodeChunk(version: string, part: number, item: Record<string, unknown>) {
  const what = `search chunk ${part} of version ${version}`;
  const [head, ...lines] = inflated(item, what, (bytes) => inflateRawSync(bytes))
    .toString('utf8')
    .split(LINE_SEPARATOR);
  const header = parsed(head, what);
  if (!Array.isArray(header) || header[0] !== version || header[1] !== part || !Number.isInteger(header[2]))
    throw new CorruptDataError(`${what} is not the chunk its key names`);
  const records = lines.map((line): SearchRecord => {
    const value = parsed(line, what);
    if (
      !Array.isArray(value) ||
      !isString(value[0]) ||
      !isString(value[1]) ||
      !(value[2] === null || isString(value[2])) ||
      !Array.isArray(value[3]) ||
      !value[3].every(isString)
    )
      throw new CorruptDataError(`${what} holds a malformed record`);
    return { slug: value[0], name: value[1], symbol: value[2], former: value[3] };
  });
  return { records, parts: header[2] as number };
}

/** How many versions' records an instance keeps: a few of each of the four families. */
const KEPT_VERSIONS = 8;

/**
 * The records of the versions a search names, read once per version and kept (the most recently
 * asked for last, at most KEPT_VERSIONS). Read by key: the first chunk, then the others together.
 * The pointer refreshed ahead prepares the new version of each family this instance searches.
 */
export class SearchStore {
  private readonly kept = new Map<string, Promise<SearchRecords | undefined>>();
  /** The version of each family a search last named: the families this instance searches. */
  private readonly current = new Map<VersionedFamily, string>();
  /** What is derived from a version's records before a search names it (the search's lookup). */
  private derive: ((records: SearchRecords) => void) | undefined;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * A version's records; undefined for a version written before versions carried them (ADR 0027).
   * `family`: the version's, so that the pointer read ahead prepares that family's next version.
   */
  records(version: string, family?: VersionedFamily): Promise<SearchRecords | undefined> {
    if (family) this.current.set(family, version);
    let records = this.kept.get(version);
    if (records) this.kept.delete(version);
    else {
      records = this.read(version);
      records.catch(() => this.kept.delete(version));
    }
    this.kept.set(version, records);
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= KEPT_VERSIONS) break;
      this.kept.delete(oldest);
    }
    return records;
  }

  /** Derive this from each version the pointer read ahead prepares (set by the search's routes). */
  deriveAhead(derive: (records: SearchRecords) => void): void {
    this.derive = derive;
  }

  /**
   * Read, before a search names them, the records of the new versions `next` names for the
   * families this instance has searched (the pointer refreshed ahead), and derive from them. A
   * failure is left to the search that names the version, which reads it itself.
   */
  async prepare(next: Partial<Record<VersionedFamily, { version: string }>>): Promise<void> {
    const reads = [...this.current].flatMap(([family, version]) => {
      const to = next[family]?.version;
      if (to === undefined || to === version || this.kept.has(to)) return [];
      return [
        this.records(to).then((records) => {
          if (records) this.derive?.(records);
        }),
      ];
    });
    await Promise.allSettled(reads);
  }

  private async read(version: string): Promise<SearchRecords | undefined> {
    const first = await this.chunk(version, 0);
    if (first === undefined) return undefined;
    const { records, parts } = decodeChunk(version, 0, first);
    const rest = await Promise.all(
      Array.from({ length: parts - 1 }, async (_, i) => {
        const item = await this.chunk(version, i + 1);
        if (item === undefined) throw new CorruptDataError(`search chunk ${i + 1} of version ${version} is missing`);
        return decodeChunk(version, i + 1, item).records;
      }),
    );
    return Object.freeze([...records, ...rest.flat()]);
  }

  /** A chunk, or undefined; written before the pointer named its version, so read again consistently when not found. */
  private async chunk(version: string, part: number): Promise<Record<string, unknown> | undefined> {
    const get = async (consistent: boolean) =>
      (
        await this.client.send(
          new GetCommand({
            TableName: this.tableName,
            Key: documentBlockKey(searchChunkName(version, part)),
            ConsistentRead: consistent,
          }),
        )
      ).Item;
    return (await get(false)) ?? (await get(true));
  }
}
