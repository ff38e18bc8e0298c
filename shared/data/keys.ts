/** Every PK/SK value of the single table is built here, and nowhere else (docs/data-model.md). */

const SEP = '#';

/** Partition-key prefixes that IAM policies condition on (dynamodb:LeadingKeys). */
export const KEY_PREFIX = 'KEY#';
export const USER_PREFIX = 'USER#';
export const QUOTA_PREFIX = 'QUOTA#';
export const SNAPSHOT_PREFIX = 'V#';
export const DOCUMENT_PREFIX = 'DOC#';
export const HISTORY_PREFIX = 'HIST#';

import { itemStart, SERIES_OF, type SeriesResolution } from '../model/history-series';
import {
  HISTORY_FAMILIES,
  type HistoryFamily,
  OFFER_FAMILIES,
  OFFER_FAMILY,
  type OfferFamily,
} from '../model/offer-families';

/** The resource families: the one list every loop over families and every family type derives from. */
export const PLATFORM_FAMILIES = ['exchanges', 'wallets', 'protocols'] as const;
export const CATALOG_FAMILIES = [...PLATFORM_FAMILIES, 'currencies'] as const;
/** The offer families and those with history are declared with everything else about them (shared/model/offer-families.ts). */
export { HISTORY_FAMILIES, type HistoryFamily, OFFER_FAMILIES, type OfferFamily } from '../model/offer-families';

export type PlatformFamily = (typeof PLATFORM_FAMILIES)[number];
export type CatalogFamily = (typeof CATALOG_FAMILIES)[number];
/** The families that are published as versions (history is appended, never versioned). */
export const VERSIONED_FAMILIES = [...CATALOG_FAMILIES, ...OFFER_FAMILIES] as const;
export type VersionedFamily = CatalogFamily | OfferFamily;

/** The dataset family (data file array) that each versioned family of the served data comes from. */
export const DATASET_FAMILY_OF = {
  exchanges: 'exchanges',
  wallets: 'wallets',
  protocols: 'protocols',
  currencies: 'currencies',
  ...(Object.fromEntries(OFFER_FAMILIES.map((family) => [family, OFFER_FAMILY[family].dataset])) as {
    [F in OfferFamily]: (typeof OFFER_FAMILY)[F]['dataset'];
  }),
} as const satisfies Record<VersionedFamily, string>;

/** The dataset family of each offer family's history: `<family>_history`. */
export const HISTORY_DATASET_FAMILY = Object.fromEntries(
  HISTORY_FAMILIES.map((family) => [family, `${family}_history`]),
) as { [F in HistoryFamily]: `${F}_history` };

export interface Key {
  PK: string;
  SK: string;
}

export const pointerKey = (): Key => ({ PK: 'SNAPSHOT', SK: 'CURRENT' });

/** When an import last carried each family, changed or not: an import that changes nothing writes only this. */
export const refreshedKey = (): Key => ({ PK: 'SNAPSHOT', SK: 'REFRESHED' });

const v = (version: string) => `${SNAPSHOT_PREFIX}${version}${SEP}`;

const chunkKey = (chunk: number) => String(chunk).padStart(6, '0');

/** One segment of a family version's index (docs/adr/0009-one-index-per-family-version.md). */
export const indexSegmentKey = (version: string, segment: number): Key => ({
  PK: `${v(version)}INDEX`,
  SK: chunkKey(segment),
});

/** One segment of an offer version's index delta against the version it replaced (docs/adr/0017-index-deltas.md). */
export const indexDeltaKey = (version: string, segment: number): Key => ({
  PK: `${v(version)}DELTA`,
  SK: chunkKey(segment),
});

/** A block of rendered documents, addressed by the hash of its content: shared by every version that names it. */
export const documentBlockKey = (hash: string): Key => ({ PK: `${DOCUMENT_PREFIX}${hash}`, SK: 'DOC' });

/** A chunk of a platform or currency version's search records (search-index.ts), stored and named like a block. */
export const searchChunkName = (version: string, part: number): string => `S.${version}.${part}`;

