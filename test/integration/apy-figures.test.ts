/**
 * The APY figure state the import keeps (docs/adr/0015-apy-figures.md), on the embedded DynamoDB
 * through the real import: after each of many imports over 36 days (several hours a day, days
 * without an import, history backfills that correct an observation at the same instant, negative
 * borrow APYs, recording on), the figures of every published earn and borrow offer computed from
 * the state its version names equal `apyStats` over every observation the offer has (the file's
 * and the recorded ones, kept by an oracle written from CONTRACT §12): the incremental state
 * answers as the whole history does. An import that fails at its publish leaves no frame the next
 * one sees; a version without figure state is seeded from stored history; an import inside an hour
 * already recorded, with the same records, writes nothing but the refresh time.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { FigureStore } from '../../shared/data/figure-store';
import type { FigureIndex } from '../../shared/data/items/manifest';
import { DATASET_FAMILY_OF, documentBlockKey, type HistoryFamily, pointerKey } from '../../shared/data/keys';
import { VersionWriter } from '../../shared/data/version-writer';
import { type ApyStats, apyStats } from '../../shared/domain/apy-stats';
import { figuresAt } from '../../shared/import/apy-figures';
import { type ImportResult, importDataset, readPointer } from '../../shared/import/importer';
import { HISTORY_FAMILIES, OFFER_FAMILY } from '../../shared/model/offer-families';
import { setLogSink } from '../../shared/platform/logger';
import { fixtureDataset, NOW } from '../fixtures/dataset';
import { startTestTable, type TestTable } from '../helpers/embedded';
import { flakyClient } from '../helpers/faults';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FAMILIES = ['earn', 'borrow'] as const;
/** The field a family's history records as its APY (the declaration's `apy` role). */
const APY_FIELD = Object.fromEntries(
  HISTORY_FAMILIES.map((family) => [family, (OFFER_FAMILY[family].fields as { apy: string }).apy]),
) as Record<HistoryFamily, string>;

/** CONTRACT §12 as a model: every observation of each offer (file and recorded), and each family's recorded hour. */
class Oracle {
  readonly series = new Map<string, Map<number, string>>();
  private readonly recordedHour = new Map<HistoryFamily, number>();

  private of(family: HistoryFamily, id: number) {
    const key = `${family}:${id}`;
    if (!this.series.has(key)) this.series.set(key, new Map());
    return this.series.get(key)!;
  }

  import(file: any, at: number): void {
    for (const family of FAMILIES)
      for (const s of file[`${family}_history`] ?? [])
        for (const p of s.points) this.of(family, s.offer_id).set(Date.parse(p.timestamp), p.apy);
    const hour = Math.floor(at / HOUR) * HOUR;
    for (const family of FAMILIES) {
      const offers = file[`${family}_offers`];
      if (!offers || this.recordedHour.get(family) === hour) continue;
      this.recordedHour.set(family, hour);
      for (const offer of offers) {
        const series = this.of(family, offer.id);
        if (offer.published === false || [...series.keys()].some((ms) => ms >= hour && ms < hour + HOUR)) continue;
        series.set(at, offer[APY_FIELD[family]]);
      }
    }
  }

  /** §13's figures of each published offer of `file` at `t`, from all its observations. */
  figures(family: HistoryFamily, file: any, t: number): Map<number, ApyStats> {
    return new Map(
      (file[`${family}_offers`] as any[])
        .filter((o) => o.published !== false)
        .map((o) => {
          const observations = [...this.of(family, o.id)].sort(([a], [b]) => a - b);
          return [o.id, apyStats(observations, o[APY_FIELD[family]], t)];
        }),
    );
  }
}

let table: TestTable;
const oracle = new Oracle();
/** The last import's file and time. */
let last: { file: any; at: number };

/** The figures of the served version of `family`, from the figure state its manifest names, and what it cost to read. */
async function servedFigures(family: HistoryFamily, file: any): Promise<Map<number, ApyStats>> {
  const state = (await readPointer(table.client, table.tableName))!.families[DATASET_FAMILY_OF[family]]!;
  const figures = (await new VersionWriter(table.client, table.tableName).readManifest(state.version!)).figures;
  const store = new FigureStore(table.client, table.tableName);
  const lines = (times: FigureIndex['hours'] | undefined) => async (ms: number) => {
    const hashes = times?.[String(ms)] ?? [];
    const read = await store.read(family, hashes);
    return hashes.flatMap((h) => read.get(h)!);
  };
  const offers = (file[`${family}_offers`] as any[])
    .filter((o) => o.published !== false)
    .map((o) => ({ id: o.id as number, apy: o[APY_FIELD[family]] as string }));
  return figuresAt(Date.parse(state.figuresAt!), offers, { day: lines(figures?.days), hour: lines(figures?.hours) });
}

