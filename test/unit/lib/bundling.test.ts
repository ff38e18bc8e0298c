/**
 * The bundles built with lib/bundling.ts carry the environment credential provider
 * (shared/platform/lambda-credentials.ts) instead of the SDK's default chain, and a client built as a
 * deployed function builds it still finds its credentials, in a bundle run by a plain `node`
 * (docs/adr/0007-credentials-from-the-environment.md).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type BuildOptions, build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../../../lib/bundling';

const ROOT = resolve(__dirname, '../../..');
const SHIM = 'shared/platform/lambda-credentials.ts';
const CHAIN =
  /credential-provider-(node|ini|sso|process|web-identity|http|login)|nested-clients|token-providers|credential-provider-imds/;
const run = promisify(execFile);

const options = (): BuildOptions => ({
  ...BUNDLE_OPTIONS,
  external: [...BUNDLE_OPTIONS.external],
  mainFields: [...BUNDLE_OPTIONS.mainFields],
  alias: { ...BUNDLE_OPTIONS.alias },
  absWorkingDir: ROOT,
  logLevel: 'silent',
});

describe('BUNDLE_OPTIONS', () => {
  it('bundles the environment credential provider and none of the default chain', async () => {
    // The API's functions, and the ingest function with its S3 client (the other runtime configuration that imports the chain).
    const entries = ['platforms', 'ingest'].map((name) => join(ROOT, 'functions', name, 'handler.ts'));

    const { metafile } = await build({
      ...options(),
      entryPoints: entries,
      outdir: join(ROOT, 'out'),
      write: false,
      metafile: true,
    });

    const outputs = Object.values(metafile.outputs).filter((output) => output.entryPoint);
    expect(outputs).toHaveLength(entries.length);
    for (const output of outputs) {
      const inputs = Object.keys(output.inputs);
      expect(inputs).toContain(SHIM);
      expect(inputs.filter((input) => CHAIN.test(input))).toEqual([]);
    }
  });
});

describe('a bundled client without an endpoint', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bundle-credentials-'));
    file = join(dir, 'entry.js');
    // The clients as the composition roots build them from a deployed environment (no DYNAMODB_ENDPOINT).
    const contents = `
      import { S3Client } from '@aws-sdk/client-s3';
      import { readConfig } from './shared/platform/config';
      import { createClients } from './shared/platform/dynamodb';
      const { client } = createClients(readConfig(process.env));
      const s3 = new S3Client({});
      Promise.all([client.config.credentials(), s3.config.credentials()]).then(
        ([dynamodb, s3]) => process.stdout.write(JSON.stringify({ dynamodb, s3 })),
        (error) => process.stdout.write(JSON.stringify({ error: error.name })),
      );`;
    await build({
      ...options(),
      stdin: { contents, resolveDir: ROOT, loader: 'ts', sourcefile: 'entry.ts' },
      outfile: file,
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const runBundle = async (env: Record<string, string>) => {
    const { stdout } = await run(process.execPath, [file], {
      env: { PATH: process.env.PATH ?? '', HOME: dir, AWS_REGION: 'eu-west-1', TABLE_NAME: 'table', ...env },
      timeout: 20_000,
    });
    return JSON.parse(stdout);
  };

  it('takes its credentials from the environment, as in Lambda', async () => {
    const credentials = {
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'secret-example',
      sessionToken: 'session-example',
    };

    const result = await runBundle({
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_SESSION_TOKEN: credentials.sessionToken,
    });

    expect(result.dynamodb).toMatchObject(credentials);
    expect(result.s3).toMatchObject(credentials);
  });

  it('looks nowhere else: a shared credentials file is not read', async () => {
    const credentialsFile = join(dir, 'credentials');
    writeFileSync(credentialsFile, '[default]\naws_access_key_id = AKIDFROMFILE\naws_secret_access_key = from-file\n');

    const result = await runBundle({ AWS_SHARED_CREDENTIALS_FILE: credentialsFile });

    expect(result).toEqual({ error: 'CredentialsProviderError' });
  });
});
