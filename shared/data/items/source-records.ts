/**
 * A family's source records as imported, shared by every version of the same records
 * (`SRC#<family>#<records hash>` / `000000`…; versions written before held their own,
 * `V#<version>#SOURCE#<family>`): to render offers again when platform references change, to write
 * a version again in the current layout or with new figures, to check history against unpublished
 * offers. Decoded with the dataset's schema
 * of the family (the import passes it: shared/import/dataset.ts), so a record read back is typed
 * as it was validated. Read and written by snapshot-writer.ts; no serving function may read them.
 */
import * as z from 'zod/mini';
import { CorruptDataError } from '../../platform/errors';
import { sharedSourceKey } from '../keys';
import { BODY, body, chunked, gzip, type Item, parsed } from './content';

export function encodeSource(family: string, recordsHash: string, records: readonly unknown[]): Item[] {
  return chunked(records.map((r) => JSON.stringify(r))).map((text, i) => ({
    ...sharedSourceKey(family, recordsHash, i),
    [BODY]: gzip(text),
  }));
}

export function decodeSource<S extends z.ZodMiniType>(
  version: string,
  family: string,
  items: Record<string, unknown>[],
  record: S,
): z.output<S>[] {
  const what = `the ${family} records of ${version}`;
  const records = items.flatMap((item) => {
    // Versions written before sources were compressed hold them as text.
    const text = typeof item.records === 'string' ? item.records : body(item, what);
    const chunk = parsed(text, what);
    if (!Array.isArray(chunk)) throw new CorruptDataError(`${what} are not a list`);
    return chunk;
  });
  const result = z.safeParse(z.array(record), records);
  if (!result.success) throw new CorruptDataError(`${what} do not match the ${family} schema`);
  return result.data;
}
