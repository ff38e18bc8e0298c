import { CURRENCY_CATEGORIES, FAMOUS_CURRENCIES, NAME_ROOTS, SUPERSEDED_SYMBOLS, TOKEN_SUFFIXES } from './catalog';
import { applyCatalogFlags, type FlagSeed } from './flags';
import { before, createRng, DAY, fixed, HOUR, iso, kebab, MINUTE, type Rng, round, significant } from './random';
import type { AssetRef, CurrencyRecord } from './types';

// The package is ESM with a top-level await, which require() refuses; its JSON list is plain data.
const SYMBOL_NAMES: Readonly<Record<string, string>> = require('cryptocurrencies/cryptocurrencies.json');

const LOGO_BASE = 'https://static.marketdata.example/logos/64';
const NOISY_NAME = /\b(old|long|short|bull|bear|[0-9.]+x|hedge|inverse|test)\b/i;

/** A currency before its record: its slug, symbol and name (as an offer's asset names it) and its figures. */
interface Draft extends AssetRef {
  category: string;
  sign: string | null;
  price: number | null;
  circulating: number | null;
  total: number | null;
  max: number | null;
  volumeRatio: number;
  flags: FlagSeed;
  famous: boolean;
}

export const assetRef = (currency: CurrencyRecord): AssetRef => ({
  slug: currency.slug,
  symbol: currency.symbol,
  name: currency.name,
});

/**
 * `count` currencies, ranked by market cap: the famous ones first with real-world figures, then
 * real names from the `cryptocurrencies` package in a seeded order, then synthesized names.
 */
export function generateCurrencies(seed: number, now: number, count: number): CurrencyRecord[] {
  const rng = createRng(seed, 'currencies');
  const usedSlugs = new Set<string>();
  const usedSymbols = new Set<string>(Object.keys(SYMBOL_NAMES));
  const drafts: Draft[] = [];

  for (const famous of FAMOUS_CURRENCIES.slice(0, count)) {
    const name = famous.name ?? SYMBOL_NAMES[famous.symbol] ?? famous.symbol;
    const slug = kebab(name);
    usedSlugs.add(slug);
    for (const previous of famous.previous ?? []) usedSlugs.add(previous);
    usedSymbols.add(famous.symbol);
    const stable = famous.category === 'Stablecoin';
    drafts.push({
      symbol: famous.symbol,
      name,
      slug,
      category: famous.category,
      sign: famous.sign ?? null,
      price: famous.price * (1 + rng.normal() * (stable ? 0.0002 : 0.02)),
      circulating: famous.circulating,
      total: famous.total,
      max: famous.max,
      volumeRatio: stable ? rng.uniform(0.08, 0.6) : rng.logUniform(0.01, 0.15),
      flags: { hidden: famous.hidden, delisted: famous.delisted, previous: famous.previous },
      famous: true,
    });
  }

  const candidates = packageCandidates(rng, usedSlugs);
  let synthesized = 0;
  while (drafts.length < count) {
    const candidate = candidates.pop() ?? synthesizeCurrency(++synthesized, usedSlugs, usedSymbols);
    usedSlugs.add(candidate.slug);
    drafts.push(tailDraft(rng, candidate, drafts.length + 1));
  }

  markTailEdgeCases(rng, drafts, usedSlugs);
  return rankCurrencies(rng, now, drafts);
}

let tidyEntries: AssetRef[] | undefined;

