/**
 * Keeps a local copy of an offer family up to date with the changes feed (docs/api.md, "Changes
 * since a version"), on the repository's typed client (client/index.ts):
 *
 * - the first run reads the whole list (`pages()` follows `Link`, pinned to one data version) and
 *   writes it to `--file` with its `pagination.snapshot`;
 * - every later run asks only for what changed since that snapshot (`changes()`: added, changed,
 *   removed, by id), applies it and keeps the newer snapshot;
 * - when the snapshot is too old to compare with (`410 snapshot_expired`: versions stay readable
 *   at least 60 minutes after they are replaced), it reads the whole list again.
 *
 * Usage:
 *   npx tsx examples/sync-offers.ts --url http://127.0.0.1:3000 --key KEY --family earn --file earn.json
 *   (run it again later: it prints what changed)
 *
 * The key may come from MARKET_DATA_API_KEY instead of --key. `GET /api/v1/status` (no key) tells
 * when each family last changed; `--if-changed` asks it first and skips the run when nothing did.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createMarketDataClient, type ListPath, MarketDataApiError, type OfferFamily } from '../client';

/** Each family's list (one missing does not compile: the families come from the description). */
const LIST_PATH: Record<OfferFamily, ListPath> = {
  earn: '/api/v1/earn',
  borrow: '/api/v1/borrow',
  collateral: '/api/v1/collateral',
};
const FAMILIES = Object.keys(LIST_PATH) as OfferFamily[];

interface Copy {
  family: OfferFamily;
  snapshot: string;
  offers: Record<string, unknown>;
}

function readCopy(file: string, family: OfferFamily): Copy | undefined {
  if (!existsSync(file)) return undefined;
  const copy = JSON.parse(readFileSync(file, 'utf8')) as Copy;
  if (copy.family !== family) throw new Error(`${file} holds ${copy.family} offers, not ${family}`);
  return copy;
}

/** Written next to the file, then renamed over it: a run that stops half-way leaves the old copy whole. */
function writeCopy(file: string, copy: Copy): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(copy)}\n`);
  renameSync(`${file}.tmp`, file);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:3000' },
      key: { type: 'string', default: process.env.MARKET_DATA_API_KEY },
      family: { type: 'string', default: 'earn' },
      file: { type: 'string' },
      'if-changed': { type: 'boolean', default: false },
    },
  });
  const family = values.family as OfferFamily;
  if (!FAMILIES.includes(family)) throw new Error(`--family must be one of ${FAMILIES.join(', ')}`);
  if (!values.key) throw new Error('an API key is needed: --key KEY or MARKET_DATA_API_KEY');
  const file = values.file ?? `${family}-offers.json`;
  const api = createMarketDataClient({ baseUrl: values.url!, apiKey: values.key });
  const copy = readCopy(file, family);

  if (copy && values['if-changed']) {
    // No key needed and no budget taken: the version each family serves now.
    const status = await fetch(new URL('api/v1/status', values.url!.endsWith('/') ? values.url : `${values.url}/`));
    const served = ((await status.json()) as { families: Record<string, { snapshot: string; published_at: string }> })
      .families[family];
    if (served?.snapshot === copy.snapshot) {
      process.stdout.write(`${family}: unchanged since ${served.published_at}\n`);
      return;
    }
  }

  if (copy) {
    try {
      const feed = api.changes(family, copy.snapshot, { limit: 200 });
      const counts = { added: 0, changed: 0, removed: 0 };
      for await (const { id, change, offer } of feed) {
        counts[change] += 1;
        if (offer === null) delete copy.offers[id];
        else copy.offers[id] = offer;
      }
      writeCopy(file, { family, snapshot: feed.snapshot ?? copy.snapshot, offers: copy.offers });
      process.stdout.write(
        `${family}: ${counts.added} added, ${counts.changed} changed, ${counts.removed} removed; ${Object.keys(copy.offers).length} offers\n`,
      );
      return;
    } catch (error) {
      if (!(error instanceof MarketDataApiError && error.error.code === 'snapshot_expired')) throw error;
      process.stdout.write(`${family}: the copy is older than the versions the API keeps; reading everything again\n`);
    }
  }

  const pages = api.pages(LIST_PATH[family], { query: { limit: 200 } });
  const offers: Record<string, unknown> = {};
  for await (const offer of pages) offers[(offer as { id: number }).id] = offer;
  writeCopy(file, { family, snapshot: pages.snapshot!, offers });
  process.stdout.write(`${family}: ${Object.keys(offers).length} offers read (data version ${pages.snapshot})\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
