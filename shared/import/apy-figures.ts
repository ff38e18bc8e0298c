/**
 * The APY figures of an earn or borrow version (CONTRACT §13; docs/adr/0015-apy-figures.md),
 * computed at the import's refresh time `t` without reading every offer's history: the version
 * carries a time-major figure state, named by its manifest, that each import updates with exactly
 * the observations it writes.
 *
 * - Hour frames: every observation of each UTC hour, lines `[id, ms, "apy"]` sorted by (id, ms).
 * - Day summaries: each offer's last observation of each UTC day (§5's daily point).
 *
 * Both are kept from t − 32 days on (later hours too) and cut into content-addressed chunks, so
 * an import reads the chunks of the hours and days it writes into, writes those whose content
 * changed, then reads the 30 days' summaries and, for each change reference, the frames from
 * t − N days back to t − N days − 24 h, newest first, until every offer has found its own.
 * A version without a state (a table from before it) is seeded once from stored history.
 */
import type { FigureStore } from '../data/figure-store';
import { FIGURE_CHUNK_LINES, type FigureChunk, type FigureLine, figureChunks } from '../data/items/figure-chunk';
import type { FigureIndex } from '../data/items/manifest';
import type { HistoryFamily } from '../data/keys';
import { type ApyStats, apyStats, type Observation } from '../domain/apy-stats';
import { bucketStart, RAW_SERIES, SERIES } from '../domain/buckets';
import { CorruptDataError } from '../platform/errors';
import { groupBy } from '../platform/group-by';
import { logger } from '../platform/logger';
import { DAY_MS, HOUR_MS } from '../platform/timestamps';

export type { FigureLine };

/** How far back the state reaches: a change's reference (t − 30 days − 24 h) and the 30 days' points, with a day to spare. */
const FIGURE_STATE_DAYS = 32;
/** The references of §13's changes, in days before t. */
const CHANGE_DAYS = [1, 7, 30] as const;
/** The days whose daily points the means and the deviation use. */
const MEAN_DAYS = 30;

const dayOf = (ms: number) => bucketStart('1d', ms);
const hourOf = (ms: number) => bucketStart('1h', ms);

/** What an update of a family's figure state brings to its version. */
export interface FigureUpdate {
  /** The new state: its hours' and days' chunks. */
  index: FigureIndex;
  /** Every chunk the state names (its manifest lists them among its blocks). */
  hashes: string[];
  /** The chunks whose content is new (written unless a kept version already holds them). */
  chunks: FigureChunk[];
  /** The figures of each published offer at t. */
  figures: Map<number, ApyStats>;
}

export interface FigureInput {
  store: FigureStore;
  family: HistoryFamily;
  /** The refresh time (epoch ms). */
  t: number;
  /** The served version's state; undefined when it has none (then `seed` says how to build it). */
  previous: FigureIndex | undefined;
  /** The pointer's history sequence number, whose served history a seed reads. */
  published: number;
  /** The observations the import writes for the family (a later one at the same offer and ms replaces). */
  observations: readonly FigureLine[];
  /** The published offers and their served APY. */
  offers: readonly { id: number; apy: string }[];
}

const byIdThenMs = (a: FigureLine, b: FigureLine) => a[0] - b[0] || a[1] - b[1];

/**
 * The state after merging `input.observations` (and the seed, when there is no state), and the
 * figures of every published offer. A chunk of the served state that does not check (its content
 * against the hash the manifest names it by, items/figure-chunk.ts) is no reason to stop the
 * import: the state is recomputed from stored history, as for a version without one, with a warning.
 */
export async function updateFigures(input: FigureInput): Promise<FigureUpdate> {
  try {
    return await mergedFigures(input);
  } catch (error) {
    if (!(error instanceof CorruptDataError) || input.previous === undefined) throw error;
    logger.warn('figures: a chunk of the figure state does not check; the state is recomputed from stored history', {
      family: input.family,
      error: error.message,
    });
    return mergedFigures({ ...input, previous: undefined });
  }
}

