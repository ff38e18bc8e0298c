/**
 * The import's first stage (docs/data-model.md, "Versions and imports", step 1): a data file is
 * valid as a whole or refused before anything is written. Each record was checked by its schema
 * (dataset.ts); here, the rules across records: unique identifiers, former slugs naming one record,
 * history naming offers of its family (in the file, or served), at most MAX_DAY_OBSERVATIONS
 * observations of an offer in a UTC day (history-plan.ts).
 */
import type { SnapshotPointer } from '../data/items/pointer';
import {
  CATALOG_FAMILIES,
  DATASET_FAMILY_OF,
  HISTORY_DATASET_FAMILY,
  HISTORY_FAMILIES,
  OFFER_FAMILIES,
} from '../data/keys';
import type { VersionWriter } from '../data/version-writer';
import { DataFileError, type Dataset, type DatasetFamily, RECORD_SCHEMA } from './dataset';
import { denseDayErrors } from './history-plan';

/** Refuse a file that breaks a rule across its records (DataFileError, with every error by place). */
export async function validateAcrossRecords(
  dataset: Dataset,
  pointer: SnapshotPointer | undefined,
  versions: VersionWriter,
): Promise<void> {
  const errors = [...crossRecordErrors(dataset), ...(await unknownOffers(dataset, pointer, versions))];
  if (errors.length > 0) throw new DataFileError(errors);
}

/**
 * Rules across the records of one family in the file: unique identifiers, former slugs naming one
 * record only, a day's observations of an offer within their bound.
 * @internal (exported for its tests)
 */
export function crossRecordErrors(dataset: Dataset): string[] {
  const errors: string[] = [];
  /** Each value's last place; every repeated value is an error at its place. */
  const unique = <K>(name: DatasetFamily, values: readonly K[] | undefined, field: string): Map<K, number> => {
    const seen = new Map<K, number>();
    values?.forEach((value, i) => {
      if (seen.has(value)) errors.push(`${name}[${i}].${field}: duplicate of ${name}[${seen.get(value)}]`);
      seen.set(value, i);
    });
    return seen;
  };
  for (const family of CATALOG_FAMILIES) {
    const records = dataset[family];
    if (!records) continue;
    const seen = unique(
      family,
      records.map((record) => record.slug),
      'slug',
    );
    // A former slug naming another record would make that record's address a redirect, even once it is hidden.
    const former = new Map<string, number>();
    records.forEach((record, i) => {
      record.previous_slugs.forEach((slug, j) => {
        if (slug === record.slug) errors.push(`${family}[${i}].previous_slugs[${j}]: equals the record's own slug`);
        else if (seen.has(slug))
          errors.push(`${family}[${i}].previous_slugs[${j}]: "${slug}" is the slug of ${family}[${seen.get(slug)}]`);
        else if (former.has(slug) && former.get(slug) !== i) {
          errors.push(
            `${family}[${i}].previous_slugs[${j}]: "${slug}" is also a former slug of ${family}[${former.get(slug)}]`,
          );
        }
        former.set(slug, i);
      });
    });
  }
  for (const family of OFFER_FAMILIES)
    unique(
      DATASET_FAMILY_OF[family],
      dataset[DATASET_FAMILY_OF[family]]?.map((o) => o.id),
      'id',
    );
  for (const family of HISTORY_FAMILIES) {
    const name = HISTORY_DATASET_FAMILY[family];
    unique(
      name,
      dataset[name]?.map((s) => s.offer_id),
      'offer_id',
    );
    errors.push(...denseDayErrors(name, dataset[name] ?? []));
  }
  return errors;
}

/**
 * History must name offers of its family: those of the file when it carries the family, else the
 * served ones (history of an offer that is not published is stored, and not served).
 */
async function unknownOffers(
  dataset: Dataset,
  pointer: SnapshotPointer | undefined,
  versions: VersionWriter,
): Promise<string[]> {
  const errors: string[] = [];
  for (const family of HISTORY_FAMILIES) {
    const name = HISTORY_DATASET_FAMILY[family];
    const series = dataset[name];
    if (!series || series.length === 0) continue;
    const offers = DATASET_FAMILY_OF[family];
    const served = pointer?.families[offers]?.version;
    const records = dataset[offers] ?? (served ? await versions.readSource(served, offers, RECORD_SCHEMA[offers]) : []);
    const ids = new Set(records.map((o) => o.id));
    series.forEach((s, i) => {
      if (!ids.has(s.offer_id)) errors.push(`${name}[${i}].offer_id: no ${family} offer has id ${s.offer_id}`);
    });
  }
  return errors;
}
