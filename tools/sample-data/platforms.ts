import {
  EXCHANGE_SUFFIXES,
  NAME_ROOTS,
  PROTOCOL_CATEGORIES,
  PROTOCOL_SUFFIXES,
  REAL_EXCHANGES,
  REAL_PROTOCOLS,
  REAL_WALLETS,
  WALLET_SUFFIXES,
} from './catalog';
import { applyCatalogFlags, type FlagSeed } from './flags';
import { before, createRng, DAY, decimal, fixed, HOUR, iso, kebab, type Rng, round } from './random';
import type { ExchangeRecord, PlatformRecord, PlatformRef, ProtocolRecord, WalletRecord } from './types';

const LOGO_BASE = 'https://static.marketdata.example/logos/64';

export interface Platforms {
  exchange: ExchangeRecord[];
  wallet: WalletRecord[];
  protocol: ProtocolRecord[];
}

export const platformRef = (record: PlatformRecord): PlatformRef => ({
  type: record.type,
  slug: record.slug,
  name: record.name,
});

/** Whether the API shows the record (docs/api.md, "Visibility and platform references"): published and not delisted. */
export const isExposed = (record: { published?: boolean; delisted?: boolean }): boolean =>
  record.published !== false && record.delisted !== true;

/** Whether a reference names, by its current slug, an exposed platform of its family. */
export function isListedRef(platforms: Platforms, ref: PlatformRef | null): boolean {
  if (ref === null) return false;
  const records: PlatformRecord[] = platforms[ref.type];
  return records.some((record) => record.slug === ref.slug && isExposed(record));
}

interface NamedSeed extends FlagSeed {
  name: string;
  slug: string;
  url: string;
  /** Index into the family's real list, or undefined for a synthesized name. */
  real?: number;
}

export function generatePlatforms(
  seed: number,
  now: number,
  counts: { exchanges: number; wallets: number; protocols: number },
): Platforms {
  return {
    exchange: generateExchanges(seed, now, counts.exchanges),
    wallet: generateWallets(seed, now, counts.wallets),
    protocol: generateProtocols(seed, now, counts.protocols),
  };
}

/**
 * Real names first, then "Root Suffix" combinations, then numbered ones. A few synthesized
 * records are hidden, delisted or renamed, on top of the real ones the catalogue marks.
 */
function nameFamily(
  rng: Rng,
  count: number,
  real: ReadonlyArray<FlagSeed & { name: string; url: string }>,
  suffixes: readonly string[],
): NamedSeed[] {
  const seeds: NamedSeed[] = real.slice(0, count).map((r, index) => ({ ...r, slug: kebab(r.name), real: index }));
  const taken = new Set(seeds.map((s) => s.slug));
  const combos = rng.shuffle(NAME_ROOTS.flatMap((root) => suffixes.map((suffix) => `${root} ${suffix}`)));
  for (let serial = 0; seeds.length < count; serial++) {
    const base = combos[serial % combos.length];
    const name = serial < combos.length ? base : `${base} ${Math.floor(serial / combos.length) + 1}`;
    const slug = kebab(name);
    if (taken.has(slug)) continue;
    taken.add(slug);
    seeds.push({ name, slug, url: `https://${slug}.example` });
  }

  const synthesized = seeds.filter((s) => s.real === undefined);
  const share = (rate: number) => Math.round(synthesized.length * rate);
  for (let i = 0; i < share(0.02); i++) rng.pick(synthesized).hidden = true;
  for (let i = 0; i < share(0.015); i++) rng.pick(synthesized).delisted = true;
  for (let i = 0; i < share(0.02); i++) {
    const renamed = rng.pick(synthesized);
    // "nova-markets" was "nova-exchange", or, when that name is in use, "nova-markets-v1".
    const candidates = [`${renamed.slug.split('-')[0]}-${kebab(rng.pick(suffixes))}`, `${renamed.slug}-v1`];
    const previous = candidates.find((slug) => !taken.has(slug));
    if (renamed.previous || previous === undefined) continue;
    taken.add(previous);
    renamed.previous = [previous];
  }
  return seeds;
}

/** Real figures drift a little per seed; equal figures drift equally, so designed ties survive. */
function drift(seed: number, figure: number, spread: number): number {
  return figure * (1 + spread * (createRng(seed, `drift:${figure}`).next() * 2 - 1));
}

function updatedAt(rng: Rng, now: number, seedRecord: NamedSeed): string {
  return iso(seedRecord.delisted ? before(now, rng, 300 * DAY, 900 * DAY) : before(now, rng, HOUR, 7 * DAY));
}