async function mergedFigures(input: FigureInput): Promise<FigureUpdate> {
  const { store, family, t } = input;
  const fromHour = hourOf(t - FIGURE_STATE_DAYS * DAY_MS);
  const fromDay = dayOf(t - FIGURE_STATE_DAYS * DAY_MS);
  const kept = (times: Record<string, string[]> | undefined, from: number) =>
    new Map(Object.entries(times ?? {}).flatMap(([ms, chunks]) => (Number(ms) >= from ? [[Number(ms), chunks]] : [])));
  const hours = kept(input.previous?.hours, fromHour);
  const days = kept(input.previous?.days, fromDay);

  // Lines of chunks read or made, by hash: each chunk is read at most once.
  const lines = new Map<string, FigureLine[]>();
  const linesOf = async (hashes: readonly string[]): Promise<FigureLine[]> => {
    const missing = hashes.filter((h) => !lines.has(h));
    if (missing.length > 0) for (const [hash, read] of await store.read(family, missing)) lines.set(hash, read);
    return hashes.flatMap((h) => lines.get(h)!);
  };
  const previousHashes = new Set([...hours.values(), ...days.values()].flat());
  const made: FigureChunk[] = [];
  const chunk = (sorted: FigureLine[]): string[] =>
    figureChunks(family, sorted).map((c, i) => {
      lines.set(c.hash, sorted.slice(i * FIGURE_CHUNK_LINES, (i + 1) * FIGURE_CHUNK_LINES));
      if (!previousHashes.has(c.hash)) made.push(c);
      return c.hash;
    });

  const seed = input.previous
    ? []
    : await store.seed(
        family,
        [RAW_SERIES, SERIES['1d'].stored],
        input.offers.map((o) => o.id),
        fromDay,
        input.published,
      );
  const incoming = [...seed, ...input.observations].filter(([, ms]) => ms >= fromHour);

  const byHour = groupBy(incoming, ([, ms]) => hourOf(ms));
  const byDay = groupBy(
    incoming.filter(([, ms]) => ms >= fromDay),
    ([, ms]) => dayOf(ms),
  );
  // Read together (batches in parallel): the chunks merged into, the 30 days' summaries and the
  // first frame of each change's reference (where a feed at hourly cadence finds it).
  const windowDays = Array.from({ length: MEAN_DAYS }, (_, i) => dayOf(t) - i * DAY_MS);
  const firstFrames = CHANGE_DAYS.map((n) => hourOf(t - n * DAY_MS));
  await linesOf([
    ...[...byHour.keys(), ...firstFrames].flatMap((h) => hours.get(h) ?? []),
    ...[...byDay.keys(), ...windowDays].flatMap((d) => days.get(d) ?? []),
  ]);

  // Hour frames: the observations of each hour, the import's replacing one at the same offer and ms.
  for (const [hour, added] of byHour) {
    const merged = new Map<string, FigureLine>();
    for (const line of [...(await linesOf(hours.get(hour) ?? [])), ...added]) merged.set(`${line[0]}:${line[1]}`, line);
    hours.set(hour, chunk([...merged.values()].sort(byIdThenMs)));
  }
  // Day summaries: each offer's last observation of the day (a later or equal instant replaces it).
  for (const [day, added] of byDay) {
    const last = new Map<number, FigureLine>();
    for (const line of [...(await linesOf(days.get(day) ?? [])), ...added]) {
      const current = last.get(line[0]);
      if (!current || line[1] >= current[1]) last.set(line[0], line);
    }
    days.set(day, chunk([...last.values()].sort(byIdThenMs)));
  }

  const figures = await figuresAt(t, input.offers, {
    day: async (ms) => linesOf(days.get(ms) ?? []),
    hour: async (ms) => linesOf(hours.get(ms) ?? []),
  });
  const ordered = (times: Map<number, string[]>) =>
    Object.fromEntries([...times].sort(([a], [b]) => a - b).map(([ms, chunks]) => [String(ms), chunks]));
  const index = { hours: ordered(hours), days: ordered(days) };
  return {
    index,
    hashes: [...Object.values(index.hours), ...Object.values(index.days)].flat(),
    chunks: [...new Map(made.map((c) => [c.hash, c])).values()],
    figures,
  };
}

/** The lines of a day's summary and of an hour's frame, by its start. */
interface FigureReader {
  day(ms: number): Promise<FigureLine[]>;
  hour(ms: number): Promise<FigureLine[]>;
}

/**
 * §13's figures of each offer at t from a figure state: its daily points from the summaries of
 * the days starting in (t − 30 d, t] (the day of t: its last observation at or before t, from that
 * day's frames when the summary's is later), and each change's reference from the frames of
 * hour(t − N d) back to hour(t − N d − 24 h), newest first, until each offer has one. Each offer's
 * observations are those, and `apyStats` computes the figures from them as from its whole history.
 * @internal (exported for its tests)
 */
export async function figuresAt(
  t: number,
  offers: readonly { id: number; apy: string }[],
  state: FigureReader,
): Promise<Map<number, ApyStats>> {
  const observed = new Map<number, Map<number, string>>(offers.map((o) => [o.id, new Map()]));
  const add = ([id, ms, apy]: FigureLine) => observed.get(id)?.set(ms, apy);

  const today = dayOf(t);
  const late = new Set<number>();
  for (let day = today; day > t - MEAN_DAYS * DAY_MS; day -= DAY_MS) {
    for (const line of await state.day(day)) {
      if (line[1] <= t) add(line);
      else if (observed.has(line[0])) late.add(line[0]);
    }
  }
  // The day of t: an offer whose last observation of it is after t takes its last at or before t.
  await latest(late, today, t, state, add);
  for (const days of CHANGE_DAYS) {
    const at = t - days * DAY_MS;
    await latest(new Set(observed.keys()), at - DAY_MS, at, state, add);
  }
  const current = new Map(offers.map((o) => [o.id, o.apy]));
  return new Map(
    [...observed].map(([id, points]) => {
      const series: Observation[] = [...points].sort(([a], [b]) => a - b);
      return [id, apyStats(series, current.get(id)!, t)];
    }),
  );
}

/** Add, for each offer of `ids`, its latest observation within [from, to] (frames newest first, until each has one). */
async function latest(
  ids: Set<number>,
  from: number,
  to: number,
  state: FigureReader,
  add: (line: FigureLine) => void,
): Promise<void> {
  const wanted = new Set(ids);
  for (let hour = hourOf(to); hour >= hourOf(from) && wanted.size > 0; hour -= HOUR_MS) {
    const found = new Map<number, FigureLine>();
    for (const line of await state.hour(hour))
      if (wanted.has(line[0]) && line[1] >= from && line[1] <= to) found.set(line[0], line); // lines ascend by ms
    for (const [id, line] of found) {
      add(line);
      wanted.delete(id);
    }
  }
}