/** Package entries with tidy names, sorted by symbol; computed once per process. */
function tidyPackageEntries(): AssetRef[] {
  if (tidyEntries) return tidyEntries;
  const skip = new Set([...FAMOUS_CURRENCIES.map((c) => c.symbol), ...SUPERSEDED_SYMBOLS]);
  tidyEntries = [];
  for (const symbol of Object.keys(SYMBOL_NAMES).sort()) {
    const name = SYMBOL_NAMES[symbol];
    if (skip.has(symbol) || !/^[A-Z][A-Z0-9]{1,7}$/.test(symbol)) continue;
    if (!/^[A-Za-z][A-Za-z0-9 .'&-]{2,28}[A-Za-z0-9]$/.test(name) || NOISY_NAME.test(name)) continue;
    tidyEntries.push({ symbol, name, slug: kebab(name) });
  }
  return tidyEntries;
}

/** Package entries whose slug is still free, in a seeded order (popped from the end). */
function packageCandidates(rng: Rng, usedSlugs: Set<string>): AssetRef[] {
  const seen = new Set(usedSlugs);
  const candidates = tidyPackageEntries().filter((candidate) => {
    if (seen.has(candidate.slug)) return false;
    seen.add(candidate.slug);
    return true;
  });
  return rng.shuffle(candidates);
}

/** "Nova Token 12" / "NOV12", once the package runs out of names. */
function synthesizeCurrency(serial: number, usedSlugs: Set<string>, usedSymbols: Set<string>): AssetRef {
  for (let n = serial; ; n++) {
    const root = NAME_ROOTS[n % NAME_ROOTS.length];
    const suffix = TOKEN_SUFFIXES[Math.floor(n / NAME_ROOTS.length) % TOKEN_SUFFIXES.length];
    const name = `${root} ${suffix} ${n}`;
    const symbol = `${root.slice(0, 3).toUpperCase()}${n}`;
    const slug = kebab(name);
    if (!usedSlugs.has(slug) && !usedSymbols.has(symbol)) {
      usedSymbols.add(symbol);
      return { symbol, name, slug };
    }
  }
}

/** A long-tail coin: market cap falls off with its position, price anywhere from dust to $500. */
function tailDraft(rng: Rng, candidate: AssetRef, position: number): Draft {
  const marketCap = 1.6e9 * (position / 50) ** -1.5 * Math.exp(0.35 * rng.normal());
  const price = 10 ** rng.uniform(-5, 2.7);
  const circulating = Math.max(1, Math.round(marketCap / price));
  const total = rng.chance(0.1) ? null : Math.round(circulating * rng.uniform(1, 2.5));
  return {
    ...candidate,
    category: rng.chance(0.35) ? 'Token' : rng.pick(CURRENCY_CATEGORIES),
    sign: null,
    price,
    circulating,
    total,
    max: total !== null && rng.chance(0.6) ? Math.round(total * rng.uniform(1, 1.5)) : null,
    volumeRatio: rng.logUniform(0.002, 0.3),
    flags: {},
    famous: false,
  };
}

/** Hidden, delisted, renamed and unranked coins in the long tail, in every size. */
function markTailEdgeCases(rng: Rng, drafts: Draft[], usedSlugs: Set<string>): void {
  const tail = drafts.filter((d) => !d.famous);
  if (tail.length === 0) return;
  const pickTail = () => tail[rng.int(0, tail.length - 1)];
  const share = (rate: number, min: number) => Math.max(min, Math.round(tail.length * rate));

  // Unranked: no circulating supply known, so no market cap; the first is not even priced yet.
  for (let i = 0; i < share(0.01, 3); i++) {
    const draft = pickTail();
    draft.circulating = null;
    if (i === 0) draft.price = null;
  }
  for (let i = 0; i < share(0.01, 2); i++) pickTail().flags.hidden = true;
  for (let i = 0; i < share(0.005, 1); i++) pickTail().flags.delisted = true;
  for (let i = 0; i < share(0.005, 2); i++) {
    const draft = pickTail();
    const previous = `${draft.slug}-${rng.pick(['token', 'coin', 'v1', 'network'])}`;
    if (usedSlugs.has(previous) || draft.flags.previous) continue;
    usedSlugs.add(previous);
    draft.flags.previous = [previous];
  }
}

/** 24-hour change in percent: stablecoins barely move, others now and then jump. */
function dayChange(rng: Rng, stable: boolean): number {
  if (stable) return rng.normal() * 0.04;
  return rng.normal() * 3.2 + (rng.chance(0.05) ? rng.uniform(-20, 35) : 0);
}

function rankCurrencies(rng: Rng, now: number, drafts: Draft[]): CurrencyRecord[] {
  const caps = new Map(
    drafts.map((d) => [d, d.price !== null && d.circulating !== null ? d.price * d.circulating : null]),
  );
  const capOf = (d: Draft) => caps.get(d) ?? null;
  const ranked = drafts.filter((d) => capOf(d) !== null).sort((a, b) => capOf(b)! - capOf(a)!);
  const unranked = drafts.filter((d) => capOf(d) === null);
  const totalCap = ranked.reduce((sum, d) => sum + capOf(d)!, 0);

  return [...ranked, ...unranked].map((draft, index) => {
    const cap = capOf(draft);
    const stable = draft.category === 'Stablecoin';
    const updatedAt = draft.flags.delisted
      ? before(now, rng, 200 * DAY, 900 * DAY)
      : before(now, rng, 30_000, draft.famous ? 10 * MINUTE : 6 * HOUR);
    const volume = draft.price === null ? null : (cap ?? draft.price * 1e6) * draft.volumeRatio;
    const record: CurrencyRecord = {
      slug: draft.slug,
      name: draft.name,
      symbol: draft.symbol,
      category: draft.category,
      sign: draft.sign,
      logo64: draft.famous || rng.chance(0.94) ? `${LOGO_BASE}/currencies/${draft.slug}.png` : null,
      stats: {
        rank_by_market_cap: cap === null ? null : index + 1,
        circulating_supply: draft.circulating,
        total_supply: draft.total,
        max_supply: draft.max,
        usd_price: draft.price === null ? null : significant(draft.price, stable ? 5 : 6),
        usd_volume_24h: volume === null ? null : fixed(volume, 2),
        usd_market_cap: cap === null ? null : fixed(cap, 2),
        usd_percent_change_24h: draft.price === null ? null : round(dayChange(rng, stable), 2),
        usd_market_cap_dominance: cap === null ? null : round((cap / totalCap) * 100, 4),
      },
      updated_at: iso(updatedAt),
    };
    return applyCatalogFlags(rng, record, draft.flags, index);
  });
}