/** One partition per offer, outside every version: appending never rewrites what is stored. */
export const historyPartition = (family: HistoryFamily, id: number): string =>
  `${HISTORY_PREFIX}${family.toUpperCase()}${SEP}${id}`;

/** Epoch milliseconds up to year 9999 fit 15 digits; padded so sort keys order by time. */
const MS_KEY_DIGITS = 15;
const MS_KEY_OFFSET = 10 ** MS_KEY_DIGITS;

/** A time as a sort key part: its 15 digits; before 1970 (the week of 1970-01-01), `-` and those of 10^15 + ms. */
const msKey = (ms: number) =>
  ms >= 0 ? String(ms).padStart(MS_KEY_DIGITS, '0') : `-${String(MS_KEY_OFFSET + ms).padStart(MS_KEY_DIGITS, '0')}`;

/** A series' sort-key prefix, its name and buckets an item packs: another packing is another layout (STYLE 26). */
const seriesPrefix = (resolution: SeriesResolution) => `${resolution}.${SERIES_OF[resolution].perItem}`;

/** The item of a stored series that holds the bucket of `ms`: `1W.52#<the item's first bucket start>`. */
export const historySortKey = (resolution: SeriesResolution, ms: number): string =>
  `${seriesPrefix(resolution)}${SEP}${msKey(itemStart(resolution, ms))}`;

export const historyKey = (family: HistoryFamily, id: number, resolution: SeriesResolution, ms: number): Key => ({
  PK: historyPartition(family, id),
  SK: historySortKey(resolution, ms),
});

/** The series and the first bucket's start a history sort key names, or undefined for no key of this layout. */
export function parseHistorySortKey(sk: string): { resolution: SeriesResolution; start: number } | undefined {
  const sep = sk.indexOf(SEP);
  const resolution = (Object.keys(SERIES_OF) as SeriesResolution[]).find((r) => seriesPrefix(r) === sk.slice(0, sep));
  const time = sk.slice(sep + 1);
  if (resolution === undefined || !/^-?\d{15}$/.test(time)) return undefined;
  const start = time.startsWith('-') ? Number(time.slice(1)) - MS_KEY_OFFSET : Number(time);
  return itemStart(resolution, start) === start ? { resolution, start } : undefined;
}

/** A part of the history journal: part 0 is the head, written last; the others keyed by its number (docs/data-model.md). */
export const historyJournalKey = (seq: number, part: number): Key => ({
  PK: 'IMPORT',
  SK: part === 0 ? 'HISTORY' : `HISTORY${SEP}${seq}${SEP}${chunkKey(part)}`,
});

/** A version's manifest (items/manifest.ts), written before its items so that it can be deleted. */
export const manifestKey = (version: string, chunk: number): Key => ({
  PK: `${v(version)}MANIFEST`,
  SK: chunkKey(chunk),
});

export const manifestPartition = (version: string): string => manifestKey(version, 0).PK;

/** @internal A partition nothing writes, which the serving functions' IAM still refuses (ADR 0024). */
export const sourcePartition = (version: string, family: string): string => `${v(version)}SOURCE${SEP}${family}`;

/** A chunk of source records by content (docs/adr/0016-source-records-by-content.md); a manifest names it `SRC#<hash>`. */
export const SOURCE_PREFIX = 'SRC#';
export const sourceChunkKey = (hash: string): Key => ({ PK: `${SOURCE_PREFIX}${hash}`, SK: 'SRC' });
export const sourceChunkName = (hash: string): string => sourceChunkKey(hash).PK;

/** The item a manifest's shared name stands for: a source chunk, or a document block. */
export const sharedItemKey = (name: string): Key => {
  if (name.startsWith(SOURCE_PREFIX)) return sourceChunkKey(name.slice(SOURCE_PREFIX.length));
  return documentBlockKey(name);
};

/** An API key, addressed by the hash of its secret (the secret itself is never stored). */
export const apiKeyKey = (hash: string): Key => ({ PK: `${KEY_PREFIX}${hash}`, SK: 'KEY' });

