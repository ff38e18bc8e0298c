/** Small helpers the command-line scripts share: argument errors, a progress bar, file reading. */
import { readFileSync } from 'node:fs';

// This machine runs Node 20; the functions deploy on nodejs22.x. The SDK's notice about it is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export class UsageError extends Error {}

/**
 * A data file's bytes, not a string: `parseDataset` / `parseAccounts` decode them, refusing
 * invalid UTF-8 by place, as the deployed ingest does with an S3 object's bytes.
 */
export function readDataFile(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** A one-line progress bar on stderr (only on a terminal, and only for large jobs). */
export function progressBar(label: string, minimumTotal = 2_000): (done: number, total: number) => void {
  let last = -1;
  return (done, total) => {
    if (total < minimumTotal || !process.stderr.isTTY) return;
    const percent = Math.floor((done / total) * 100);
    if (percent === last) return;
    last = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% ${done}/${total}`);
    if (done >= total) process.stderr.write('\n');
  };
}

/** Run a CLI main: usage errors exit 2 with their message, anything else exits 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${message}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  });
}
