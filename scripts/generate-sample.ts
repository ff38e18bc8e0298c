/**
 * Writes a generated dataset file.
 *
 *   npm run generate:sample -- [--preset sample|quick-bench|bench] [--seed N] [--now ISO] [--out FILE]
 *
 * Defaults: the sample preset, `now` = the current hour (UTC, rounded down), data/sample.json.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { HISTORY_FAMILIES, OFFER_FAMILIES, OFFER_FAMILY } from '../shared/model/offer-families';
import { systemClock } from '../shared/platform/clock';
import { formatDataset } from '../tools/sample-data/format';
import { anchorOf, generateDataset, PRESETS, type PresetName } from '../tools/sample-data/generate';

const USAGE =
  'usage: npm run generate:sample -- [--preset sample|quick-bench|bench] [--seed N] [--now ISO] [--out FILE]';

interface CliOptions {
  preset: PresetName;
  seed?: number;
  now: Date;
  out: string;
}

function parseArgs(argv: string[]): CliOptions {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const match = /^--(preset|seed|now|out)(?:=(.*))?$/.exec(argv[i]);
    if (!match) throw new Error(`unknown argument ${argv[i]}`);
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new Error(`--${match[1]} needs a value`);
    values.set(match[1], value);
  }

  const preset = values.get('preset') ?? 'sample';
  if (!(preset in PRESETS)) throw new Error(`unknown preset ${preset}; one of ${Object.keys(PRESETS).join(', ')}`);
  const seedText = values.get('seed');
  if (seedText !== undefined && !/^\d{1,15}$/.test(seedText)) throw new Error('--seed must be a non-negative integer');
  const nowText = values.get('now');
  const now = nowText === undefined ? anchorOf(systemClock()) : new Date(nowText);
  if (Number.isNaN(now.getTime())) throw new Error(`--now must be an ISO 8601 date-time, got ${nowText}`);
  return {
    preset: preset as PresetName,
    seed: seedText === undefined ? undefined : Number(seedText),
    now,
    out: values.get('out') ?? 'data/sample.json',
  };
}

/** Streams the formatted dataset to `path` in ~1 MB writes; returns the bytes written. */
function writeDataset(path: string, chunks: Iterable<string>): number {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
  let bytes = 0;
  let buffer: string[] = [];
  let buffered = 0;
  const flush = () => {
    bytes += writeSync(fd, buffer.join(''));
    buffer = [];
    buffered = 0;
  };
  try {
    for (const chunk of chunks) {
      buffer.push(chunk);
      buffered += chunk.length;
      if (buffered >= 1 << 20) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return bytes;
}

function main(): void {
  let cli: CliOptions;
  try {
    cli = parseArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  const preset = PRESETS[cli.preset];
  const started = performance.now();
  const dataset = generateDataset({ ...preset, seed: cli.seed ?? preset.seed, now: cli.now });
  const generatedMs = performance.now() - started;
  const bytes = writeDataset(cli.out, formatDataset(dataset));

  const histories = HISTORY_FAMILIES.flatMap((family) => dataset[`${family}_history`] as { points: unknown[] }[]);
  const points = histories.reduce((sum, h) => sum + h.points.length, 0);
  process.stderr.write(
    `${cli.preset} (seed ${cli.seed ?? preset.seed}, now ${cli.now.toISOString()}): ` +
      `${dataset.currencies.length} currencies, ${dataset.exchanges.length} exchanges, ${dataset.wallets.length} wallets, ` +
      `${dataset.protocols.length} protocols, ` +
      `${OFFER_FAMILIES.map((family) => `${dataset[OFFER_FAMILY[family].dataset].length} ${family}`).join(', ')}, ${histories.length} histories ` +
      `(${points} points); ${(bytes / 1e6).toFixed(2)} MB to ${cli.out}; generated in ${(generatedMs / 1000).toFixed(2)} s\n`,
  );
}

main();
