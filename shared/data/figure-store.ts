/**
 * Reads of the APY figure state (docs/adr/0015-apy-figures.md): its chunks, and the stored history
 * it is seeded from once; counted, so an import reports what its figures cost (ImportResult.figures).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SeriesResolution } from '../model/history-series';
import { getByContent } from './batch-reader';
import { eachBatch } from './batches';
import { servedPoints } from './history-store';
import { decodeFigureChunk, type FigureLine } from './items/figure-chunk';
import { decodeHistory } from './items/history';
import { documentBlockKey, type HistoryFamily, historyPartition, historySortKey } from './keys';
import { queryAll } from './query-all';

/** The last instant of year 9999 (the latest a data file's timestamp may be): every stored time is before it. */
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export type FigureCounts = FigureStore['counts'];

export class FigureStore {
  readonly counts = { itemsRead: 0, itemsWritten: 0 };

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly options: { concurrency?: number } = {},
  ) {}

  private get batch() {
    return { client: this.client, tableName: this.tableName, concurrency: this.options.concurrency ?? 8 };
  }

  /** The lines of the chunks `hashes` of `family`, by hash; one missing or that does not decode is corrupt. */
  async read(family: string, hashes: readonly string[]): Promise<Map<string, FigureLine[]>> {
    const wanted = [...new Set(hashes)];
    const items = await getByContent(wanted.map(documentBlockKey), { ...this.batch, projection: ['PK', 'z'] });
    this.counts.itemsRead += items.size;
    return new Map(wanted.map((hash) => [hash, decodeFigureChunk(hash, family, items.get(documentBlockKey(hash).PK))]));
  }

  /**
   * The seed of a family's figure state: for each offer of `ids`, the points of each series of
   * `resolutions` from `from` on, as the pointer publishing `published` serves them (a Query each).
   */
  async seed(
    family: HistoryFamily,
    resolutions: readonly SeriesResolution[],
    ids: readonly number[],
    from: number,
    published: number,
  ): Promise<FigureLine[]> {
    const lines: FigureLine[] = [];
    await eachBatch([...ids], 1, this.options.concurrency ?? 8, async ([id]) => {
      for (const resolution of resolutions) {
        const items = await queryAll(this.client, {
          TableName: this.tableName,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: {
            ':pk': historyPartition(family, id),
            ':from': historySortKey(resolution, from),
            ':to': historySortKey(resolution, LATEST_MS),
          },
        });
        this.counts.itemsRead += items.length;
        for (const [time, apy, , at] of servedPoints(items.map(decodeHistory), published))
          if (time >= from) lines.push([id, at, apy]);
      }
    });
    return lines;
  }
}
