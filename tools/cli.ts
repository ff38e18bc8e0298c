/** Small helpers the command-line scripts share: argument errors, a progress bar, file reading. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

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
    process.stderr.write(
      `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% ${done}/${total}`,
    );
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

/** Where `npm run synth` writes the cloud assembly. */
const CDK_OUT = join(__dirname, '..', 'cdk.out');

/**
 * `--bundles [--cdk-out DIR] [--stack NAME]` of `npm start` and `npm run smoke -- --local`: serve
 * the functions' bundles from the cloud assembly instead of their TypeScript sources.
 */
export const BUNDLE_OPTIONS_SPEC = {
  bundles: { type: 'boolean', default: false },
  'cdk-out': { type: 'string' },
  stack: { type: 'string' },
} as const;

/** The cloud assembly directory the options ask for, or undefined (the sources). */
export function bundlesOption(values: { bundles?: boolean; 'cdk-out'?: string; stack?: string }): string | undefined {
  if (!values.bundles) {
    if (values['cdk-out'] || values.stack) throw new UsageError('--cdk-out and --stack go with --bundles');
    return undefined;
  }
  return values['cdk-out'] ?? CDK_OUT;
}