function generateExchanges(seed: number, now: number, count: number): ExchangeRecord[] {
  const rng = createRng(seed, 'exchanges');
  return nameFamily(rng, count, REAL_EXCHANGES, EXCHANGE_SUFFIXES).map((named, index) => {
    const real = named.real === undefined ? undefined : REAL_EXCHANGES[named.real];
    // Synthesized visit counts are rounded to the thousand, so big sizes get organic ties too.
    const weeklyVisits = real
      ? Math.round(drift(seed, real.weeklyVisits, 0.06))
      : Math.round(rng.logUniform(2_000, 300_000) / 1000) * 1000;
    const dailyVolume = real ? drift(seed, real.dailyVolume, 0.15) : weeklyVisits * rng.logUniform(20, 900);
    const numCoins = real ? rng.int(180, 720) : rng.int(15, 420);
    const record: ExchangeRecord = {
      type: 'exchange',
      slug: named.slug,
      name: named.name,
      url: named.url,
      logo64: `${LOGO_BASE}/exchanges/${named.slug}.png`,
      stats: {
        num_coins: numCoins,
        num_markets: Math.round(numCoins * rng.uniform(1.3, 4.2)),
        weekly_visits: weeklyVisits,
        daily_spot_volume: round(dailyVolume, 2),
        is_centralized: real ? real.centralized !== false : rng.chance(0.85),
      },
      updated_at: updatedAt(rng, now, named),
    };
    return applyCatalogFlags(rng, record, named, index);
  });
}

const WALLET_PLATFORMS = [
  'iOS',
  'Android',
  'Windows',
  'macOS',
  'Linux',
  'Chrome Extension',
  'Firefox Extension',
  'Web',
];
const WALLET_SERVICES = [
  'Swap',
  'Staking',
  'Buy Crypto',
  'Bridge',
  'NFT Support',
  'dApp Browser',
  'Multisig',
  'Coin Control',
];

function subset(rng: Rng, items: readonly string[], min: number): string[] {
  const chosen = items.filter(() => rng.chance(0.45));
  return chosen.length >= min ? chosen : rng.shuffle([...items]).slice(0, min);
}

function generateWallets(seed: number, now: number, count: number): WalletRecord[] {
  const rng = createRng(seed, 'wallets');
  return nameFamily(rng, count, REAL_WALLETS, WALLET_SUFFIXES).map((named, index) => {
    const real = named.real === undefined ? undefined : REAL_WALLETS[named.real];
    const walletType = real?.type ?? (rng.chance(0.15) ? 'hardware' : rng.chance(0.1) ? 'custodial' : 'software');
    const hardware = walletType === 'hardware';
    const record: WalletRecord = {
      type: 'wallet',
      slug: named.slug,
      name: named.name,
      url: named.url,
      logo64: `${LOGO_BASE}/wallets/${named.slug}.png`,
      stats: {
        wallet_type: walletType,
        num_coins: Math.round(rng.logUniform(hardware ? 800 : 40, hardware ? 5500 : 10_000)),
        anonymity_rating: round(rng.uniform(1.5, 5), 1),
        ease_of_use_rating: round(rng.uniform(hardware ? 3 : 3.5, 5), 1),
        security_rating: round(rng.uniform(hardware ? 4.3 : 3, hardware ? 5 : 4.7), 1),
        platforms: real
          ? [...real.platforms]
          : [...(hardware ? ['Hardware'] : []), ...subset(rng, WALLET_PLATFORMS, 1)],
        additional_services: real ? [...real.services] : subset(rng, WALLET_SERVICES, 0),
      },
      updated_at: updatedAt(rng, now, named),
    };
    return applyCatalogFlags(rng, record, named, index);
  });
}

function generateProtocols(seed: number, now: number, count: number): ProtocolRecord[] {
  const rng = createRng(seed, 'protocols');
  return nameFamily(rng, count, REAL_PROTOCOLS, PROTOCOL_SUFFIXES).map((named, index) => {
    const real = named.real === undefined ? undefined : REAL_PROTOCOLS[named.real];
    // Mostly cents; now and then a drained pool with dust left, or a round figure.
    const tvl = real
      ? fixed(drift(seed, real.tvl, 0.05), 2)
      : rng.chance(0.02)
        ? decimal(rng.logUniform(0.0001, 5), 6)
        : rng.chance(0.1)
          ? fixed(Math.round(rng.logUniform(1e5, 2e8) / 1000) * 1000, 0)
          : fixed(rng.logUniform(2e4, 4e8), 2);
    const record: ProtocolRecord = {
      type: 'protocol',
      slug: named.slug,
      name: named.name,
      url: named.url,
      logo64: `${LOGO_BASE}/protocols/${named.slug}.png`,
      stats: {
        category: real?.category ?? rng.pick(PROTOCOL_CATEGORIES),
        tvl,
      },
      updated_at: updatedAt(rng, now, named),
    };
    return applyCatalogFlags(rng, record, named, index);
  });
}