export const userKey = (userId: string): Key => ({ PK: `${USER_PREFIX}${userId}`, SK: 'USER' });

/** The reference from a user to one of their keys (for listing and revoking by key id). */
export const userKeyRefKey = (userId: string, keyId: string): Key => ({
  PK: `${USER_PREFIX}${userId}`,
  SK: `KEY${SEP}${keyId}`,
});

export const USER_KEY_REF_PREFIX = `KEY${SEP}`;

/** A key's counter item for one calendar month (`202611`, shared/accounts/quota-store.ts). */
export const quotaKey = (keyId: string, monthId: string): Key => ({
  PK: `${QUOTA_PREFIX}${keyId}${SEP}MON${SEP}${monthId}`,
  SK: 'COUNT',
});

/** The attributes of a counter item: the month's count, the latest minute (`yyyymmddhhmm`) and its count. */
export const QUOTA_ATTRIBUTES = { monthCount: 'count', minute: 'minute', minuteCount: 'minuteCount' } as const;

/** Partition-key prefixes the serving functions read; the stack makes each a `dynamodb:LeadingKeys` pattern. */
export const SERVED_PREFIXES: readonly string[] = [
  pointerKey().PK,
  SNAPSHOT_PREFIX,
  DOCUMENT_PREFIX,
  HISTORY_PREFIX,
  QUOTA_PREFIX,
];

/** Partitions under a served prefix the serving functions must never read, as IAM `StringLike` patterns. */
export const UNSERVED_PATTERNS: readonly string[] = [sourcePartition('*', '*'), manifestPartition('*')];

export const WEBHOOK_PREFIX = 'WEBHOOK#';
export const WEBHOOK_SECRET_PREFIX = 'WHSECRET#';
export const WEBHOOK_REFERENCE_PREFIX = 'WHREF#';
export const WEBHOOK_DELIVERY_PREFIX = 'WHDELIVERY#';

/** The subscriptions of one offer family, one partition: a publish of the family reads it whole (one Query). */
export const webhookFamilyPartition = (family: OfferFamily): string => `${WEBHOOK_PREFIX}${family}`;
export const webhookKey = (family: OfferFamily, id: string): Key => ({ PK: webhookFamilyPartition(family), SK: id });

/** Where a user's subscription lies (its family): `list`, `remove` and the owner's view without a Scan. */
export const userWebhookRefKey = (userId: string, id: string): Key => ({
  PK: `${USER_PREFIX}${userId}`,
  SK: `WEBHOOK${SEP}${id}`,
});
export const USER_WEBHOOK_REF_PREFIX = `WEBHOOK${SEP}`;

/** A subscription's signing secret, apart from it: only the sending function and the command read it. */
export const webhookSecretKey = (id: string): Key => ({ PK: `${WEBHOOK_SECRET_PREFIX}${id}`, SK: 'SECRET' });

/**
 * The reference APYs of a family's `apy_change` subscriptions (docs/adr/0028-webhook-delivery.md):
 * one partition a family, each subscription's in one bucket (a hash of its id), cut into parts.
 */
export const webhookReferencePartition = (family: OfferFamily): string => `${WEBHOOK_REFERENCE_PREFIX}${family}`;
export const webhookReferenceKey = (family: OfferFamily, bucket: number, part: number): Key => ({
  PK: webhookReferencePartition(family),
  SK: `${webhookReferenceBucket(bucket)}${part}`,
});
/** The sort-key prefix of a bucket's items (`B042#`). */
export const webhookReferenceBucket = (bucket: number): string => `B${String(bucket).padStart(3, '0')}${SEP}`;

/** One delivery of a subscription; its id starts with its creation time, so the partition reads newest first. */
export const webhookDeliveryPartition = (subscriptionId: string): string =>
  `${WEBHOOK_DELIVERY_PREFIX}${subscriptionId}`;
export const webhookDeliveryKey = (subscriptionId: string, deliveryId: string): Key => ({
  PK: webhookDeliveryPartition(subscriptionId),
  SK: deliveryId,
});
