/**
 * The dataset file format (README.md, "Data import") as the generator writes it. The types are the
 * input of the import's own schema (shared/import/dataset.ts), so a change of the schema changes
 * them: a record carries exactly the API fields of its resource (docs/openapi.json) plus the
 * import-only flags, which the input leaves optional (they have defaults). Where the generator
 * writes less than the file allows, its type says so (a platform's `type` and `url`, below). The
 * import validates what we write.
 */
import type * as z from 'zod/mini';
import type { Exchange, Protocol, Wallet } from '../../shared/domain/resources';
import type { Dataset as DatasetSchema } from '../../shared/import/dataset';
import type { HistoryFamily, OFFER_FAMILY, OfferFamily } from '../../shared/model/offer-families';

/** A dataset file: any of the arrays may be absent. */
type Dataset = z.input<typeof DatasetSchema>;

type RecordOf<F extends keyof Dataset> = NonNullable<Dataset[F]>[number];

export type CurrencyRecord = RecordOf<'currencies'>;

/**
 * A platform record as the generator writes it: the file may leave `type` out (it is the family's)
 * and give a null `url`; the generator always writes the resource's type and a URL, which the
 * offers' generated links are built from.
 */
type Generated<R extends { url: unknown }, Resource extends { type: string }> = Omit<R, 'type' | 'url'> &
  Pick<Resource, 'type'> & { url: NonNullable<R['url']> };
export type ExchangeRecord = Generated<RecordOf<'exchanges'>, z.input<typeof Exchange>>;
export type WalletRecord = Generated<RecordOf<'wallets'>, z.input<typeof Wallet>>;
export type ProtocolRecord = Generated<RecordOf<'protocols'>, z.input<typeof Protocol>>;
export type PlatformRecord = ExchangeRecord | WalletRecord | ProtocolRecord;

/** The records of an offer family, and of its history (shared/model/offer-families.ts `dataset`). */
export type OfferRecordOf<F extends OfferFamily> = RecordOf<(typeof OFFER_FAMILY)[F]['dataset']>;
type HistoryRecordOf<F extends HistoryFamily> = RecordOf<`${F}_history`>;
/** Each offer family's records, by family. */
export type OffersByFamily = { [F in OfferFamily]: OfferRecordOf<F>[] };
/** Each history family's records, under `{family}_history`. */
export type HistoriesByFamily = { [F in HistoryFamily as `${F}_history`]: HistoryRecordOf<F>[] };

export type EarnOfferRecord = RecordOf<'earn_offers'>;
export type BorrowOfferRecord = RecordOf<'borrow_offers'>;
export type CollateralOfferRecord = RecordOf<'collateral_offers'>;

/** The platform an offer names. */
export type PlatformRef = NonNullable<EarnOfferRecord['platform']>;
export type PlatformType = PlatformRef['type'];
/** The currency (or chain) an offer names. */
export type AssetRef = BorrowOfferRecord['asset'];

/** Import-only flag of every record (default `true`). */
export type PublishFlag = Pick<EarnOfferRecord, 'published'>;
/** Import-only flags of platforms and currencies (defaults `true`, `false` and `[]`). */
export type CatalogFlags = Pick<CurrencyRecord, 'published' | 'delisted' | 'previous_slugs'>;

/** What the generator produces: every array present, a platform family's records as it writes them. */
export type GeneratedDataset = {
  [F in keyof Dataset]-?: F extends 'exchanges'
    ? ExchangeRecord[]
    : F extends 'wallets'
      ? WalletRecord[]
      : F extends 'protocols'
        ? ProtocolRecord[]
        : RecordOf<F>[];
};