/** Import `file` at `at` (into the oracle too) and check both families' figures against it. */
async function importAt(file: any, at: number): Promise<ImportResult> {
  const result = await importDataset(file, {
    client: table.client,
    tableName: table.tableName,
    now: () => new Date(at),
    recordHistory: true,
  });
  oracle.import(file, at);
  last = { file, at };
  for (const family of FAMILIES) {
    const state = (await readPointer(table.client, table.tableName))!.families[DATASET_FAMILY_OF[family]]!;
    const t = Date.parse(state.figuresAt!);
    expect({ family, at: new Date(t).toISOString(), figures: await servedFigures(family, file) }).toEqual({
      family,
      at: new Date(t).toISOString(),
      figures: oracle.figures(family, file, t),
    });
  }
  return result;
}

/** The fixture's earn and borrow offers, their APYs moved by `step` (borrow's below zero from step 3 on). */
function offers(step: number): any {
  const d: any = fixtureDataset();
  const move = (value: string, by: number) => (Number(value) + by).toFixed(2);
  return {
    earn_offers: d.earn_offers.map((o: any) => ({ ...o, apy: move(o.apy, (step % 5) / 4) })),
    borrow_offers: d.borrow_offers.map((o: any) => ({ ...o, net_borrow_apy: move(o.net_borrow_apy, 1.5 - step / 2) })),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const T0 = NOW.getTime();

beforeAll(async () => {
  setLogSink(() => undefined);
  table = await startTestTable();
}, 60_000);
afterAll(() => table.close());

describe('the figure state kept by imports answers as the whole history does', () => {
  it('the first import: the fixture’s history (a later observation than the import among it)', async () => {
    const result = await importAt(fixtureDataset(), T0);
    expect(result.figures.itemsWritten).toBeGreaterThan(0);
  });

  it('imports over 36 days: several hours a day, days without any, backfills and corrections, negative APYs', async () => {
    let step = 0;
    for (const day of [0, 1, 2, 3, 4, 6, 7, 12, 13, 14, 20, 21, 27, 29, 30, 31, 32, 33, 35, 36]) {
      for (const hour of day % 3 === 0 ? [1, 5.5, 17] : [2.25]) {
        step++;
        const at = T0 + day * DAY + hour * HOUR;
        const file = offers(step);
        if (step % 4 === 0) {
          // A backfill of the last hours: earn 3 and the unpublished earn 8, borrow 2 negative.
          file.earn_history = [
            { offer_id: 3, points: [{ timestamp: iso(at - 3 * HOUR), apy: `${step}.5`, tvl: null }] },
            { offer_id: 8, points: [{ timestamp: iso(at - 2 * HOUR), apy: '1', tvl: null }] },
          ];
          file.borrow_history = [
            {
              offer_id: 2,
              points: [
                { timestamp: iso(at - 5 * HOUR), apy: `-${step}.25` },
                { timestamp: iso(at - 4 * HOUR), apy: `-${step}.25` },
              ],
            },
          ];
        }
        if (step % 7 === 0) {
          // A correction: the observation recorded at the previous import, at its very instant.
          const previous = oracle.series.get('earn:1')!;
          const last = Math.max(...[...previous.keys()].filter((ms) => ms < at));
          file.earn_history = [{ offer_id: 1, points: [{ timestamp: iso(last), apy: '42.42', tvl: null }] }];
        }
        await importAt(file, at);
      }
    }
    expect(oracle.series.get('earn:1')!.size).toBeGreaterThan(60 * 24);
  }, 600_000);

  it('an import inside an hour already recorded, with the same records, writes nothing but its refresh time', async () => {
    const counting = flakyClient(table.endpoint, PutCommand, Number.MAX_SAFE_INTEGER);
    try {
      const result = await importDataset(last.file, {
        client: counting.client,
        tableName: table.tableName,
        now: () => new Date(last.at + 15 * 60_000),
        recordHistory: true,
      });
      expect(result).toMatchObject({ unchanged: true, itemsWritten: 0, figures: { itemsRead: 0, itemsWritten: 0 } });
      expect(counting.writes()).toBe(1);
    } finally {
      counting.close();
    }
  });

  it('the next hour’s first import, with the same records, publishes versions of the same documents with their figures', async () => {
    const before = (await readPointer(table.client, table.tableName))!.families;
    const result = await importAt(last.file, Math.floor(last.at / HOUR) * HOUR + HOUR + 5 * 60_000);
    expect(result.published).toEqual(['earn', 'borrow']);
    expect(result.recorded.observations).toBe(12);
    // Their documents did not change: their publish time (Last-Modified) stays.
    const after = (await readPointer(table.client, table.tableName))!.families;
    for (const family of ['earn_offers', 'borrow_offers']) {
      expect(after[family]!.version).not.toBe(before[family]!.version);
      expect(after[family]!.publishedAt).toBe(before[family]!.publishedAt);
    }
  });

  it('an import that fails at its publish leaves no observation in the state the next import reads', async () => {
    const at = Math.floor(last.at / HOUR) * HOUR + HOUR + 10 * 60_000;
    const failing = offers(100);
    failing.earn_history = [{ offer_id: 3, points: [{ timestamp: iso(at - 60_000), apy: '77.7', tvl: null }] }];
    failing.borrow_history = [{ offer_id: 1, points: [{ timestamp: iso(at - 30 * DAY - 60_000), apy: '-77.7' }] }];
    const flaky = flakyClient(table.endpoint, PutCommand, 0);
    try {
      await expect(
        importDataset(failing, {
          client: flaky.client,
          tableName: table.tableName,
          now: () => new Date(at),
          recordHistory: true,
        }),
      ).rejects.toThrow(/ECONNRESET/);
      await flaky.settled();
    } finally {
      flaky.close();
    }
    // The next import, in the same hour: it records what the failed one did not publish.
    const result = await importAt(offers(101), at + 60_000);
    expect(result.recorded.observations).toBe(12);
  });

  it('a version without figure state (a table from before it) is seeded once from stored history', async () => {
    // As a pointer written before figures: no family names the time of its figures.
    await table.client.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: pointerKey(),
        UpdateExpression: 'REMOVE #f.#earn.#at, #f.#borrow.#at',
        ExpressionAttributeNames: {
          '#f': 'families',
          '#earn': 'earn_offers',
          '#borrow': 'borrow_offers',
          '#at': 'figuresAt',
        },
      }),
    );
    const at = Math.floor(last.at / HOUR) * HOUR + HOUR + 5 * 60_000;
    // Same records, an hour already recorded: only the missing figure state makes new versions.
    const seeded = await importAt({ ...last.file }, last.at + 60_000);
    expect(seeded.published).toEqual(['earn', 'borrow']);
    // Two Queries an offer: at least an item of each series (its hours, its days) of every published offer.
    expect(seeded.figures.itemsRead).toBeGreaterThanOrEqual(12 * 2);
    // From the seeded state on, an import reads the state's chunks only.
    const next = await importAt(offers(102), at);
    expect(next.figures.itemsRead).toBeLessThan(seeded.figures.itemsRead);
  });

  it('a figure chunk that does not check is recomputed from stored history, with a warning: the import publishes', async () => {
    const state = (await readPointer(table.client, table.tableName))!.families.earn_offers!;
    const figures = (await new VersionWriter(table.client, table.tableName).readManifest(state.version!)).figures!;
    // The chunk of the latest day's summary: every import reads it (its 30 days' points).
    const latestDay = Math.max(...Object.keys(figures.days).map(Number));
    const [hash] = figures.days[String(latestDay)];
    const { Item } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: documentBlockKey(hash) }),
    );
    const other = Object.values(figures.hours)
      .flat()
      .find((h) => h !== hash)!;
    const { Item: donor } = await table.client.send(
      new GetCommand({ TableName: table.tableName, Key: documentBlockKey(other) }),
    );
    // Another chunk's content under this chunk's key: it decodes, but not to its hash.
    await table.client.send(new PutCommand({ TableName: table.tableName, Item: { ...Item, z: donor!.z } }));
    const warnings: string[] = [];
    setLogSink((line) => {
      const entry = JSON.parse(line);
      if (entry.level === 'warn') warnings.push(entry.message);
    });
    try {
      const at = Math.floor(last.at / HOUR) * HOUR + HOUR + 5 * 60_000;
      const result = await importAt(offers(103), at);
      expect(result.published).toEqual(expect.arrayContaining(['earn']));
    } finally {
      setLogSink(() => undefined);
    }
    expect(warnings).toContain(
      'figures: a chunk of the figure state does not check; the state is recomputed from stored history',
    );
  });
});
