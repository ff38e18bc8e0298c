import type { Rng } from './random';
import type { CatalogFlags, PublishFlag } from './types';

export interface FlagSeed {
  hidden?: boolean;
  delisted?: boolean;
  previous?: string[];
}

/**
 * Writes the import-only flags. Values that equal the defaults are written on some records and
 * omitted on others (always omitted on the first record, always written on the second), so the
 * import's defaults are exercised in every size.
 */
export function applyCatalogFlags<T extends CatalogFlags>(rng: Rng, record: T, seed: FlagSeed, index: number): T {
  const explicit = () => (index === 0 ? false : index === 1 ? true : rng.chance(0.5));
  const flagged: T = { ...record };
  if (seed.hidden) flagged.published = false;
  else if (explicit()) flagged.published = true;
  if (seed.delisted) flagged.delisted = true;
  else if (explicit()) flagged.delisted = false;
  if (seed.previous && seed.previous.length > 0) flagged.previous_slugs = [...seed.previous];
  else if (explicit()) flagged.previous_slugs = [];
  return flagged;
}

export function applyPublishFlag<T extends PublishFlag>(rng: Rng, record: T, hidden: boolean, index: number): T {
  if (hidden) return { ...record, published: false };
  const explicit = index === 0 ? false : index === 1 ? true : rng.chance(0.4);
  return explicit ? { ...record, published: true } : record;
}
