/**
 * Seeded randomness and number formatting for the sample-data generator. Each part of the dataset
 * draws from its own named stream, so changing one count does not reshuffle unrelated records.
 */

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  uniform(min: number, max: number): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Index in [0, n) biased towards 0; larger `skew` favours the head more. */
  headIndex(n: number, skew: number): number;
  /** Standard normal. */
  normal(): number;
  /** Log-uniform in [min, max). */
  logUniform(min: number, max: number): number;
  shuffle<T>(items: T[]): T[];
}

/** 32-bit FNV-1a; spreads a seed and a stream name over the mulberry32 state. */
function hashSeed(seed: number, stream: string): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  h = Math.imul(h, 0x01000193);
  h ^= Math.floor(seed / 0x100000000) >>> 0;
  h = Math.imul(h, 0x01000193);
  for (let i = 0; i < stream.length; i++) {
    h ^= stream.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function createRng(seed: number, stream: string): Rng {
  let state = hashSeed(seed, stream);
  // mulberry32: small, fast and good enough for sample data.
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng: Rng = {
    next,
    uniform: (min, max) => min + (max - min) * next(),
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (probability) => next() < probability,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(next() * items.length)];
    },
    headIndex: (n, skew) => Math.min(n - 1, Math.floor(n * next() ** skew)),
    normal: () => {
      const u = 1 - next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
    },
    logUniform: (min, max) => Math.exp(Math.log(min) + (Math.log(max) - Math.log(min)) * next()),
    shuffle: (items) => {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [items[i], items[j]] = [items[j], items[i]];
      }
      return items;
    },
  };
  return rng;
}

/** Fixed-point decimal string with exactly `scale` fraction digits; never an exponent or `-0`. */
export function fixed(value: number, scale: number): string {
  if (!Number.isFinite(value) || Math.abs(value) >= 1e21) {
    throw new Error(`cannot format ${value} as a decimal`);
  }
  const text = value.toFixed(scale);
  return /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
}

/** Like `fixed`, with trailing fraction zeros dropped (`"4.50"` → `"4.5"`, `"3.00"` → `"3"`). */
export function decimal(value: number, scale: number): string {
  const text = fixed(value, scale);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** A decimal keeping about `digits` significant digits (prices from 0.0000123 to 104250). */
export function significant(value: number, digits: number): string {
  if (value === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const scale = Math.max(0, Math.min(12, digits - 1 - magnitude));
  return decimal(value, scale);
}

/** A JSON number rounded to `places` decimals. */
export function round(value: number, places: number): number {
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
}

/** Lowercase kebab-case: "Crypto.com" → "crypto-com", "$OFC Coin" → "ofc-coin". */
export function kebab(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** `now` minus a random span in [minMs, maxMs), at millisecond precision. */
export function before(now: number, rng: Rng, minMs: number, maxMs: number): number {
  return now - Math.floor(rng.uniform(minMs, maxMs));
}

let cachedDay = Number.NaN;
let cachedPrefix = '';
const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * `new Date(ms).toISOString()`, several times faster for runs of nearby times (history points):
 * the date part is cached per day, the time of day is plain arithmetic.
 */
export function iso(ms: number): string {
  const day = Math.floor(ms / DAY);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedPrefix = new Date(day * DAY).toISOString().slice(0, 11);
  }
  let rest = ms - day * DAY;
  const hours = Math.floor(rest / HOUR);
  rest -= hours * HOUR;
  const minutes = Math.floor(rest / MINUTE);
  rest -= minutes * MINUTE;
  const seconds = Math.floor(rest / 1000);
  return `${cachedPrefix}${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(rest - seconds * 1000, 3)}Z`;
}
